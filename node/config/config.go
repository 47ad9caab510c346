package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp/didwba"
	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/mcpagent"
	"github.com/adpnode/adpnode/node/peering"
	"github.com/adpnode/adpnode/node/publichttp"
)

// Defaults applied by Default and, for zero values, by WithDefaults.
const (
	// DefaultAPIAddr is where `adpnode run` serves its HTTP API unless told otherwise.
	DefaultAPIAddr = "127.0.0.1:5001"
	// DefaultGossipInterval is the re-broadcast interval of the node's own card.
	DefaultGossipInterval = 5 * time.Minute
	// DefaultRepublishInterval is the DHT re-put interval of the node's own card.
	DefaultRepublishInterval = time.Hour
	// DefaultCardTTL is the freshness of a card that carries no metadata.ttl.
	DefaultCardTTL = time.Hour
	// DefaultConnLow and DefaultConnHigh are the connection manager's water marks.
	DefaultConnLow  = 160
	DefaultConnHigh = 320
	// DefaultMaxCards bounds the cards a plain node holds (MaxCards 0):
	// its own network's agents and what discovery brought in, about 40 MB
	// of cards, index and Badger tables at the 2 KiB a typical card takes.
	DefaultMaxCards = 20_000
	// DefaultDirectoryMaxCards bounds the cards a directory peer holds
	// (MaxCards 0): a few hundred MB, on a machine run for the purpose.
	DefaultDirectoryMaxCards = 200_000
)

// The values of Config.PublicA2A.
const (
	PublicA2AOpen   = "open"
	PublicA2ADIDWba = "didwba"
)

// DefaultListen are the listen addresses used when Config.Listen is empty:
// loopback only, TCP and QUIC, ports picked by the system. A node that
// listens on loopback only is part of a single-machine network (tests,
// testnets) and turns none of the reachability machinery on.
var DefaultListen = []string{"/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1"}

// DefaultRunListen are the listen addresses of `adpnode run`
// (Default): every interface, IPv4 and IPv6, TCP and QUIC, ports
// picked by the system. The HTTP API stays on loopback.
var DefaultRunListen = []string{
	"/ip4/0.0.0.0/tcp/0", "/ip4/0.0.0.0/udp/0/quic-v1",
	"/ip6/::/tcp/0", "/ip6/::/udp/0/quic-v1",
}

