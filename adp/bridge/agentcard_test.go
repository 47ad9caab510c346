package bridge_test

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

// withMember returns the draft's complete example with the member at the
// dotted path set to v (nil deletes it).
func withMember(t *testing.T, path string, v any) []byte {
	t.Helper()
	d := decodeJSON(t, readTestdata(t, "agentcard.json")).(map[string]any)
	parts := strings.Split(path, ".")
	var cur any = d
	for _, p := range parts[:len(parts)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			var i int
			if err := json.Unmarshal([]byte(p), &i); err != nil {
				t.Fatal(err)
			}
			cur = c[i]
		}
	}
	last := parts[len(parts)-1]
	m := cur.(map[string]any)
	if v == nil {
		delete(m, last)
	} else {
		m[last] = v
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValidateAgentCard(t *testing.T) {
	if err := bridge.ValidateAgentCard(readTestdata(t, "agentcard.json")); err != nil {
		t.Fatalf("the draft's complete example: %v", err)
	}
	tests := []struct {
		name  string
		doc   []byte
		paths []string // every problem expected, in order
	}{
		{"rule 1: 25 characters", withMember(t, "agent_id", "01HZQK3P8EMXR9V7T5N2W4J6C"), []string{"/agent_id"}},
		{"rule 1: letter I", withMember(t, "agent_id", "01HZQK3P8EMXR9V7T5N2W4J6CI"), []string{"/agent_id"}},
		{"rule 1: lower case", withMember(t, "agent_id", "01hzqk3p8emxr9v7t5n2w4j6c0"), []string{"/agent_id"}},
		{"rule 1: missing", withMember(t, "agent_id", nil), []string{"/agent_id"}},
		{"name: empty", withMember(t, "name", ""), []string{"/name"}},
		{"name: 129 code points", withMember(t, "name", strings.Repeat("é", 129)), []string{"/name"}},
		{"name: 128 code points", withMember(t, "name", strings.Repeat("é", 128)), nil},
		{"rule 2: not semver", withMember(t, "version", "1.2"), []string{"/version"}},
		{"rule 2: leading zero", withMember(t, "version", "01.2.0"), []string{"/version"}},
		{"rule 2: prerelease and build", withMember(t, "version", "1.2.0-rc.1+build.5"), nil},
		{"rule 3: empty capabilities", withMember(t, "capabilities", []any{}), []string{"/capabilities"}},
		{"rule 3: no capabilities", withMember(t, "capabilities", nil), []string{"/capabilities"}},
		{"rule 4: upper case id", withMember(t, "capabilities.1.id", "Tool.web_search"), []string{"/capabilities/1/id"}},
		{"rule 4: leading dot", withMember(t, "capabilities.0.id", ".text"), []string{"/capabilities/0/id"}},
		{"rule 5: protocol", withMember(t, "endpoint.protocol", "aitp"), []string{"/endpoint/protocol"}},
		{"rule 5: no endpoint", withMember(t, "endpoint", nil), []string{"/endpoint"}},
		{"rule 6: relative url", withMember(t, "endpoint.url", "/api/x"), []string{"/endpoint/url"}},
		{"rule 6: scheme differs from protocol", withMember(t, "endpoint.url", "http://agents.example.com/x"), []string{"/endpoint/url"}},
		{"auth scheme", withMember(t, "endpoint.auth.scheme", "basic"), []string{"/endpoint/auth/scheme"}},
		{"rule 7: zero cost", withMember(t, "pricing.base_cost_joules", 0), nil},
		{"rule 7: at the floor", withMember(t, "pricing.base_cost_joules", 2.854e-21), nil},
		{"rule 7: below the floor", withMember(t, "pricing.base_cost_joules", 2.853e-21), []string{"/pricing/base_cost_joules"}},
		{"rule 7: negative", withMember(t, "pricing.base_cost_joules", -1.0), []string{"/pricing/base_cost_joules"}},
		{"rule 7: a string", withMember(t, "pricing.base_cost_joules", "1e-3"), []string{"/pricing/base_cost_joules"}},
		{"rule 8: negative per token", withMember(t, "pricing.per_token_joules", -1e-30), []string{"/pricing/per_token_joules"}},
		{"rule 9: trust tier", withMember(t, "metadata.pacr:trust_tier", "gold"), []string{"/metadata/pacr:trust_tier"}},
		{"rule 10: unknown members ignored", withMember(t, "capabilities.0.x-anything", map[string]any{"deep": []any{1}}), nil},
		{"goal priority", withMember(t, "goal_subscriptions.0.priority", 1.5), []string{"/goal_subscriptions/0/priority"}},
		{"goal id", withMember(t, "goal_subscriptions.0.goal_id", nil), []string{"/goal_subscriptions/0/goal_id"}},
		{"every problem at once", []byte(`{"agent_id":"x","version":"v1","capabilities":[{"id":"A"}],"endpoint":{"protocol":"ftp","url":"ftp://h"},"pricing":{"base_cost_joules":1e-30}}`),
			[]string{"/agent_id", "/capabilities/0/id", "/endpoint/protocol", "/name", "/pricing/base_cost_joules", "/version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := bridge.ValidateAgentCard(tt.doc)
			if tt.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !errors.Is(err, adp.ErrInvalid) {
				t.Fatalf("error %v, want adp.ErrInvalid", err)
			}
			requireProblemPaths(t, "ValidateAgentCard", err, tt.paths)
			// An import refuses the same document with the same report.
			var ve *adp.ValidationError
			if _, err := bridge.FromAgentCard(tt.doc); !errors.As(err, &ve) {
				t.Fatalf("FromAgentCard accepted an invalid document: %v", err)
			}
		})
	}
}

// TestAgentCardEmbeddedString: the draft requires readers to accept an
// AgentCard serialized as a JSON string.
func TestAgentCardEmbeddedString(t *testing.T) {
	obj := readTestdata(t, "agentcard.json")
	str, err := json.Marshal(string(obj))
	if err != nil {
		t.Fatal(err)
	}
	a, err := bridge.FromAgentCard(obj)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.FromAgentCard(str)
	if err != nil {
		t.Fatalf("embedded-string form: %v", err)
	}
	ja, _ := a.MarshalJSON()
	jb, _ := b.MarshalJSON()
	requireSameJSON(t, "string form import", jb, ja)
}

// TestToAgentCardErrors: an export that would break the draft's rules is an
// error whose paths point into the AgentCard.
func TestToAgentCardErrors(t *testing.T) {
	c, _ := signedCard(t)
	tests := []struct {
		name  string
		edit  func(c *adp.Card)
		paths []string
	}{
		{"no id", func(c *adp.Card) { c.ID = "" }, []string{"/agent_id"}},
		{"no usable endpoint", func(c *adp.Card) { c.Endpoints = c.Endpoints[1:] }, []string{"/endpoint"}},
		{"revocation", func(c *adp.Card) { c.Tools, c.Endpoints = []adp.Tool{}, []adp.Endpoint{} }, []string{"/capabilities", "/endpoint"}},
		{"version not semver", func(c *adp.Card) { c.Version = "v2" }, []string{"/version"}},
		{"tool name outside the id pattern", func(c *adp.Card) { c.Tools[1].Name = "Detect Language" }, []string{"/capabilities/1/id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := c.Clone()
			tt.edit(cc)
			_, err := bridge.ToAgentCard(cc)
			requireProblemPaths(t, "ToAgentCard", err, tt.paths)
		})
	}
}

// TestAgentCardEndpointChoice: the endpoint is the first usable one in
// priority order; http+json takes the scheme of its uri and mutual_tls
// becomes mtls.
func TestAgentCardEndpointChoice(t *testing.T) {
	c, _ := signedCard(t)
	cc := c.Clone()
	low := -1
	cc.Endpoints = append(cc.Endpoints, adp.Endpoint{Protocol: "grpc", URI: "grpc://rpc.example.com:443", Auth: "mutual_tls", Priority: &low})
	out, err := bridge.ToAgentCard(cc)
	if err != nil {
		t.Fatal(err)
	}
	d := decodeJSON(t, out).(map[string]any)
	got, _ := json.Marshal(d["endpoint"])
	requireSameJSON(t, "endpoint", got, []byte(`{"protocol":"grpc","url":"grpc://rpc.example.com:443","auth":{"scheme":"mtls"}}`))
	back, err := bridge.FromAgentCard(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Endpoints) != 3 || back.Endpoints[2].Auth != "mutual_tls" {
		t.Fatalf("endpoints after the round trip: %+v", back.Endpoints)
	}
}

// TestAgentCardULID: the derived agent_id is deterministic, the same for
// both forms of the id, different per key, and a valid ULID.
func TestAgentCardULID(t *testing.T) {
	sk := fixedKey(t, 0x42)
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	base36 := adp.AgentID(p)
	base58 := "agent://" + p.String()
	a, err := bridge.AgentCardULID(base36)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.AgentCardULID(base58)
	if err != nil {
		t.Fatal(err)
	}
	// Pinned: changing the derivation changes every exported agent_id.
	const want = "000000000049V2Q9QK8B2QG0P3"
	if a != want || b != want {
		t.Fatalf("AgentCardULID = %q (base36), %q (base58), want %q", a, b, want)
	}
	// The same value computed independently: the 80 hash bits as a number
	// written in Crockford Base32, after ten zero characters of timestamp.
	sum := sha256.Sum256(append([]byte("adpnode/agentcard-ulid/v1\x00"), []byte(p)...))
	n := new(big.Int).SetBytes(sum[:10])
	digits := n.Text(32) // 0-9a-v
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var enc strings.Builder
	for _, d := range strings.Repeat("0", 16-len(digits)) + digits {
		i := strings.IndexRune("0123456789abcdefghijklmnopqrstuv", d)
		enc.WriteByte(crockford[i])
	}
	if independent := "0000000000" + enc.String(); independent != want {
		t.Fatalf("independent computation gives %q, want %q", independent, want)
	}
	p2, _ := peer.IDFromPrivateKey(fixedKey(t, 0x43))
	if other, _ := bridge.AgentCardULID(adp.AgentID(p2)); other == a {
		t.Fatalf("two keys derive the same ULID %q", a)
	}
	doc := withMember(t, "agent_id", a)
	if err := bridge.ValidateAgentCard(doc); err != nil {
		t.Fatalf("derived ULID rejected: %v", err)
	}
	if _, err := bridge.AgentCardULID("agent://translator-zh-en"); !errors.Is(err, adp.ErrBadID) {
		t.Fatalf("AgentCardULID of a non-key id: %v, want ErrBadID", err)
	}
}
