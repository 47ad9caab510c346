// Package aitp is part of adpnode.
package aitp
