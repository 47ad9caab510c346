package discovery_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/discovery"
)

func TestProviderTags(t *testing.T) {
	req := &adp.DiscoverRequest{
		RequiredTags:  []string{"nlp/translation", "nlp/*"},
		Tags:          []string{"nlp", "vision/ocr"},
		PreferredTags: []string{"a", "b", "c", "d", "e", "f"},
	}
	want := []string{"nlp/translation", "nlp", "vision/ocr", "a", "b", "c", "d", "e"}
	if got := discovery.ProviderTags(req); !slices.Equal(got, want) {
		t.Fatalf("ProviderTags = %v, want %v", got, want)
	}
}

func TestFromDirectory(t *testing.T) {
	tr, ocr := cardtest.Card(t, 1, translatorCard), cardtest.Card(t, 2, ocrCard)
	resp := &adp.DiscoverResponse{Results: []adp.DiscoverResult{
		{ID: tr.ID, Name: "forged name", Score: 0.7, AgentCard: tr.Raw()},
		{ID: ocr.ID, Score: 0.5, AgentCard: tr.Raw()},  // card of another agent
		{ID: ocr.ID, Score: 1.5, AgentCard: ocr.Raw()}, // score out of range
		{ID: "self", Score: 0.9, AgentCard: json.RawMessage(`{}`)},
	}}
	var refused []string
	got := discovery.FromDirectory(resp, "agent://dir", "self", "2026-05-01T12:00:00Z", nil, func(id string, _ error) { refused = append(refused, id) })
	if len(got) != 1 || got[0].Result.ID != tr.ID || got[0].Result.Name != tr.Name || got[0].Result.OriginService != "agent://dir" || got[0].Card.ID != tr.ID {
		t.Fatalf("FromDirectory = %+v", got)
	}
	if !slices.Equal(refused, []string{ocr.ID, "self"}) {
		t.Fatalf("refused %v", refused)
	}
}

func TestMerge(t *testing.T) {
	tr, ocr := cardtest.Card(t, 1, translatorCard), cardtest.Card(t, 2, ocrCard)
	local := &adp.DiscoverResponse{RequestID: "req-1", Warnings: []string{"local"}, Results: []adp.DiscoverResult{
		{ID: tr.ID, Score: 0.8},
	}}
	for i := range 12 {
		local.Results = append(local.Results, adp.DiscoverResult{ID: fmt.Sprintf("agent://z%02d", i), Score: 0.2})
	}
	remote := []discovery.Federated{
		{Result: adp.DiscoverResult{ID: tr.ID, Score: 0.6, OriginService: "agent://dir", ReceivedAt: "t1"}, Card: tr, Rank: 2},
		{Result: adp.DiscoverResult{ID: ocr.ID, Score: 0.5, Description: "d", ScoreComponents: map[string]float64{"tag": 1}, OriginService: "agent://dir", ReceivedAt: "t1"}, Card: ocr, Rank: 1},
		{Result: adp.DiscoverResult{ID: ocr.ID, Score: 0.9, Description: "d", ScoreComponents: map[string]float64{"tag": 1}, OriginService: "agent://dir2", ReceivedAt: "t2"}, Card: ocr, Rank: 1},
	}

	// A request built in Go: limit, min_score and detail take their defaults.
	out := discovery.Merge(local, remote, map[string]string{"agent://z00": "t3"}, &adp.DiscoverRequest{}, []string{"directory x did not answer"})
	if len(out.Results) != adp.DefaultDiscoverLimit {
		t.Fatalf("%d results, want the default limit %d", len(out.Results), adp.DefaultDiscoverLimit)
	}
	first, second := out.Results[0], out.Results[1]
	// ocr: first in two directories' lists, 2/61; the translator: first
	// here and second in one directory, 1/61 + 1/62.
	if first.ID != ocr.ID || first.OriginService != "agent://dir" || first.ScoreComponents != nil || !first.Redacted || len(first.Sources) != 2 {
		t.Fatalf("best remote result: %+v", first)
	}
	if first.FusionScore != 2.0/61 || first.Sources[0].Rank != 1 || first.Sources[1].OriginService != "agent://dir2" || first.Sources[1].ReceivedAt != "t2" {
		t.Fatalf("fusion %v, sources %+v", first.FusionScore, first.Sources)
	}
	var card map[string]any
	if err := json.Unmarshal(first.AgentCard, &card); err != nil || card["signature"] != nil || card["id"] != ocr.ID {
		t.Fatalf("remote card not reduced to summary: %s", first.AgentCard)
	}
	if second.ID != tr.ID || second.Score != 0.8 || second.OriginService != "agent://dir" || len(second.Sources) != 1 || second.Sources[0].Rank != 2 {
		t.Fatalf("local result with provenance: %+v", second)
	}
	if z := out.Results[2]; z.ID != "agent://z00" || len(z.Sources) != 1 || z.Sources[0].OriginService != adp.OriginDHT || z.Sources[0].ReceivedAt != "t3" {
		t.Fatalf("card from a DHT provider: %+v", z)
	}
	if !slices.Equal(out.Warnings, []string{"local", "directory x did not answer"}) || !slices.Equal(local.Warnings, []string{"local"}) || out.RequestID != "req-1" {
		t.Fatalf("warnings %v (local %v), request id %s", out.Warnings, local.Warnings, out.RequestID)
	}
	if discovery.Merge(local, remote, nil, &adp.DiscoverRequest{Detail: adp.DetailMinimal}, nil).Results[0].Description != "" {
		t.Fatal("minimal detail kept the description")
	}
}

