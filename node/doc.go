// Package node is part of adpnode.
package node
