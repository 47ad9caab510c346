// Package store is part of adpnode.
package store
