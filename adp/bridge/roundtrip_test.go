package bridge_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

// TestExportGolden pins the document each bridge writes for the test card.
func TestExportGolden(t *testing.T) {
	c, _ := signedCard(t)
	for _, f := range bridge.Formats[1:] {
		t.Run(string(f), func(t *testing.T) {
			out, err := bridge.Encode(f, c)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "card."+string(f)+".json", out)
		})
	}
}

// TestRoundTripFromADP: ADP -> format -> ADP keeps the whole card, except
// the signature, for every format with an extension point; re-signing the
// result with the same key reproduces the original signature, which proves
// that the content is byte-for-byte the same under JCS.
func TestRoundTripFromADP(t *testing.T) {
	c, sk := signedCard(t)
	want := cardObject(t, c)
	delete(want, "signature")
	for _, f := range []bridge.Format{bridge.FormatA2A, bridge.FormatOASF, bridge.FormatAgentCard, bridge.FormatProfile, bridge.FormatOASFRecord} {
		t.Run(string(f), func(t *testing.T) {
			out, err := bridge.Encode(f, c)
			if err != nil {
				t.Fatal(err)
			}
			back, err := bridge.Decode(f, out)
			if err != nil {
				t.Fatal(err)
			}
			got := cardObject(t, back)
			if !reflect.DeepEqual(got, want) {
				b, _ := back.MarshalJSON()
				o, _ := c.MarshalJSON()
				requireSameJSON(t, "card after "+string(f)+" round trip", b, o)
			}
			// Lost by design: the signature (the document is new bytes).
			if err := back.Verify(); !errors.Is(err, adp.ErrUnsigned) {
				t.Fatalf("round-tripped card: Verify() = %v, want ErrUnsigned", err)
			}
			if err := back.Sign(sk); err != nil {
				t.Fatal(err)
			}
			if back.Signature != c.Signature {
				t.Fatalf("re-signed card has signature %s, original %s: content changed", back.Signature, c.Signature)
			}
		})
	}
}

