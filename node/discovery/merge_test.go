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
	remote := map[string]discovery.Federated{}
	discovery.Keep(remote, discovery.Federated{Result: adp.DiscoverResult{ID: tr.ID, Score: 0.6, OriginService: "agent://dir"}, Card: tr})
	discovery.Keep(remote, discovery.Federated{Result: adp.DiscoverResult{ID: ocr.ID, Score: 0.5, Description: "d",
		ScoreComponents: map[string]float64{"tag": 1}, OriginService: "agent://dir"}, Card: ocr})
	discovery.Keep(remote, discovery.Federated{Result: adp.DiscoverResult{ID: ocr.ID, Score: 0.9, Description: "d",
		ScoreComponents: map[string]float64{"tag": 1}, OriginService: "agent://dir2"}, Card: ocr})

	// A request built in Go: limit, min_score and detail take their defaults.
	out := discovery.Merge(local, remote, &adp.DiscoverRequest{}, []string{"directory x did not answer"})
	if len(out.Results) != adp.DefaultDiscoverLimit {
		t.Fatalf("%d results, want the default limit %d", len(out.Results), adp.DefaultDiscoverLimit)
	}
	first, second := out.Results[0], out.Results[1]
	if first.ID != ocr.ID || first.OriginService != "agent://dir2" || first.ScoreComponents != nil || !first.Redacted {
		t.Fatalf("best remote result: %+v", first)
	}
	var card map[string]any
	if err := json.Unmarshal(first.AgentCard, &card); err != nil || card["signature"] != nil || card["id"] != ocr.ID {
		t.Fatalf("remote card not reduced to summary: %s", first.AgentCard)
	}
	if second.ID != tr.ID || second.Score != 0.8 || second.OriginService != "agent://dir" {
		t.Fatalf("local result with provenance: %+v", second)
	}
	if !slices.Equal(out.Warnings, []string{"local", "directory x did not answer"}) || !slices.Equal(local.Warnings, []string{"local"}) || out.RequestID != "req-1" {
		t.Fatalf("warnings %v (local %v), request id %s", out.Warnings, local.Warnings, out.RequestID)
	}
	if discovery.Merge(local, remote, &adp.DiscoverRequest{Detail: adp.DetailMinimal}, nil).Results[0].Description != "" {
		t.Fatal("minimal detail kept the description")
	}
}
