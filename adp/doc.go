// Package adp is part of adpnode.
package adp