func TestMergeUsesRanksNotScores(t *testing.T) {
	// Two services score on their own scales: one gives everything
	// about 0.9, the other about 0.3. Merged by score, the first
	// service's last result would beat the second's first; by rank, each
	// service's first comes before either's second.
	local := &adp.DiscoverResponse{}
	var remote []discovery.Federated
	for i, svc := range []struct {
		dir   string
		score float64
	}{{"agent://generous", 0.9}, {"agent://strict", 0.3}} {
		for r := 1; r <= 3; r++ {
			c := cardtest.Card(t, byte(10*i+r), ocrCard)
			remote = append(remote, discovery.Federated{
				Result: adp.DiscoverResult{ID: c.ID, Score: svc.score - 0.01*float64(r), OriginService: svc.dir}, Card: c, Rank: r,
			})
		}
	}
	out := discovery.Merge(local, remote, nil, &adp.DiscoverRequest{Limit: 6}, nil)
	var ranks []int
	for _, r := range out.Results {
		ranks = append(ranks, r.Sources[0].Rank)
	}
	if !slices.Equal(ranks, []int{1, 1, 2, 2, 3, 3}) {
		t.Fatalf("merged ranks %v, want each service's first before either's second", ranks)
	}
}

// TestMergeLeavesOutKnown: a directory's result whose card the request's
// known list names is left out, as the local ranking leaves it out.
func TestMergeLeavesOutKnown(t *testing.T) {
	tr, ocr := cardtest.Card(t, 1, translatorCard), cardtest.Card(t, 2, ocrCard)
	remote := []discovery.Federated{
		{Result: adp.DiscoverResult{ID: tr.ID, Score: 0.6, OriginService: "agent://dir"}, Card: tr, Rank: 1},
		{Result: adp.DiscoverResult{ID: ocr.ID, Score: 0.5, OriginService: "agent://dir"}, Card: ocr, Rank: 2},
	}
	out := discovery.Merge(&adp.DiscoverResponse{}, remote, nil, &adp.DiscoverRequest{Known: []string{adp.CardDigest(tr.Raw())}}, nil)
	if len(out.Results) != 1 || out.Results[0].ID != ocr.ID {
		t.Fatalf("with the translator known: %+v", out.Results)
	}
	if out := discovery.Merge(&adp.DiscoverResponse{}, remote, nil, &adp.DiscoverRequest{}, nil); len(out.Results) != 2 {
		t.Fatalf("with no known list: %d results, want 2", len(out.Results))
	}
}
