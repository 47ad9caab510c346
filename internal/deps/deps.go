// Package deps pins the module's chosen dependencies until the packages
// that use them import them directly. It is removed once they do.
package deps

import (
	_ "github.com/dgraph-io/badger/v4"
	_ "github.com/gowebpki/jcs"
	_ "github.com/libp2p/go-libp2p"
	_ "github.com/libp2p/go-libp2p-kad-dht"
	_ "github.com/libp2p/go-libp2p-pubsub"
	_ "github.com/libp2p/go-libp2p/p2p/net/mock"
	_ "github.com/multiformats/go-multiaddr"
	_ "github.com/prometheus/client_golang/prometheus"
)
