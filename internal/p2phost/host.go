package p2phost

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
	"github.com/libp2p/go-libp2p/p2p/muxer/yamux"
	basicconnmgr "github.com/libp2p/go-libp2p/p2p/net/connmgr"
	"github.com/libp2p/go-libp2p/p2p/security/noise"
	quic "github.com/libp2p/go-libp2p/p2p/transport/quic"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"
	ma "github.com/multiformats/go-multiaddr"
)

// DefaultListen is where a host listens unless WithListen says otherwise:
// loopback TCP on a port the system picks.
var DefaultListen = []string{"/ip4/127.0.0.1/tcp/0"}

type config struct {
	listen    []string
	quic      bool
	limits    rcmgr.ConcreteLimitConfig
	cm        bool
	low, high int
	grace     time.Duration
	extra     []libp2p.Option

	gater      connmgr.ConnectionGater
	reach      *Reachability
	announce   []ma.Multiaddr
	noAnnounce []ma.Multiaddr
}

// Option configures New.
type Option func(*config)

// WithListen sets the listen multiaddrs (default DefaultListen). An empty
// list leaves the choice to libp2p's defaults.
func WithListen(addrs ...string) Option {
	return func(c *config) { c.listen = append([]string(nil), addrs...) }
}

// WithQUIC adds the QUIC transport beside TCP.
func WithQUIC() Option { return func(c *config) { c.quic = true } }

// WithLimits sets the resource manager's fixed limits (default: infinite).
func WithLimits(l rcmgr.ConcreteLimitConfig) Option { return func(c *config) { c.limits = l } }

// WithConnManager trims connections above high down to low, sparing those
// younger than grace (default: no trimming).
func WithConnManager(low, high int, grace time.Duration) Option {
	return func(c *config) { c.cm, c.low, c.high, c.grace = true, low, high, grace }
}

// WithConnectionGater sets the host's connection gater. With
// WithReachability, relayed connections also wait for hole punching (see
// Reachability.PunchWait) before g is asked.
func WithConnectionGater(g connmgr.ConnectionGater) Option {
	return func(c *config) { c.gater = g }
}

// WithLibp2pOptions appends raw libp2p options, applied after the
// builder's own so that they win.
func WithLibp2pOptions(opts ...libp2p.Option) Option {
	return func(c *config) { c.extra = append(c.extra, opts...) }
}

// New builds a host with identity sk. On error it closes whatever it
// built.
func New(sk crypto.PrivKey, opts ...Option) (host.Host, error) {
	cfg := config{listen: DefaultListen, limits: rcmgr.InfiniteLimits}
	for _, o := range opts {
		o(&cfg)
	}
	af, err := cfg.addrsFactory()
	if err != nil {
		return nil, err
	}
	rm, err := rcmgr.NewResourceManager(rcmgr.NewFixedLimiter(cfg.limits), rcmgr.WithMetricsDisabled())
	if err != nil {
		return nil, fmt.Errorf("p2phost: resource manager: %w", err)
	}
	var cm connmgr.ConnManager = connmgr.NullConnMgr{}
	if cfg.cm {
		if cm, err = basicconnmgr.NewConnManager(cfg.low, cfg.high, basicconnmgr.WithGracePeriod(cfg.grace)); err != nil {
			rm.Close()
			return nil, fmt.Errorf("p2phost: connection manager: %w", err)
		}
	}
	lopts := []libp2p.Option{
		libp2p.Identity(sk),
		libp2p.ListenAddrStrings(cfg.listen...),
		libp2p.Transport(tcp.NewTCPTransport),
		libp2p.Security(noise.ID, noise.New),
		libp2p.Muxer(yamux.ID, yamux.DefaultTransport),
		libp2p.ResourceManager(rm),
		libp2p.ConnectionManager(cm),
		libp2p.DisableMetrics(),
	}
	var hp atomic.Pointer[host.Host]
	gater := cfg.gater
	if cfg.reach != nil {
		lopts = append(lopts, reachOptions(cfg.reach, &hp)...)
		if wait := cfg.reach.PunchWait; wait >= 0 {
			if wait == 0 {
				wait = DefaultPunchWait
			}
			gater = &punchGate{next: gater, host: &hp, until: time.Now().Add(wait)}
		}
	} else {
		lopts = append(lopts, libp2p.DisableRelay())
	}
	if gater != nil {
		lopts = append(lopts, libp2p.ConnectionGater(gater))
	}
	if af != nil {
		lopts = append(lopts, libp2p.AddrsFactory(af))
	}
	if cfg.quic {
		lopts = append(lopts, libp2p.Transport(quic.NewTransport))
	}
	h, err := libp2p.New(append(lopts, cfg.extra...)...)
	if err != nil {
		cm.Close()
		rm.Close()
		return nil, fmt.Errorf("p2phost: libp2p host: %w", err)
	}
	hp.Store(&h)
	return h, nil
}
