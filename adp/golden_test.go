package adp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/adpnode/adpnode/adp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenCards are signed with fixed keys (seed = 32 copies of one byte).
// Ed25519 signatures are deterministic, so the files must never change: a
// difference means the encoding, canonicalization or signing changed, which
// would split the network.
func goldenCards(t *testing.T) map[string]struct {
	seed byte
	card *adp.Card
} {
	seq := func(n uint64) *uint64 { return &n }
	full, err := adp.ParseCard(fullCardFor(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]struct {
		seed byte
		card *adp.Card
	}{
		"minimal": {1, &adp.Card{Name: "minimal", Seq: seq(1)}},
		"full":    {1, full},
		"revocation": {2, &adp.Card{
			Name: "retired", Tools: []adp.Tool{}, Endpoints: []adp.Endpoint{}, Seq: seq(42),
			Metadata: &adp.Metadata{UpdatedAt: "2026-03-24T12:00:00Z"},
		}},
		// Text fields refuse U+2028 and controls (internal/termtext), so
		// their canonical forms are covered by an extension's string.
		"unicode": {3, &adp.Card{
			Name:        "翻訳エージェント",
			Description: "tab\t quote\" backslash\\ emoji 😀 new\nline <&>",
			Skills:      []string{"nlp/translation", "翻訳"},
			Tools:       []adp.Tool{{Name: "translate", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","maximum":1E3}}}`)}},
			Endpoints:   []adp.Endpoint{{Protocol: "aitp", URI: "agent://self"}},
			Extensions:  map[string]json.RawMessage{"example.numbers": json.RawMessage(`{"n":[1e3,0.1,-0,1.5e-7,9007199254740991,333333333.33333329],"€":"euro","\r":"cr","s":"line\u2028sep \u0001"}`)},
			Extra:       map[string]json.RawMessage{"x-escaped": json.RawMessage(`"\u00e9\/\ud83d\ude00"`)},
			Seq:         seq(9007199254740991),
		}},
	}
}

func TestGoldenVectors(t *testing.T) {
	for name, tc := range goldenCards(t) {
		t.Run(name, func(t *testing.T) {
			if err := tc.card.Sign(fixedKey(t, tc.seed)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.WriteFile(path, tc.card.Raw(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := readTestdata(t, filepath.Join("golden", name+".json"))
			if !bytes.Equal(tc.card.Raw(), want) {
				t.Fatalf("signed card differs from %s:\n got %s\nwant %s", path, tc.card.Raw(), want)
			}
			c, err := adp.DecodeVerified(want)
			if err != nil {
				t.Fatalf("golden card does not verify: %v", err)
			}
			if c.ID != adp.AgentID(mustPeer(t, tc.seed)) {
				t.Fatalf("id %s", c.ID)
			}
			// Every single-character change of the signed content breaks
			// the signature (or the parse); sample every 7th position.
			for i := 0; i < len(want); i += 7 {
				if bytes.HasPrefix(want[i:], []byte(`"signature"`)) {
					break
				}
				mut := bytes.Clone(want)
				mut[i] ^= 0x01
				if _, err := adp.DecodeVerified(mut); err == nil {
					t.Fatalf("flip at %d (%q) still verifies", i, want[i])
				}
			}
		})
	}
}
