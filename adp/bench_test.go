package adp_test

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/gowebpki/jcs"
)

// benchCard returns a signed card of about 4 KB: the full example card with
// more tools, endpoints, examples and a longer description.
func benchCard(b *testing.B) *adp.Card {
	b.Helper()
	sk := fixedKey(b, 7)
	c := &adp.Card{
		Name:        "translator-zh-en",
		Description: strings.Repeat("Chinese-English bidirectional translation with glossary support. ", 8),
		Version:     "1.2.0",
		Status:      adp.StatusActive,
		Skills:      []string{"nlp/translation", "nlp/text-analysis", "nlp/generation/summarization", "python", "retrieval/knowledge-base"},
		Constraints: &adp.Constraints{SupportedLanguages: []string{"zh", "en", "ja"}, RateLimit: "60/min"},
		Metadata:    &adp.Metadata{CreatedAt: "2026-01-15T00:00:00Z", UpdatedAt: "2026-03-24T12:00:00Z"},
		Extensions:  map[string]json.RawMessage{"clawnet.reputation": json.RawMessage(`{"score":78.5,"tier":16,"tasks_completed":342,"avg_rating":4.7}`)},
	}
	seq := uint64(12)
	c.Seq = &seq
	for i := 0; i < 8; i++ {
		c.Tools = append(c.Tools, adp.Tool{
			Name:         fmt.Sprintf("translate_%d", i),
			Description:  "Translate text between languages",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"source_lang":{"type":"string","default":"auto"},"target_lang":{"type":"string"}},"required":["text","target_lang"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"translated":{"type":"string"},"confidence":{"type":"number"}}}`),
		})
	}
	c.Endpoints = []adp.Endpoint{{Protocol: "aitp", URI: "agent://self", Methods: []string{"translate_0", "translate_1"}}, {Protocol: "http+json", URI: "https://api.example.com/translate/v1", Auth: "bearer"}}
	for i := 0; i < 4; i++ {
		c.Examples = append(c.Examples, adp.Example{ID: fmt.Sprint(i), Text: "Translate a product description from Chinese to English", Tags: []string{"nlp/translation"}})
	}
	if err := c.Sign(sk); err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkParse(b *testing.B) {
	raw := benchCard(b).Raw()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := adp.ParseCard(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	c, err := adp.ParseCard(benchCard(b).Raw())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(c.Raw())))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	c := benchCard(b)
	sk := fixedKey(b, 7)
	b.SetBytes(int64(len(c.Raw())))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Sign(sk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify measures Verify on a parsed ~4 KB card, and reports its
// cost relative to a bare ed25519.Verify of the same canonical bytes
// measured in the same run, interleaved so that both see the same machine
// load (x_ed25519: 1.0 would mean canonicalization and key decoding are
// free).
func BenchmarkVerify(b *testing.B) {
	signed := benchCard(b)
	c, err := adp.ParseCard(signed.Raw())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(c.Raw())))
	b.ReportAllocs()
	benchAgainstEd25519(b, signed, func() {
		if err := c.Verify(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkDecodeVerified measures the whole network gate: parse, validate,
// verify.
func BenchmarkDecodeVerified(b *testing.B) {
	signed := benchCard(b)
	raw := signed.Raw()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	benchAgainstEd25519(b, signed, func() {
		if _, err := adp.DecodeVerified(raw); err != nil {
			b.Fatal(err)
		}
	})
}

// benchAgainstEd25519 runs op in the benchmark loop and, every 32
// iterations with the timer stopped, 32 bare ed25519.Verify calls over the
// card's canonical signed bytes; it reports op's cost as a multiple of the
// bare verification.
func benchAgainstEd25519(b *testing.B, c *adp.Card, op func()) {
	unsigned := c.Clone()
	unsigned.Signature = ""
	body, err := unsigned.MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	msg, err := jcs.Transform(body)
	if err != nil {
		b.Fatal(err)
	}
	sig := mustDecodeSig(b, c.Signature)
	p, _ := c.PeerID()
	pub, _ := p.ExtractPublicKey()
	raw, _ := pub.Raw()
	const block = 32
	var opTime, baseTime time.Duration
	ops, bases := 0, 0
	baseline := func() {
		b.StopTimer()
		t := time.Now()
		for range block {
			if !ed25519.Verify(raw, msg, sig) {
				b.Fatal("baseline does not verify")
			}
		}
		baseTime += time.Since(t)
		bases += block
		b.StartTimer()
	}
	for b.Loop() {
		t := time.Now()
		op()
		opTime += time.Since(t)
		ops++
		if ops%block == 0 {
			baseline()
		}
	}
	if bases == 0 {
		baseline()
	}
	perOp := float64(opTime) / float64(ops)
	perBase := float64(baseTime) / float64(bases)
	b.ReportMetric(perOp/perBase, "x_ed25519")
	b.ReportMetric(perBase, "ed25519_ns")
}

// BenchmarkDiscoverResponseEncode encodes the answer to a card sync's
// request (100 results of full detail, the largest list a peer asks for)
// by the response's MarshalJSON, as the service does, against the
// baseline json.Marshal, which scans that output again to validate and
// compact it. Report: ns/op of each and the baseline's ratio.
func BenchmarkDiscoverResponseEncode(b *testing.B) {
	c := benchCard(b)
	resp := &adp.DiscoverResponse{}
	for i := range adp.MaxDiscoverLimit {
		resp.Results = append(resp.Results, adp.DiscoverResult{
			AgentCard: c.Raw(), ID: c.ID, Name: c.Name, Score: 1 / float64(i+1),
			MatchedTags: []string{},
		})
	}
	var base, own time.Duration
	b.Run("json.Marshal", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			if _, err := json.Marshal(resp); err != nil {
				b.Fatal(err)
			}
		}
		base = time.Since(start) / time.Duration(b.N)
	})
	b.Run("MarshalJSON", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			if _, err := resp.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
		own = time.Since(start) / time.Duration(b.N)
		if own > 0 && base > 0 {
			b.ReportMetric(float64(base)/float64(own), "x_faster_than_json.Marshal")
		}
	})
}
