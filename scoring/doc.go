// Package scoring is part of adpnode.
package scoring
