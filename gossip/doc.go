// Package gossip is part of adpnode.
package gossip
