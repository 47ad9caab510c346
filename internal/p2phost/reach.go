package p2phost

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/host/autorelay"
	relay "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

// HopProtocol is the circuit relay v2 hop protocol, spoken by the peers
// that run a relay service.
const HopProtocol = "/libp2p/circuit/relay/0.2.0/hop"

// Reachability is the part of a host's configuration that lets it be
// reached from beyond its own network: all of it is go-libp2p's own
// machinery, turned on by WithReachability.
type Reachability struct {
	// PortMap asks the gateway for a port mapping (UPnP IGD, NAT-PMP).
	PortMap bool
	// RelayService serves circuit relay v2 reservations to other peers
	// once AutoNAT finds the host publicly reachable, within Resources
	// (zero value: relay.DefaultResources, see the package doc).
	RelayService bool
	Resources    relay.Resources
	// Relays are the relays AutoRelay reserves a slot on when the host
	// is private, tried before any connected peer that speaks
	// HopProtocol.
	Relays []peer.AddrInfo
	// PunchWait is how long after it is built the host refuses relayed
	// connections, dialled or accepted, while its hole-punching service
	// has not started (HolePunchReady): go-libp2p would never punch
	// through one made then. 0: DefaultPunchWait; negative: never.
	PunchWait time.Duration
	// Force overrides AutoNAT's verdict (ReachabilityUnknown: none).
	// A deployment that knows its situation may set it; the NAT tests
	// set it to stand in for what AutoNAT would learn on the Internet.
	Force network.Reachability
}

// WithReachability turns on what lets a host be reached from beyond its
// network: the relay transport (dial and accept relayed connections),
// AutoNAT v2 (per address reachability) with the AutoNAT v1 service
// (answer other peers' reachability probes, rate-limited by libp2p),
// DCUtR hole punching, AutoRelay (a relay reservation while the host is
// private) and, as r says, port mapping and the relay service. Without
// this option a host has none of them.
func WithReachability(r Reachability) Option {
	return func(c *config) { c.reach = &r }
}

// WithAddrFilter sets the addresses a host announces: announce, when not
// empty, replaces the addresses the host found (interfaces, observed,
// mapped); then every address that noAnnounce matches is dropped. An
// entry of noAnnounce that ends in /ipcidr/N matches a whole subnet;
// any other entry matches one address.
func WithAddrFilter(announce, noAnnounce []ma.Multiaddr) Option {
	return func(c *config) {
		c.announce = slices.Clone(announce)
		c.noAnnounce = slices.Clone(noAnnounce)
	}
}

// addrsFactory returns the announce filter, or nil when there is none.
func (c *config) addrsFactory() (func([]ma.Multiaddr) []ma.Multiaddr, error) {
	if len(c.announce) == 0 && len(c.noAnnounce) == 0 {
		return nil, nil
	}
	filters := ma.NewFilters()
	exact := map[string]bool{}
	for _, m := range c.noAnnounce {
		if _, err := m.ValueForProtocol(ma.P_IPCIDR); err != nil {
			exact[string(m.Bytes())] = true
			continue
		}
		ipnet, err := manet.MultiaddrToIPNet(m)
		if err != nil {
			return nil, fmt.Errorf("p2phost: no-announce %s: %w", m, err)
		}
		filters.AddFilter(*ipnet, ma.ActionDeny)
	}
	announce := c.announce
	return func(addrs []ma.Multiaddr) []ma.Multiaddr {
		if len(announce) > 0 {
			// Keep the relay addresses AutoRelay adds: they are how a
			// private host is reached whatever it announces.
			addrs = append(slices.DeleteFunc(slices.Clone(addrs), func(a ma.Multiaddr) bool { return !isRelayed(a) }), announce...)
		}
		return slices.DeleteFunc(addrs, func(a ma.Multiaddr) bool {
			return exact[string(a.Bytes())] || filters.AddrBlocked(a)
		})
	}, nil
}

// reachOptions returns the libp2p options of r. hp is set to the host
// once it is built: AutoRelay asks for candidates only after that.
func reachOptions(r *Reachability, hp *atomic.Pointer[host.Host]) []libp2p.Option {
	opts := []libp2p.Option{
		libp2p.EnableRelay(),
		libp2p.EnableAutoNATv2(),
		libp2p.EnableNATService(),
		libp2p.EnableHolePunching(),
		// One known relay is enough to reserve a slot at once; libp2p's
		// default waits for four candidates or three minutes.
		libp2p.EnableAutoRelayWithPeerSource(relaySource(r.Relays, hp), autorelay.WithMinCandidates(1)),
	}
	if r.PortMap {
		opts = append(opts, libp2p.NATPortMap())
	}
	if r.RelayService {
		res := r.Resources
		if res.Limit == nil && res.MaxReservations == 0 {
			res = relay.DefaultResources()
		}
		opts = append(opts, libp2p.EnableRelayService(relay.WithResources(res)))
	}
	switch r.Force {
	case network.ReachabilityPublic:
		opts = append(opts, libp2p.ForceReachabilityPublic())
	case network.ReachabilityPrivate:
		opts = append(opts, libp2p.ForceReachabilityPrivate())
	}
	return opts
}

