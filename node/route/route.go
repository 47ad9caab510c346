package route

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/adpnode/adpnode/adp"
)

// Endpoint protocols the node uses (ADP Section 3.5, Table 4, and the
// ones adpnode and the A2A import write). Append only.
const (
	// ProtocolAITP is AITP over libp2p, addressed by the agent id.
	ProtocolAITP = "aitp"
	// ProtocolLibp2p carries a full multiaddr of the agent's node.
	ProtocolLibp2p = "libp2p"
	// ProtocolA2A is an A2A JSON-RPC endpoint.
	ProtocolA2A = "a2a"
	// ProtocolJSONRPC is an A2A card's JSON-RPC interface, imported.
	ProtocolJSONRPC = "jsonrpc"
	// ProtocolHTTPJSON is ADP's HTTP+JSON endpoint, what an A2A card's
	// HTTP+JSON interface becomes on import; the node calls it with the
	// A2A HTTP+JSON (REST) binding.
	ProtocolHTTPJSON = "http+json"
)

// VersionMember is the endpoint member naming the A2A protocol version
// (kept from an A2A card's interface).
const VersionMember = "protocolVersion"

// Transport is how a target is called.
type Transport int

// Transports, in the order that breaks a priority tie.
const (
	AITP Transport = iota
	A2A
)

func (t Transport) String() string {
	if t == AITP {
		return "aitp"
	}
	return "a2a"
}

// Target is one way to call an agent.
type Target struct {
	Transport Transport
	// URL is an A2A endpoint's URL; empty for AITP.
	URL string
	// Version is an A2A endpoint's protocolVersion ("" when unsaid).
	Version string
	// REST is set for an A2A endpoint of the HTTP+JSON binding (protocol
	// http+json); the others are JSON-RPC.
	REST bool
	// Priority is the endpoint's priority (ADP default 0).
	Priority int
}

// Order returns the targets for calling method on the agent of card c,
// best first (see the package doc). It never returns an empty list.
func Order(c *adp.Card, method string) []Target {
	var eps []adp.Endpoint
	if c != nil {
		eps = c.Endpoints
	}
	all := targets(eps, "")
	if len(all) == 0 {
		return []Target{{Transport: AITP}}
	}
	if some := targets(eps, method); len(some) > 0 {
		all = some
	}
	slices.SortStableFunc(all, func(a, b Target) int {
		if a.Priority != b.Priority {
			return a.Priority - b.Priority
		}
		return int(a.Transport) - int(b.Transport)
	})
	return all
}

// targets returns the usable endpoints in card order, the AITP ones as
// one target; with method set, only those whose methods name it (or that
// list none).
func targets(eps []adp.Endpoint, method string) []Target {
	var out []Target
	aitp := -1
	for _, e := range eps {
		if method != "" && len(e.Methods) > 0 && !slices.Contains(e.Methods, method) {
			continue
		}
		prio := 0
		if e.Priority != nil {
			prio = *e.Priority
		}
		switch strings.ToLower(e.Protocol) {
		case ProtocolAITP, ProtocolLibp2p:
			if aitp < 0 {
				aitp = len(out)
				out = append(out, Target{Transport: AITP, Priority: prio})
			} else if prio < out[aitp].Priority {
				out[aitp].Priority = prio
			}
		case ProtocolA2A, ProtocolJSONRPC, ProtocolHTTPJSON:
			if !isHTTP(e.URI) || slices.ContainsFunc(out, func(t Target) bool { return t.URL == e.URI }) {
				continue
			}
			rest := strings.EqualFold(e.Protocol, ProtocolHTTPJSON)
			out = append(out, Target{Transport: A2A, URL: e.URI, Version: version(e), REST: rest, Priority: prio})
		}
	}
	return out
}

func isHTTP(uri string) bool {
	u := strings.ToLower(uri)
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

// version returns the endpoint's protocolVersion member, "" when absent
// or not a string.
func version(e adp.Endpoint) string {
	var s string
	if raw, ok := e.Extra[VersionMember]; !ok || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
