package p2pnet

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/p2phost"
)

// Network is a set of in-process libp2p hosts. It is safe for concurrent use.
type Network struct {
	cfg config
	mn  mocknet.Mocknet // nil on TCP

	mu     sync.Mutex
	hosts  []host.Host
	keys   []crypto.PrivKey
	closed bool
}

// New builds n hosts and connects them in the configured topology. ctx
// bounds the connecting only, not the network's life (Close ends that). On
// error it closes whatever it built.
func New(ctx context.Context, n int, opts ...Option) (*Network, error) {
	cfg := config{transport: Mocknet, topology: Full, rand: rand.Reader}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if n < 0 || len(cfg.keys) > n {
		return nil, fmt.Errorf("%w: %d hosts with %d keys", ErrBadConfig, n, len(cfg.keys))
	}
	nw := &Network{cfg: cfg}
	if cfg.transport == Mocknet {
		nw.mn = mocknet.New()
	}
	for i := range n {
		var sk crypto.PrivKey
		if i < len(cfg.keys) {
			sk = cfg.keys[i]
		}
		if _, err := nw.add(sk); err != nil {
			return nil, errors.Join(err, nw.Close())
		}
	}
	if err := nw.ConnectTopology(ctx, cfg.topology); err != nil {
		return nil, errors.Join(err, nw.Close())
	}
	return nw, nil
}

// GenerateKey returns a fresh Ed25519 key drawn from r (crypto/rand when nil).
func GenerateKey(r io.Reader) (crypto.PrivKey, error) {
	if r == nil {
		r = rand.Reader
	}
	sk, _, err := crypto.GenerateEd25519Key(r)
	return sk, err
}

// add builds one host with key sk (a fresh key when nil) and, on mocknet,
// links it to every existing host. It returns the new host's index.
func (nw *Network) add(sk crypto.PrivKey) (int, error) {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	if nw.closed {
		return 0, ErrClosed
	}
	if sk == nil {
		var err error
		if sk, err = GenerateKey(nw.cfg.rand); err != nil {
			return 0, fmt.Errorf("p2pnet: generate key: %w", err)
		}
	}
	var (
		h   host.Host
		err error
	)
	switch nw.cfg.transport {
	case Mocknet:
		h, err = nw.addMock(sk, len(nw.hosts))
	default:
		h, err = newTCPHost(sk, nw.cfg.hostOpts)
	}
	if err != nil {
		return 0, err
	}
	nw.hosts = append(nw.hosts, h)
	nw.keys = append(nw.keys, sk)
	return len(nw.hosts) - 1, nil
}

// addMock adds a mocknet peer with an address unique to its index (in the
// blackholed 100::/64 range, as mocknet's own peers use) and links it to
// every existing peer. Caller holds nw.mu.
func (nw *Network) addMock(sk crypto.PrivKey, idx int) (host.Host, error) {
	ip := make(net.IP, net.IPv6len)
	ip[0] = 0x01
	ip[12], ip[13], ip[14], ip[15] = byte(idx>>24), byte(idx>>16), byte(idx>>8), byte(idx)
	addr, err := ma.NewMultiaddr(fmt.Sprintf("/ip6/%s/tcp/4242", ip))
	if err != nil {
		return nil, fmt.Errorf("p2pnet: mock address: %w", err)
	}
	h, err := nw.mn.AddPeer(sk, addr)
	if err != nil {
		return nil, fmt.Errorf("p2pnet: add mock peer: %w", err)
	}
	for _, other := range nw.hosts {
		if _, err := nw.mn.LinkPeers(h.ID(), other.ID()); err != nil {
			return nil, errors.Join(fmt.Errorf("p2pnet: link: %w", err), h.Close())
		}
	}
	return h, nil
}

// newTCPHost builds a host listening on 127.0.0.1 port 0 with the
// builder a node uses (internal/p2phost), on TCP only, with its defaults
// of unlimited resources and no connection trimming: a test network wants
// every connection it asked for.
func newTCPHost(sk crypto.PrivKey, extra []libp2p.Option) (host.Host, error) {
	h, err := p2phost.New(sk, p2phost.WithListen("/ip4/127.0.0.1/tcp/0"), p2phost.WithLibp2pOptions(extra...))
	if err != nil {
		return nil, fmt.Errorf("p2pnet: tcp host: %w", err)
	}
	return h, nil
}