// Config configures a Node. The zero value of every field but DataDir has a
// usable default; APIAddr "" disables the HTTP API (Default sets it to
// DefaultAPIAddr, which is what the command line uses).
type Config struct {
	// DataDir holds identity.key, card.json, store/ and api. Required.
	DataDir string
	// Listen are libp2p multiaddrs; default DefaultListen.
	Listen []string
	// APIAddr is host:port for the HTTP API; the host must be a loopback
	// address. "127.0.0.1:0" picks a free port; "" disables the API.
	APIAddr string
	// PublicHTTP is host:port of the public read-only HTTP server (package
	// node/publichttp: the well-known documents and a read-only web view,
	// for clients on other machines); any interface. "" = off.
	PublicHTTP string
	// PublicURL is the base URL clients reach the public server at (behind
	// a proxy, say), which its documents link to; "" = http:// and the
	// Host each request names.
	PublicURL string
	// PublicTrustedProxies are the reverse proxies in front of the public
	// server, as CIDR prefixes or single addresses: a request from one is
	// charged, by the per-source bounds, to the client its
	// X-Forwarded-For names (publichttp.WithTrustedProxies). Empty: the
	// header is never read.
	PublicTrustedProxies []string
	// PublicA2A opens the A2A server (package node/a2aserver) on the
	// public server at POST /a2a: "" keeps the public server read-only,
	// PublicA2AOpen lets anyone call the agent's tools through it (rate
	// limited per source like every public request), PublicA2ADIDWba
	// requires DIDWba authentication (ANP) or the access token it issued,
	// and needs DIDWbaDomain.
	PublicA2A string
	// Bootstrap are multiaddrs ending in /p2p/<peer id>.
	Bootstrap []string
	// Directory makes the node a directory peer: it keeps every card it
	// hears and serves discovery for the network.
	Directory bool
	// AgentURL forwards tool calls to this HTTP agent; "" = none.
	AgentURL string
	// AgentMCPCommand runs this command line (split by
	// mcpagent.SplitCommand) as an MCP server over stdio, restarted when it
	// exits; its tools are the card's tools and calls to them are
	// forwarded as tools/call. "" = none.
	AgentMCPCommand string
	// AgentMCPURL connects to this Streamable HTTP MCP server, as
	// AgentMCPCommand does to a command. "" = none.
	AgentMCPURL string
	// A2AAllowPrivate lets the node call the URLs that peers' cards name on
	// loopback and private addresses: A2A endpoints that invoke calls, and
	// the domains of did:wba DIDs whose documents the domain checks and
	// DIDWba authentication fetch. By default only public addresses are
	// called, so that a card from the network cannot make the node call
	// into its own machine or network. Link-local and cloud metadata
	// addresses are refused either way (package internal/netguard).
	A2AAllowPrivate bool
	// DemoAgent serves the built-in demo tools in-process (and puts them on
	// the card); other tools still go to AgentURL when set.
	DemoAgent bool
	// GossipInterval is the re-broadcast interval of the own card (default 5m).
	GossipInterval time.Duration
	// RepublishInterval is the DHT re-put interval of the own card (default 1h).
	RepublishInterval time.Duration
	// CardTTL is the freshness of cards without metadata.ttl (default 1h).
	CardTTL time.Duration
	// MaxCards bounds the cards held (store.WithMaxCards: past it, a new
	// agent takes the place of a stale card or is refused, and new agents
	// from one /24 or /48 share a tenth of it). 0: DefaultMaxCards, or
	// DefaultDirectoryMaxCards for a directory peer.
	MaxCards int
	// ConnLow and ConnHigh are the connection manager's water marks.
	ConnLow, ConnHigh int
	// SmallMemory shrinks the store's tables and caches (tests and large
	// testnets).
	SmallMemory bool
	// Logger receives the node's logs; default discards.
	Logger *slog.Logger
	// Reachability is what lets the node be reached from beyond its own
	// network (see Reach); it applies unless the node listens on loopback
	// only.
	Reach Reach
	// MDNS finds nodes on the local network by mDNS, with no bootstrap.
	MDNS bool
	// ReconnectBackoff paces the redials of a lost bootstrap or known peer
	// (package node/peering); the zero value is peering.DefaultBackoff.
	ReconnectBackoff peering.Backoff
	// ChargeLoopback exists for tests only: it charges peers on loopback
	// addresses to their source network (127.0.N.0/24) in the rate limits
	// and the store's network quota, as it charges any other address,
	// where a node normally charges them to their peer only (the nodes of
	// a local testnet share 127.0.0.1).
	ChargeLoopback bool
	// ConnectionGater exists for tests only: it decides which connections
	// the host may make or accept (the partition tests split a network
	// with one). Nil admits every connection.
	ConnectionGater connmgr.ConnectionGater
	// Tags is the skill tag taxonomy, the one the DHT announces and finds
	// provider keys under and the discovery index ranks with; default
	// tag.Default(). Every node of a network must use the same one.
	Tags *tag.Taxonomy
	// TestnetPeers is the path of a testnet's peers file (package
	// node/netview): the local API addresses of every node of the
	// testnet, loopback only, written by package testnet. With it, GET
	// /v1/network reports the connections of every node and how long
	// each card took to reach each node; without it, the node's own
	// connections only. Read on each request; "" = none.
	TestnetPeers string
	// Clock is the time source of liveness and ranking (default
	// time.Now); tests move it by hand.
	Clock func() time.Time
	// DIDWbaDomain gives the agent the did:wba DID of this domain
	// ("example.com[:port][/path]", see didwba.FromDomain): the node
	// serves its DID document, puts the DID in the card's did field and
	// authenticates as it to ANP services. "" = none (the card's did is
	// the key's did:key).
	DIDWbaDomain string
	// GossipOptions are appended to the node's own gossip.New options
	// (tests pass gossip.PubSubOptions with a score inspector or a raw
	// tracer to watch the GossipSub router). Nil for a deployed node.
	GossipOptions []gossip.Option
}

