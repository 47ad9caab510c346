// Package dht is part of adpnode.
package dht
