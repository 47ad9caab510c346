package a2aserver

import (
	"encoding/json"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node/a2awire"
)

// EndpointProtocol is the ADP endpoint protocol of the JSON-RPC binding:
// bridge.ToA2A writes it as protocolBinding "JSONRPC".
const EndpointProtocol = "jsonrpc"

// WithJSONRPC returns a copy of c to export with bridge.ToA2A when a
// Server answers at url: its endpoints begin with the JSON-RPC binding at
// url, for A2A 1.0 and then 0.3 (so a client of either finds its
// interface), followed by c's own endpoints (or, when c has none, its
// agent:// id over AITP, which ToA2A writes for a card without
// endpoints), and its A2A capabilities say streaming, which the Server
// offers for every tool. Every place that serves the A2A card of an
// agent behind a Server exports this copy, with the Server's URL there.
func WithJSONRPC(c *adp.Card, url string) *adp.Card {
	c = c.Clone()
	v03, _ := json.Marshal(a2awire.Version03)
	eps := []adp.Endpoint{
		{Protocol: EndpointProtocol, URI: url},
		{Protocol: EndpointProtocol, URI: url, Extra: map[string]json.RawMessage{"protocolVersion": v03}},
	}
	if len(c.Endpoints) == 0 && c.ID != "" {
		eps = append(eps, adp.Endpoint{Protocol: "aitp", URI: c.ID})
	}
	c.Endpoints = append(eps, c.Endpoints...)

	ext := map[string]json.RawMessage{}
	if raw := c.Extensions[bridge.NamespaceA2A]; len(raw) > 0 {
		_ = json.Unmarshal(raw, &ext)
	}
	caps := map[string]json.RawMessage{}
	if raw := ext["capabilities"]; len(raw) > 0 {
		_ = json.Unmarshal(raw, &caps)
	}
	caps["streaming"] = json.RawMessage("true")
	ext["capabilities"], _ = json.Marshal(caps)
	raw, _ := json.Marshal(ext)
	ext2 := make(map[string]json.RawMessage, len(c.Extensions)+1)
	for k, v := range c.Extensions {
		ext2[k] = v
	}
	ext2[bridge.NamespaceA2A] = raw
	c.Extensions = ext2
	return c
}
