package node

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/peering"
)

// newHost builds the libp2p host of a node with the builder the test
// networks share (internal/p2phost): TCP and QUIC on listen, Noise,
// yamux, fixed resource limits (raised for the given protocols) and a
// connection manager with the given water marks, and the reachability
// options (config.Reach.HostOptions). Metrics go nowhere
// global; the node exports its own.
func newHost(sk crypto.PrivKey, listen []string, raised []protocol.ID, low, high int, opts ...p2phost.Option) (host.Host, error) {
	h, err := p2phost.New(sk, append([]p2phost.Option{
		p2phost.WithListen(listen...),
		p2phost.WithQUIC(),
		p2phost.WithLimits(p2phost.NodeLimits(raised...)),
		p2phost.WithConnManager(low, high, time.Minute),
	}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	return h, nil
}

// openHost builds the node's host on cfg.Listen, where every address with
// port 0 takes the port it had at the last run when that port is free
// (peering.ReuseListen), and saves the addresses it listens on for the
// next run. When listening on the old ports fails all the same, it logs
// and starts on cfg.Listen as given.
func openHost(sk crypto.PrivKey, cfg Config, gate connmgr.ConnectionGater, raised []protocol.ID, reach ...p2phost.Option) (host.Host, error) {
	file := filepath.Join(cfg.DataDir, peering.ListenFile)
	listen := peering.ReuseListen(file, cfg.Listen, cfg.Logger)
	opts := append(slices.Clip(reach), p2phost.WithConnectionGater(gate))
	h, err := newHost(sk, listen, raised, cfg.ConnLow, cfg.ConnHigh, opts...)
	if err != nil && !slices.Equal(listen, cfg.Listen) {
		cfg.Logger.Warn("cannot listen on the ports of the last run; picking new ones", "err", err)
		h, err = newHost(sk, cfg.Listen, raised, cfg.ConnLow, cfg.ConnHigh, opts...)
	}
	if err != nil {
		return nil, err
	}
	if err := peering.SaveListen(file, h.Network().ListenAddresses()); err != nil {
		cfg.Logger.Warn("listen ports not saved", "err", err)
	}
	return h, nil
}