// TestRoundTripMCP: an MCP tool list carries tools only. ADP -> MCP -> ADP
// keeps name, description, input_schema, output_schema and idempotent of
// each tool and loses everything else.
func TestRoundTripMCP(t *testing.T) {
	c, _ := signedCard(t)
	out, err := bridge.ToMCP(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := bridge.FromMCP(out)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := back.MarshalJSON()
	want := `{"tools": [
	  {"name": "translate", "description": "Translate text between languages",
	   "input_schema": {"type": "object", "properties": {"text": {"type": "string"}, "source_lang": {"type": "string", "default": "auto"}, "target_lang": {"type": "string"}}, "required": ["text", "target_lang"]},
	   "output_schema": {"type": "object", "properties": {"translated": {"type": "string"}, "confidence": {"type": "number"}}},
	   "idempotent": true},
	  {"name": "detect_language", "description": "Detect the language of a text",
	   "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
	]}`
	// Lost: id, did, name, description, version, status, skills, endpoints,
	// constraints, examples, metadata, extensions, seq, signature, and per
	// tool "streaming" and the unknown member "x-cost".
	requireSameJSON(t, "ADP -> MCP -> ADP", got, []byte(want))
}

// TestTargetOnlyLoss: what a reader that ignores the carrier gets. For each
// format the ADP members that survive on the format's own fields are listed;
// everything else is lost without the carrier.
func TestTargetOnlyLoss(t *testing.T) {
	c, _ := signedCard(t)
	orig := cardObject(t, c)
	tests := []struct {
		format bridge.Format
		kept   []string // top-level ADP members present after the trip
		same   []string // of those, the ones that come back unchanged
		check  func(t *testing.T, got *adp.Card)
	}{
		{
			// Kept on A2A 1.0 fields: name, description, version, skills as
			// every skill's tags, tools as skills (id, name, description),
			// endpoints as supportedInterfaces (url, protocolBinding),
			// examples tied to a tool as that skill's examples.
			// Lost: did, status, constraints, metadata, extensions, seq,
			// signature, endpoint methods/auth/priority/extras, tool schemas,
			// streaming, idempotence and extras, example ids, tags and the
			// example tied to no tool.
			format: bridge.FormatA2A,
			kept:   []string{"name", "description", "version", "skills", "tools", "endpoints", "examples"},
			same:   []string{"name", "description", "version", "skills"},
			check: func(t *testing.T, got *adp.Card) {
				if len(got.Tools) != 2 || got.Tools[0].Name != "translate" || got.Tools[0].InputSchema != nil || got.Tools[1].Streaming != nil {
					t.Errorf("tools = %+v, want names and descriptions only", got.Tools)
				}
				if len(got.Endpoints) != 2 || got.Endpoints[0].Protocol != "http+json" || got.Endpoints[0].Auth != "" || got.Endpoints[1].Protocol != "aitp" {
					t.Errorf("endpoints = %+v, want protocol and uri only", got.Endpoints)
				}
				if len(got.Examples) != 2 || got.Examples[0].Text != c.Examples[0].Text || got.Examples[1].Text != c.Examples[1].Text {
					t.Errorf("examples = %+v, want the two examples tagged with a tool", got.Examples)
				}
				// The aitp interface url is an agent id: it gives the id back.
				if got.ID != c.ID {
					t.Errorf("id = %q, want %q from the aitp interface", got.ID, c.ID)
				}
			},
		},
		{
			// Lost: id, did, status, examples, constraints, metadata,
			// extensions, seq, signature, output schemas, streaming,
			// idempotence and tool extras.
			format: bridge.FormatOASF,
			kept:   []string{"name", "description", "version", "skills", "tools", "endpoints"},
			same:   []string{"name", "description", "version", "skills", "endpoints"},
			check: func(t *testing.T, got *adp.Card) {
				if got.Tools[0].InputSchema == nil || got.Tools[0].OutputSchema != nil || got.Tools[0].Idempotent != nil {
					t.Errorf("tool = %+v, want name, description and input schema", got.Tools[0])
				}
			},
		},
		{
			// Lost: id (agent_id is a derived ULID), did, description,
			// status, examples, constraints, every endpoint but the chosen
			// one and its methods/priority/extras, metadata other than
			// created_at, extensions, seq, signature, streaming, idempotence
			// and tool extras.
			format: bridge.FormatAgentCard,
			kept:   []string{"name", "version", "skills", "tools", "endpoints", "metadata"},
			same:   []string{"name", "version", "skills"},
			check: func(t *testing.T, got *adp.Card) {
				if got.Tools[0].OutputSchema == nil || got.Tools[0].Idempotent != nil {
					t.Errorf("tool = %+v, want name, description and both schemas", got.Tools[0])
				}
				if len(got.Endpoints) != 1 || got.Endpoints[0].Protocol != "https" || got.Endpoints[0].Auth != "bearer" {
					t.Errorf("endpoints = %+v, want the https endpoint with bearer auth", got.Endpoints)
				}
				if got.Metadata.CreatedAt != c.Metadata.CreatedAt || got.Metadata.UpdatedAt != "" || got.Metadata.TTL != nil {
					t.Errorf("metadata = %+v, want created_at only", got.Metadata)
				}
				if got.Extensions["agentcard"] == nil {
					t.Errorf("the derived agent_id must be kept in extensions[agentcard] when the id is lost")
				}
			},
		},
		{
			// Lost: did, tools, created_at, ttl, extensions, seq, signature.
			format: bridge.FormatProfile,
			kept:   []string{"id", "name", "description", "version", "status", "skills", "endpoints", "constraints", "examples", "metadata"},
			same:   []string{"id", "name", "description", "version", "status", "skills", "endpoints", "constraints", "examples"},
			check: func(t *testing.T, got *adp.Card) {
				if got.Metadata.UpdatedAt != c.Metadata.UpdatedAt || got.Metadata.CreatedAt != "" || got.Metadata.TTL != nil {
					t.Errorf("metadata = %+v, want updated_at only", got.Metadata)
				}
			},
		},
		{
			// Lost: id, did, status, tools, endpoints, examples,
			// constraints, metadata other than created_at, extensions,
			// seq, signature.
			format: bridge.FormatOASFRecord,
			kept:   []string{"name", "description", "version", "skills", "metadata"},
			same:   []string{"name", "description", "version", "skills"},
			check: func(t *testing.T, got *adp.Card) {
				if got.Metadata.CreatedAt != c.Metadata.CreatedAt || got.Metadata.UpdatedAt != "" || got.Metadata.TTL != nil {
					t.Errorf("metadata = %+v, want created_at only", got.Metadata)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			out, err := bridge.Encode(tt.format, c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := bridge.Decode(tt.format, withoutCarrier(t, string(tt.format), out))
			if err != nil {
				t.Fatal(err)
			}
			obj := cardObject(t, got)
			delete(obj, "extensions") // what the import kept of the format
			gotKeys := keys(obj)
			if tt.format == bridge.FormatA2A || tt.format == bridge.FormatProfile {
				// an id is only kept when the format's fields hold one
				gotKeys = slices.DeleteFunc(gotKeys, func(k string) bool { return k == "id" && !slices.Contains(tt.kept, "id") })
			}
			slices.Sort(gotKeys)
			wantKeys := slices.Clone(tt.kept)
			slices.Sort(wantKeys)
			if !slices.Equal(gotKeys, wantKeys) {
				t.Fatalf("kept members %v, want %v", gotKeys, wantKeys)
			}
			for _, k := range tt.same {
				if !reflect.DeepEqual(obj[k], orig[k]) {
					t.Errorf("%s = %v, want %v", k, obj[k], orig[k])
				}
			}
			tt.check(t, got)
		})
	}
}

// TestRoundTripFromFormat: format -> ADP -> format gives the document back,
// member for member (the members ADP has no field for travel in
// extensions[<format>]), and the ADP card is pinned by a golden file. An
// A2A 1.0 card comes back without its signatures (they covered the
// document as it was; SignA2A signs the export again). An A2A 0.3 card
// comes back as the A2A 1.0 card pinned in golden/a2a.a2a.json: url,
// preferredTransport and additionalInterfaces become supportedInterfaces
// with protocolVersion 0.3.0, supportsAuthenticatedExtendedCard becomes
// capabilities.extendedAgentCard, security and securitySchemes take their
// 1.0 shape, and stateTransitionHistory and signatures are lost.
func TestRoundTripFromFormat(t *testing.T) {
	tests := []struct {
		file   string
		format bridge.Format
		back   string // golden file of the document written back; "" for the source itself
	}{
		{"a2a.json", bridge.FormatA2A, "a2a.a2a.json"},
		{"a2a-1.0.json", bridge.FormatA2A, ""},
		{"mcp.json", bridge.FormatMCP, ""},
		{"oasf.json", bridge.FormatOASF, ""},
		{"agentcard.json", bridge.FormatAgentCard, ""},
		{"profile-4.9.json", bridge.FormatProfile, ""},
		{"profile-13.1.json", bridge.FormatProfile, ""},
		// agntcy/dir, e2e/shared/testdata/record_080.json, copied verbatim
		{"oasf-record.json", bridge.FormatOASFRecord, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src := readTestdata(t, tt.file)
			c, err := bridge.Decode(tt.format, src)
			if err != nil {
				t.Fatal(err)
			}
			cardJSON, err := c.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file[:len(tt.file)-len(".json")]+".adp.json", cardJSON)
			back, err := bridge.Convert(tt.format, tt.format, src)
			if err != nil {
				t.Fatal(err)
			}
			if tt.back != "" {
				golden(t, tt.back, back)
				return
			}
			want := src
			if tt.format == bridge.FormatA2A {
				d := decodeJSON(t, src).(map[string]any)
				delete(d, "signatures")
				want, _ = json.Marshal(d)
			}
			requireSameJSON(t, string(tt.format)+" -> adp -> "+string(tt.format), back, want)
		})
	}
}

// TestImportedCardsSign: a card imported from any format becomes a valid,
// verifiable ADP card once signed (signing sets the id from the key).
func TestImportedCardsSign(t *testing.T) {
	sk := fixedKey(t, 7)
	for _, tt := range []struct {
		file   string
		format bridge.Format
	}{
		{"a2a.json", bridge.FormatA2A},
		{"oasf.json", bridge.FormatOASF},
		{"agentcard.json", bridge.FormatAgentCard},
		{"profile-4.9.json", bridge.FormatProfile},
		{"profile-13.1.json", bridge.FormatProfile},
		{"oasf-record.json", bridge.FormatOASFRecord},
	} {
		t.Run(tt.file, func(t *testing.T) {
			c, err := bridge.Decode(tt.format, readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Sign(sk); err != nil {
				t.Fatal(err)
			}
			if _, err := adp.DecodeVerified(c.Raw()); err != nil {
				t.Fatalf("imported and signed card is rejected: %v", err)
			}
		})
	}
}