// relaySource is AutoRelay's source of relay candidates: the given relays
// first, then the connected peers known to speak HopProtocol.
func relaySource(static []peer.AddrInfo, hp *atomic.Pointer[host.Host]) autorelay.PeerSource {
	static = slices.Clone(static)
	return func(ctx context.Context, num int) <-chan peer.AddrInfo {
		out := make(chan peer.AddrInfo, num)
		defer close(out)
		sent := map[peer.ID]bool{}
		for _, ai := range static {
			if len(sent) == num {
				return out
			}
			sent[ai.ID] = true
			out <- ai
		}
		h := hp.Load()
		if h == nil {
			return out
		}
		for _, p := range (*h).Network().Peers() {
			if len(sent) == num {
				break
			}
			if sent[p] {
				continue
			}
			if ok, _ := (*h).Peerstore().SupportsProtocols(p, HopProtocol); len(ok) == 0 {
				continue
			}
			sent[p] = true
			out <- peer.AddrInfo{ID: p, Addrs: (*h).Peerstore().Addrs(p)}
		}
		return out
	}
}

// isRelayed reports whether m is a circuit relay address.
func isRelayed(m ma.Multiaddr) bool {
	_, err := m.ValueForProtocol(ma.P_CIRCUIT)
	return err == nil
}

// IsRelayed reports whether c runs over a circuit relay (a limited
// connection) rather than directly between the two hosts.
func IsRelayed(c network.Conn) bool {
	return c.Stat().Limited || isRelayed(c.RemoteMultiaddr())
}

var (
	publicMu sync.Mutex
	treated  = map[string]bool{} // subnets TreatAsPublic already took out
)

// TreatAsPublic makes every host of this process count the given subnets
// as public Internet addresses, though they lie in a private range
// (10/8, 172.16/12, 192.168/16). It exists only for tests that build an
// Internet out of network namespaces, which may use private ranges only:
// libp2p's AutoNAT, AutoRelay and hole punching consider private
// addresses unreachable from outside and would never act. It changes
// go-multiaddr's process-wide private range table (manet.Private4), so it
// must be called before any host is built; each subnet must lie inside
// one private range. A subnet given again is left as it is. A deployed
// node never calls it.
func TreatAsPublic(subnets ...*net.IPNet) error {
	publicMu.Lock()
	defer publicMu.Unlock()
	ranges := manet.Private4
	var done []string
	for _, s := range subnets {
		if treated[s.String()] {
			continue
		}
		next, err := subtract(ranges, s)
		if err != nil {
			return err
		}
		ranges = next
		done = append(done, s.String())
	}
	manet.Private4 = ranges
	for _, s := range done {
		treated[s] = true
	}
	return nil
}

// subtract returns ranges without s, which must lie inside one of them.
func subtract(ranges []*net.IPNet, s *net.IPNet) ([]*net.IPNet, error) {
	ones, bits := s.Mask.Size()
	if bits != 32 {
		return nil, fmt.Errorf("p2phost: %s: %w", s, ErrNotPrivate)
	}
	out := make([]*net.IPNet, 0, len(ranges)+32)
	found := false
	for _, r := range ranges {
		rOnes, _ := r.Mask.Size()
		if found || !r.Contains(s.IP) || rOnes > ones {
			out = append(out, r)
			continue
		}
		found = true
		out = append(out, splitOut(r, s.IP.To4(), ones)...)
	}
	if !found {
		return nil, fmt.Errorf("p2phost: %s: %w", s, ErrNotPrivate)
	}
	return out, nil
}

// splitOut returns the subnets that cover r except the /ones subnet that
// holds ip: at each bit below r's prefix, the half that does not hold ip.
func splitOut(r *net.IPNet, ip net.IP, ones int) []*net.IPNet {
	rOnes, _ := r.Mask.Size()
	var out []*net.IPNet
	for b := rOnes; b < ones; b++ {
		mask := net.CIDRMask(b+1, 32)
		sib := make(net.IP, 4)
		copy(sib, ip.Mask(mask))
		sib[b/8] ^= 0x80 >> (b % 8)
		out = append(out, &net.IPNet{IP: sib, Mask: mask})
	}
	return out
}