// Add builds one more host (key sk, or a fresh key when nil) and connects
// it to the hosts at the given indexes. It returns the new host's index.
func (nw *Network) Add(ctx context.Context, sk crypto.PrivKey, connectTo ...int) (int, error) {
	if sk != nil && sk.Type() != crypto.Ed25519 {
		return 0, fmt.Errorf("%w: key is not Ed25519", ErrBadConfig)
	}
	idx, err := nw.add(sk)
	if err != nil {
		return 0, err
	}
	for _, j := range connectTo {
		if err := nw.Connect(ctx, idx, j); err != nil {
			return idx, err
		}
	}
	return idx, nil
}

// Connect dials host j from host i.
func (nw *Network) Connect(ctx context.Context, i, j int) error {
	a, err := nw.Host(i)
	if err != nil {
		return err
	}
	b, err := nw.Host(j)
	if err != nil {
		return err
	}
	if err := a.Connect(ctx, peer.AddrInfo{ID: b.ID(), Addrs: b.Addrs()}); err != nil {
		return fmt.Errorf("p2pnet: connect %d -> %d: %w", i, j, err)
	}
	return nil
}

// ConnectTopology connects the hosts as t lays them out, as New does with
// WithTopology: for a network made Unconnected whose services must start
// before the hosts connect.
func (nw *Network) ConnectTopology(ctx context.Context, t Topology) error {
	n := nw.Len()
	switch t {
	case Full:
		for i := range n {
			for j := i + 1; j < n; j++ {
				if err := nw.Connect(ctx, i, j); err != nil {
					return err
				}
			}
		}
	case Ring:
		if n < 2 {
			return nil
		}
		last := n
		if n == 2 {
			last = 1 // 0 -> 1 and 1 -> 0 are the same connection
		}
		for i := range last {
			j := (i + 1) % n
			if err := nw.Connect(ctx, i, j); err != nil {
				return err
			}
		}
	case Star:
		for i := 1; i < n; i++ {
			if err := nw.Connect(ctx, i, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// Len returns the number of hosts.
func (nw *Network) Len() int {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return len(nw.hosts)
}

// Host returns host i.
func (nw *Network) Host(i int) (host.Host, error) {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	if nw.closed {
		return nil, ErrClosed
	}
	if i < 0 || i >= len(nw.hosts) {
		return nil, fmt.Errorf("%w: %d of %d", ErrBadIndex, i, len(nw.hosts))
	}
	return nw.hosts[i], nil
}

// Hosts returns a copy of the host list, in index order.
func (nw *Network) Hosts() []host.Host {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return append([]host.Host(nil), nw.hosts...)
}

// Key returns the private key of host i.
func (nw *Network) Key(i int) (crypto.PrivKey, error) {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	if i < 0 || i >= len(nw.keys) {
		return nil, fmt.Errorf("%w: %d of %d", ErrBadIndex, i, len(nw.keys))
	}
	return nw.keys[i], nil
}

// AddrInfo returns the id and listen addresses of host i, as a bootstrap
// list wants them.
func (nw *Network) AddrInfo(i int) (peer.AddrInfo, error) {
	h, err := nw.Host(i)
	if err != nil {
		return peer.AddrInfo{}, err
	}
	return peer.AddrInfo{ID: h.ID(), Addrs: h.Addrs()}, nil
}

// Transport reports the transport the network was built on.
func (nw *Network) Transport() Transport { return nw.cfg.transport }

// Close closes every host (and the mocknet). It is idempotent. Services
// running on the hosts must be closed first.
func (nw *Network) Close() error {
	nw.mu.Lock()
	if nw.closed {
		nw.mu.Unlock()
		return nil
	}
	nw.closed = true
	hosts := nw.hosts
	nw.mu.Unlock()

	errs := make([]error, len(hosts)+1)
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() { errs[i] = h.Close() })
	}
	wg.Wait()
	if nw.mn != nil {
		errs[len(hosts)] = nw.mn.Close()
	}
	return errors.Join(errs...)
}