// Default returns the configuration `adpnode run` starts from.
func Default() Config {
	return Config{
		Listen:            append([]string(nil), DefaultRunListen...),
		APIAddr:           DefaultAPIAddr,
		GossipInterval:    DefaultGossipInterval,
		RepublishInterval: DefaultRepublishInterval,
		CardTTL:           DefaultCardTTL,
		ConnLow:           DefaultConnLow,
		ConnHigh:          DefaultConnHigh,
	}
}

// WithDefaults returns c with its zero values filled.
func (c Config) WithDefaults() Config {
	if len(c.Listen) == 0 {
		c.Listen = append([]string(nil), DefaultListen...)
	}
	if c.GossipInterval == 0 {
		c.GossipInterval = DefaultGossipInterval
	}
	if c.RepublishInterval == 0 {
		c.RepublishInterval = DefaultRepublishInterval
	}
	if c.CardTTL == 0 {
		c.CardTTL = DefaultCardTTL
	}
	if c.MaxCards == 0 {
		c.MaxCards = DefaultMaxCards
		if c.Directory {
			c.MaxCards = DefaultDirectoryMaxCards
		}
	}
	if c.ConnLow == 0 {
		c.ConnLow = DefaultConnLow
	}
	if c.ConnHigh == 0 {
		c.ConnHigh = DefaultConnHigh
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Tags == nil {
		c.Tags = tag.Default()
	}
	return c
}

// Validate reports every problem in c, each prefixed with the option name.
func (c Config) Validate() error {
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrInvalid, name, fmt.Sprintf(format, args...)))
	}
	if c.DataDir == "" {
		bad("data_dir", "required")
	}
	for i, s := range c.Listen {
		if _, err := ma.NewMultiaddr(s); err != nil {
			bad(fmt.Sprintf("listen[%d]", i), "%q is not a multiaddr: %v", s, err)
		}
	}
	if c.APIAddr != "" {
		if err := checkLoopbackHostPort(c.APIAddr); err != nil {
			bad("api", "%v", err)
		}
	}
	c.validatePublic(bad)
	for i, s := range c.Bootstrap {
		if _, err := ParseBootstrap(s); err != nil {
			bad(fmt.Sprintf("bootstrap[%d]", i), "%v", err)
		}
	}
	c.validateAgent(bad)
	c.Reach.validate(bad)
	if c.DIDWbaDomain != "" {
		if _, err := didwba.FromDomain(c.DIDWbaDomain); err != nil {
			bad("did_wba_domain", "%v", err)
		}
	}
	if c.GossipInterval < 0 {
		bad("gossip_interval", "must not be negative")
	}
	if c.ReconnectBackoff != (peering.Backoff{}) && (c.ReconnectBackoff.Base <= 0 || c.ReconnectBackoff.Max < c.ReconnectBackoff.Base) {
		bad("reconnect_backoff", "base must be positive and max at least base")
	}
	if c.RepublishInterval < 0 {
		bad("republish_interval", "must not be negative")
	}
	if c.CardTTL < 0 {
		bad("card_ttl", "must not be negative")
	}
	if c.MaxCards < 0 {
		bad("max_cards", "must not be negative")
	}
	if c.ConnLow < 0 || c.ConnHigh < 0 || (c.ConnHigh != 0 && c.ConnLow > c.ConnHigh) {
		bad("conn_low", "need 0 <= conn_low <= conn_high (got %d, %d)", c.ConnLow, c.ConnHigh)
	}
	return errors.Join(errs...)
}

