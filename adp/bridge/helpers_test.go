package bridge_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixedKey returns a deterministic Ed25519 key whose seed is 32 copies of b.
// The golden files depend on these bytes: never change them.
func fixedKey(tb testing.TB, b byte) crypto.PrivKey {
	tb.Helper()
	seed := bytes.Repeat([]byte{b}, ed25519.SeedSize)
	sk, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		tb.Fatal(err)
	}
	return sk
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// signedCard returns testdata/card.json with the id and did of fixedKey(0x42),
// signed with that key.
func signedCard(tb testing.TB) (*adp.Card, crypto.PrivKey) {
	tb.Helper()
	sk := fixedKey(tb, 0x42)
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		tb.Fatal(err)
	}
	did, err := adp.DIDKey(sk.GetPublic())
	if err != nil {
		tb.Fatal(err)
	}
	raw := string(readTestdata(tb, "card.json"))
	raw = strings.ReplaceAll(raw, `"ID"`, `"`+adp.AgentID(p)+`"`)
	raw = strings.ReplaceAll(raw, `"DID"`, `"`+did+`"`)
	c, err := adp.ParseCard([]byte(raw))
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		tb.Fatalf("testdata/card.json does not validate: %v", err)
	}
	if err := c.Sign(sk); err != nil {
		tb.Fatal(err)
	}
	return c, sk
}

// requireProblemPaths fails unless err is an *adp.ValidationError whose
// problems stand at want, in order; what names the failing call.
func requireProblemPaths(tb testing.TB, what string, err error, want []string) {
	tb.Helper()
	var ve *adp.ValidationError
	if !errors.As(err, &ve) {
		tb.Fatalf("%s: %v, want an *adp.ValidationError", what, err)
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.Path)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		tb.Fatalf("problems at %v, want %v:\n%v", got, want, err)
	}
}

// decodeJSON decodes a JSON document into generic values.
func decodeJSON(tb testing.TB, b []byte) any {
	tb.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// cardObject returns the card's JSON members as generic values.
func cardObject(tb testing.TB, c *adp.Card) map[string]any {
	tb.Helper()
	b, err := c.MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	return decodeJSON(tb, b).(map[string]any)
}

// requireSameJSON fails unless a and b are equal as JSON data.
func requireSameJSON(tb testing.TB, what string, got, want []byte) {
	tb.Helper()
	g, w := decodeJSON(tb, got), decodeJSON(tb, want)
	if !reflect.DeepEqual(g, w) {
		tb.Fatalf("%s differs\n got: %s\nwant: %s", what, indent(tb, got), indent(tb, want))
	}
}

func indent(tb testing.TB, b []byte) string {
	tb.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return string(b)
	}
	return buf.String()
}

// golden compares got with testdata/golden/name (as JSON data), or writes
// it there, indented, under -update.
func golden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(indent(tb, got)+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run the test with -update to create it)", err)
	}
	requireSameJSON(tb, "golden "+name, got, want)
}

// withoutCarrier removes from an exported document the member in which it
// keeps ADP fields for the way back, leaving what the format itself says.
func withoutCarrier(tb testing.TB, f string, docJSON []byte) []byte {
	tb.Helper()
	d := decodeJSON(tb, docJSON).(map[string]any)
	switch f {
	case "a2a":
		caps := d["capabilities"].(map[string]any)
		var keep []any
		for _, e := range caps["extensions"].([]any) {
			if e.(map[string]any)["uri"] != "urn:adp:card" {
				keep = append(keep, e)
			}
		}
		if keep == nil {
			delete(caps, "extensions")
		} else {
			caps["extensions"] = keep
		}
	case "agentcard":
		delete(d["metadata"].(map[string]any), "urn:adp:card")
	case "profile":
		delete(d, "urn:adp:card")
	case "oasf-record":
		ann := d["annotations"].(map[string]any)
		delete(ann, "urn:adp:card")
		if len(ann) == 0 {
			delete(d, "annotations")
		}
	case "oasf":
		meta := d["metadata"].(map[string]any)
		ann := meta["annotations"].(map[string]any)
		delete(ann, "urn:adp:card")
		if len(ann) == 0 {
			delete(meta, "annotations")
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
