package config

import (
	"fmt"
	"net"
	"slices"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"

	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/p2phost"
)

// Values of Reach.Reachability and Reach.RelayService.
const (
	ReachAuto    = "auto"    // AutoNAT decides; relay service on for directories and nodes without bootstrap peers
	ReachPublic  = "public"  // the node is known to be reachable from the Internet
	ReachPrivate = "private" // the node is known to be behind a NAT or firewall
	RelayOn      = "on"
	RelayOff     = "off"
)

// Reach is what lets a node be reached from beyond its own network,
// all of it go-libp2p's machinery (internal/p2phost.WithReachability):
// AutoNAT v2, circuit relay v2 (a resource-limited relay service on
// directory and bootstrap peers, AutoRelay on private nodes), DCUtR hole
// punching and UPnP / NAT-PMP port mapping. A node that listens on
// loopback only uses none of it. The zero value is the default.
type Reach struct {
	// Reachability: "" or ReachAuto (AutoNAT decides), ReachPublic or
	// ReachPrivate (the operator knows). It also sets the DHT mode: a
	// server when public, a client when private, AutoNAT's verdict when
	// auto.
	Reachability string
	// RelayService: "" or ReachAuto (on for a directory peer and for a
	// node with no bootstrap peers, which others bootstrap from), RelayOn
	// or RelayOff. The service only runs while the node is public.
	RelayService string
	// NoPortMap turns UPnP / NAT-PMP port mapping off.
	NoPortMap bool
	// Announce, when not empty, are the only addresses the node announces
	// (relay addresses are kept); NoAnnounce are never announced (an
	// entry ending in /ipcidr/N drops a whole subnet).
	Announce, NoAnnounce []string
	// SimulatedPublic are IPv4 subnets inside private ranges that the
	// node's process treats as public Internet addresses. It exists only
	// for tests that build an Internet out of network namespaces, which
	// may use private ranges only (see p2phost.TreatAsPublic); a deployed
	// node leaves it empty.
	SimulatedPublic []string
}

// validate reports r's problems through bad.
func (r Reach) validate(bad func(name, format string, args ...any)) {
	if !slices.Contains([]string{"", ReachAuto, ReachPublic, ReachPrivate}, r.Reachability) {
		bad("reachability", "%q: want auto, public or private", r.Reachability)
	}
	if !slices.Contains([]string{"", ReachAuto, RelayOn, RelayOff}, r.RelayService) {
		bad("relay_service", "%q: want auto, on or off", r.RelayService)
	}
	for name, list := range map[string][]string{"announce": r.Announce, "no_announce": r.NoAnnounce} {
		if _, err := parseAddrs(list); err != nil {
			bad(name, "%v", err)
		}
	}
	if _, err := parseSubnets(r.SimulatedPublic); err != nil {
		bad("simulated_public", "%v", err)
	}
}

// HostOptions returns the p2phost options of r for a node that listens on
// listen and bootstraps from boot, a directory peer or not (the
// configuration is valid).
func (r Reach) HostOptions(listen []string, boot []peer.AddrInfo, directory bool) ([]p2phost.Option, error) {
	if localOnly(listen) {
		return nil, nil
	}
	subnets, err := parseSubnets(r.SimulatedPublic)
	if err != nil {
		return nil, fmt.Errorf("%w: simulated_public: %v", ErrInvalid, err)
	}
	if len(subnets) > 0 {
		if err := p2phost.TreatAsPublic(subnets...); err != nil {
			return nil, fmt.Errorf("%w: simulated_public: %v", ErrInvalid, err)
		}
	}
	announce, _ := parseAddrs(r.Announce)
	noAnnounce, _ := parseAddrs(r.NoAnnounce)
	reach := p2phost.Reachability{
		PortMap:      !r.NoPortMap,
		RelayService: r.RelayService == RelayOn || (r.RelayService != RelayOff && (directory || len(boot) == 0)),
		Relays:       boot,
	}
	switch r.Reachability {
	case ReachPublic:
		reach.Force = network.ReachabilityPublic
	case ReachPrivate:
		reach.Force = network.ReachabilityPrivate
	}
	return []p2phost.Option{p2phost.WithReachability(reach), p2phost.WithAddrFilter(announce, noAnnounce)}, nil
}

// DHTMode returns the DHT mode of a node that listens on listen: a server
// on a single-machine network and when known public, a client when known
// private, AutoNAT's verdict otherwise.
func (r Reach) DHTMode(listen []string) dht.ModeOpt {
	switch {
	case localOnly(listen) || r.Reachability == ReachPublic:
		return dht.ModeServer
	case r.Reachability == ReachPrivate:
		return dht.ModeClient
	}
	return dht.ModeAuto
}

// localOnly reports whether every listen address is a loopback one.
func localOnly(listen []string) bool {
	for _, s := range listen {
		m, err := ma.NewMultiaddr(s)
		if err != nil || !manet.IsIPLoopback(m) {
			return false
		}
	}
	return len(listen) > 0
}

func parseAddrs(list []string) ([]ma.Multiaddr, error) {
	out := make([]ma.Multiaddr, 0, len(list))
	for _, s := range list {
		m, err := ma.NewMultiaddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a multiaddr: %v", s, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func parseSubnets(list []string) ([]*net.IPNet, error) {
	out := make([]*net.IPNet, 0, len(list))
	for _, s := range list {
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a subnet: %v", s, err)
		}
		out = append(out, n)
	}
	return out, nil
}
