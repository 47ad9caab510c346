// Package testnet is part of adpnode.
package testnet
