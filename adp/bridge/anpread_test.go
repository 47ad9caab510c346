package bridge_test

import (
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

func TestFromANPRoundTrip(t *testing.T) {
	c, _ := signedCard(t)
	d, err := bridge.ANPDescription(c, "https://dir.example.net")
	if err != nil {
		t.Fatal(err)
	}
	got, err := bridge.FromANP(d)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != c.ID || got.Name != c.Name || got.Description != c.Description || len(got.Tools) != len(c.Tools) || len(got.Endpoints) != len(c.Endpoints) {
		t.Errorf("FromANP(ANPDescription(c)) = %+v, want the fields of %+v", got, c)
	}
	if got.Raw() != nil && string(got.Raw()) == string(c.Raw()) {
		t.Error("the card read from an ANP description carries the signed bytes")
	}
}

func TestFromANPPlainDescription(t *testing.T) {
	doc := []byte(`{
	  "@context": {"@vocab": "https://schema.org/", "ad": "https://agent-network-protocol.com/ad#"},
	  "@type": "ad:AgentDescription",
	  "name": "Hotel Finder",
	  "description": "Finds hotel rooms.",
	  "did": "did:wba:hotels.example.com",
	  "interfaces": [
	    {"@type": "ad:NaturalLanguageInterface", "protocol": "YAML", "url": "https://hotels.example.com/api/nl.yaml"},
	    {"@type": "ad:StructuredInterface", "url": "https://hotels.example.com/api/rpc"},
	    {"@type": "ad:StructuredInterface"}
	  ]
	}`)
	c, err := bridge.FromANP(doc)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Hotel Finder" || c.DID != "did:wba:hotels.example.com" || c.ID != "" || len(c.Endpoints) != 2 ||
		c.Endpoints[0].Protocol != "yaml" || c.Endpoints[1].Protocol != "http" || c.Endpoints[1].URI != "https://hotels.example.com/api/rpc" {
		t.Errorf("%+v", c)
	}
	for _, bad := range []string{`[]`, `{"@type":"ad:AgentDescription"}`, `{"@type":"Person","name":"x"}`, `{"name":"x","interfaces":[7]}`, `{"name":`} {
		if c, err := bridge.FromANP([]byte(bad)); err == nil {
			t.Errorf("%s: accepted as %+v", bad, c)
		}
	}
}

// FuzzFromANP: whatever FromANP accepts is a card with a name that
// encodes within adp.MaxCardSize, and reading the same bytes twice gives
// the same card.
func FuzzFromANP(f *testing.F) {
	c, _ := signedCard(f)
	d, err := bridge.ANPDescription(c, "https://dir.example.net")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(d)
	f.Add([]byte(`{"@type":"ad:AgentDescription","name":"x","did":"did:wba:a.example","interfaces":[{"url":"https://a.example/rpc","protocol":"JSON-RPC"}]}`))
	f.Add([]byte(`{"name":"x","ad:agentCard":{"tools":[{"name":"t"}],"skills":["a/b"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := bridge.FromANP(data)
		if err != nil {
			return
		}
		b, err := c.MarshalJSON()
		if err != nil || len(b) > adp.MaxCardSize || c.Name == "" {
			t.Fatalf("accepted %q as a card that does not encode (%d octets, %v) or has no name", data, len(b), err)
		}
		again, err := bridge.FromANP(data)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := again.MarshalJSON()
		requireSameJSON(t, "second read", b2, b)
	})
}