// validateAgent checks the agent options: one agent at most, and each
// well formed.
func (c Config) validateAgent(bad func(name, format string, args ...any)) {
	n := 0
	for _, s := range []string{c.AgentURL, c.AgentMCPCommand, c.AgentMCPURL} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		bad("agent_url", "set at most one of agent_url, agent_mcp_command and agent_mcp_url")
	}
	for _, u := range []struct{ name, raw string }{{"agent_url", c.AgentURL}, {"agent_mcp_url", c.AgentMCPURL}} {
		if u.raw == "" {
			continue
		}
		p, err := url.Parse(u.raw)
		switch {
		case err != nil:
			bad(u.name, "%v", err)
		case p.Scheme != "http" && p.Scheme != "https":
			bad(u.name, "%q: scheme must be http or https", u.raw)
		case p.Host == "":
			bad(u.name, "%q: host missing", u.raw)
		}
	}
	if c.AgentMCPCommand != "" {
		if _, err := mcpagent.SplitCommand(c.AgentMCPCommand); err != nil {
			bad("agent_mcp_command", "%v", err)
		}
	}
}

// validatePublic checks the public server's address and URL.
func (c Config) validatePublic(bad func(name, format string, args ...any)) {
	if c.PublicHTTP != "" {
		if _, err := splitHostPort(c.PublicHTTP); err != nil {
			bad("public_http", "%v", err)
		}
	}
	switch {
	case c.PublicA2A == "":
	case c.PublicHTTP == "":
		bad("public_a2a", "needs public_http")
	case c.PublicA2A != PublicA2AOpen && c.PublicA2A != PublicA2ADIDWba:
		bad("public_a2a", "must be %q or %q, not %q", PublicA2AOpen, PublicA2ADIDWba, c.PublicA2A)
	case c.PublicA2A == PublicA2ADIDWba && c.DIDWbaDomain == "":
		bad("public_a2a", "%q needs did_wba_domain", PublicA2ADIDWba)
	}
	if len(c.PublicTrustedProxies) > 0 && c.PublicHTTP == "" {
		bad("public_trusted_proxies", "needs public_http")
	}
	if _, err := ParsePrefixes(c.PublicTrustedProxies); err != nil {
		bad("public_trusted_proxies", "%v", err)
	}
	switch {
	case c.PublicURL == "":
	case c.PublicHTTP == "":
		bad("public_url", "needs public_http")
	default:
		if err := publichttp.CheckURL(c.PublicURL); err != nil {
			bad("public_url", "%v", err)
		}
	}
}

// splitHostPort splits host:port and checks the port; it returns the host.
func splitHostPort(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q: %v", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%q: bad port", addr)
	}
	return host, nil
}

// checkLoopbackHostPort accepts host:port where host is a loopback IP or
// "localhost"; the API never listens beyond the machine.
func checkLoopbackHostPort(addr string) error {
	host, err := splitHostPort(addr)
	if err != nil {
		return err
	}
	if !httpapi.IsLoopbackName(host) {
		return fmt.Errorf("%q: host must be a loopback address", addr)
	}
	return nil
}

// ParseBootstrap parses a bootstrap address, a multiaddr ending in
// /p2p/<peer id>.
func ParseBootstrap(s string) (*peer.AddrInfo, error) {
	m, err := ma.NewMultiaddr(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a multiaddr: %v", s, err)
	}
	ai, err := peer.AddrInfoFromP2pAddr(m)
	if err != nil {
		return nil, fmt.Errorf("%q must end in /p2p/<peer id>: %v", s, err)
	}
	return ai, nil
}

// ParsePrefixes parses CIDR prefixes ("10.0.0.0/8", "2001:db8::/32") or
// single addresses (one address's prefix), masked; an IPv4-mapped IPv6
// prefix becomes the IPv4 one (peers are judged as IPv4). A zone, or a
// prefix of length 0 (every address), is refused.
func ParsePrefixes(ss []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range ss {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is neither a CIDR prefix nor an IP address without a zone", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() {
			if p.Bits() < 96 {
				return nil, fmt.Errorf("%q: an IPv4-mapped prefix needs at least 96 bits", s)
			}
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		if p.Bits() == 0 {
			return nil, fmt.Errorf("%q would take every address for a proxy", s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
