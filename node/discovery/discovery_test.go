package discovery_test

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/scoring"
)

var discoNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

const (
	translatorCard = `{"id": "ID", "name": "Lingua Translator", "description": "Translates contracts between English and German.",
 "status": "active", "skills": ["nlp/translation", "py"],
 "tools": [{"name": "translate", "description": "Translate text", "input_schema": {"type": "object", "properties": {"target_language": {"type": "string"}}}}],
 "endpoints": [{"protocol": "aitp", "uri": "ID", "methods": ["translate"]}, {"protocol": "https", "uri": "https://lingua.example/v1", "auth": "bearer"}],
 "constraints": {"max_concurrent_tasks": 2},
 "examples": [{"id": "ex-legal", "text": "Translate a legal contract into German"}, {"id": "ex-web", "text": "Localize a web page"}],
 "metadata": {"updated_at": "2026-04-30T00:00:00Z", "ttl": 3600},
 "extensions": {"clawnet.reputation": {"score": 100}}}`
	ocrCard = `{"id": "ID", "name": "Receipt Reader", "description": "Reads text from scanned receipts.",
 "skills": ["vision/ocr"], "tools": [{"name": "ocr", "description": "Extract text"}],
 "endpoints": [{"protocol": "mcp", "uri": "https://ocr.example/mcp"}]}`
)

func newDisco(t *testing.T, sig func(string) scoring.Signals) (*discovery.Discovery, *adp.Card, *adp.Card) {
	t.Helper()
	d, err := discovery.New(discovery.WithClock(func() time.Time { return discoNow }), discovery.WithSignals(sig))
	if err != nil {
		t.Fatal(err)
	}
	tr, ocr := cardtest.Card(t, 1, translatorCard), cardtest.Card(t, 2, ocrCard)
	if err := d.Put(tr, discoNow.Add(-30*time.Minute), discoNow.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ocr, discoNow.Add(-2*time.Hour), discoNow.Add(-time.Hour)); err != nil { // expired
		t.Fatal(err)
	}
	return d, tr, ocr
}

func discover(t *testing.T, d *discovery.Discovery, body string) *adp.DiscoverResponse {
	t.Helper()
	req, err := adp.ParseDiscoverRequest([]byte(body))
	if err != nil {
		t.Fatalf("request %s: %v", body, err)
	}
	resp, err := d.Discover(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// The response is valid JSON with the wire names.
	if _, err := json.Marshal(resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestDiscoveryEvidence(t *testing.T) {
	d, tr, _ := newDisco(t, nil)
	resp := discover(t, d, `{"query": "translate a legal contract", "tags": ["python", "nlp"], "include_evidence": true,
		"constraints": {"region": "eu", "max_results_age_seconds": 3600}}`)
	if !strings.HasPrefix(resp.RequestID, "req-") || resp.GeneratedAt != "2026-05-01T12:00:00Z" {
		t.Errorf("request_id %q generated_at %q", resp.RequestID, resp.GeneratedAt)
	}
	if !slices.Equal(resp.UnsupportedFilters, []string{"region"}) {
		t.Errorf("unsupported_filters %v", resp.UnsupportedFilters)
	}
	if resp.AppliedFilters[adp.ConstraintMaxResultsAge] != 3600.0 || resp.AppliedFilters["limit"] != 10 {
		t.Errorf("applied_filters %v", resp.AppliedFilters)
	}
	if len(resp.Results) != 1 {
		t.Fatalf("results %+v", resp.Results)
	}
	r := resp.Results[0]
	if r.ID != tr.ID || r.Name != "Lingua Translator" || r.Status != "active" {
		t.Errorf("result %+v", r)
	}
	if !slices.Equal(r.MatchedTags, []string{}) || !slices.Equal(r.ExpandedTags, []string{"python", "nlp"}) {
		t.Errorf("matched %v expanded %v", r.MatchedTags, r.ExpandedTags)
	}
	sum := 0.0
	for k, v := range r.ScoreComponents {
		sum += r.Weights[k] * v
	}
	if math.Abs(sum-r.Score) > 1e-9 {
		t.Errorf("components %v weights %v add to %v, score %v", r.ScoreComponents, r.Weights, sum, r.Score)
	}
	for _, k := range []string{"tag", "context", "example", "reputation", "availability", "rating", "freshness"} {
		if _, ok := r.ScoreComponents[k]; !ok {
			t.Errorf("component %s missing", k)
		}
	}
	if len(r.MatchedExamples) == 0 || r.MatchedExamples[0].ID != "ex-legal" || r.MatchedExamples[0].Text == "" {
		t.Errorf("matched examples %+v", r.MatchedExamples)
	}
	if r.Freshness == nil || r.Freshness.Stale || r.Freshness.MetadataUpdatedAt != "2026-04-30T00:00:00Z" ||
		r.Freshness.IndexedAt != "2026-05-01T11:30:00Z" || r.Freshness.ExpiresAt != "2026-05-01T12:30:00Z" {
		t.Errorf("freshness %+v", r.Freshness)
	}
	// Self-declared reputation is ignored: a new agent's reputation is the
	// cold-start value.
	if r.ScoreComponents["reputation"] != 0.7 {
		t.Errorf("reputation %v", r.ScoreComponents["reputation"])
	}
	// Without include_evidence there are no components.
	plain := discover(t, d, `{"query": "translate"}`)
	if len(plain.Results) != 1 || plain.Results[0].ScoreComponents != nil || plain.Results[0].MatchedExamples != nil {
		t.Errorf("evidence without include_evidence: %+v", plain.Results)
	}
}

func TestDiscoveryDetail(t *testing.T) {
	d, tr, _ := newDisco(t, nil)
	full := discover(t, d, `{"tags": ["nlp/translation"], "detail": "full"}`).Results[0]
	if w := discover(t, d, `{"tags": ["nlp/translation"], "detail": "full"}`).Warnings; slices.ContainsFunc(w, func(w string) bool { return strings.HasPrefix(w, discovery.RedactionWarning) }) {
		t.Errorf("full detail carries the redaction notice: %v", w)
	}
	if string(full.AgentCard) != string(tr.Raw()) || full.Redacted {
		t.Errorf("full detail is not the signed card: redacted=%v", full.Redacted)
	}
	if _, err := adp.DecodeVerified(full.AgentCard); err != nil {
		t.Errorf("full card does not verify: %v", err)
	}
	for _, detail := range []string{"summary", "minimal"} {
		resp := discover(t, d, `{"tags": ["nlp/translation"], "include_evidence": true, "query": "legal contract", "detail": "`+detail+`"}`)
		r := resp.Results[0]
		if !r.Redacted || !slices.ContainsFunc(resp.Warnings, func(w string) bool { return strings.HasPrefix(w, discovery.RedactionWarning+detail) }) {
			t.Errorf("%s: redacted=%v warnings=%v, want the redaction notice", detail, r.Redacted, resp.Warnings)
		}
		var m map[string]any
		if err := json.Unmarshal(r.AgentCard, &m); err != nil {
			t.Fatal(err)
		}
		for _, gone := range []string{"signature", "examples", "extensions"} {
			if _, ok := m[gone]; ok {
				t.Errorf("%s: %s not redacted", detail, gone)
			}
		}
		if strings.Contains(string(r.AgentCard), "bearer") || strings.Contains(string(r.AgentCard), "input_schema") {
			t.Errorf("%s: endpoint auth or schema leaked: %s", detail, r.AgentCard)
		}
		if m["id"] != tr.ID || m["endpoints"] == nil {
			t.Errorf("%s: card lacks id or endpoints: %s", detail, r.AgentCard)
		}
		_, hasTools := m["tools"]
		if detail == "minimal" && (hasTools || r.Description != "" || r.MatchedExamples[0].Text != "") {
			t.Errorf("minimal carries more than identifiers: %s %q", r.AgentCard, r.Description)
		}
		if detail == "summary" && (!hasTools || r.Description == "") {
			t.Errorf("summary lacks tools or description: %s", r.AgentCard)
		}
	}
}

func TestDiscoveryFilters(t *testing.T) {
	busy := func(id string) scoring.Signals { return scoring.Signals{ActiveTasks: 5, LastSeen: discoNow} }
	d, tr, ocr := newDisco(t, nil)
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"expired hidden", `{"tags": ["vision", "nlp"]}`, []string{tr.ID}},
		{"allow_stale", `{"tags": ["vision", "nlp"], "constraints": {"allow_stale": true}}`, []string{tr.ID, ocr.ID}},
		{"protocols", `{"tags": ["vision", "nlp"], "protocols": ["mcp"], "constraints": {"allow_stale": true}}`, []string{ocr.ID}},
		{"max age", `{"tags": ["vision", "nlp"], "constraints": {"allow_stale": true, "max_results_age_seconds": 3600}}`, []string{tr.ID}},
		{"excluded", `{"query": "text", "excluded_tags": ["nlp"], "constraints": {"allow_stale": true}}`, []string{ocr.ID}},
		{"required", `{"query": "text", "required_tags": ["nlp/*"]}`, []string{tr.ID}},
		{"min score", `{"tags": ["nlp"], "min_score": 1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range discover(t, d, tt.body).Results {
				got = append(got, r.ID)
			}
			slices.Sort(got)
			slices.Sort(tt.want)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	// Load filtering with the signals of the node, pulled or pushed.
	db, _, _ := newDisco(t, busy)
	if res := discover(t, db, `{"tags": ["nlp"]}`).Results; len(res) != 0 {
		t.Errorf("agent at its max_concurrent_tasks returned: %v", res)
	}
	d.SetSignals(tr.ID, busy(tr.ID))
	if res := discover(t, d, `{"tags": ["nlp"]}`).Results; len(res) != 0 {
		t.Errorf("agent at its max_concurrent_tasks returned with pushed signals: %v", res)
	}
	d.SetSignals(tr.ID, scoring.Signals{})
	if res := discover(t, d, `{"tags": ["nlp"]}`).Results; len(res) != 1 {
		t.Errorf("forgotten signals still filter: %v", res)
	}
}

func TestDiscoveryLifecycle(t *testing.T) {
	d, tr, ocr := newDisco(t, nil)
	if d.Len() != 2 {
		t.Fatalf("Len %d", d.Len())
	}
	// A revocation removes the agent.
	rev := cardtest.Card(t, 1, `{"id": "ID", "name": "Lingua Translator", "tools": [], "endpoints": []}`)
	if err := d.Put(rev, discoNow, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if res := discover(t, d, `{"tags": ["nlp"]}`).Results; len(res) != 0 {
		t.Fatalf("revoked agent returned: %v", res)
	}
	if d.Expire(discoNow) != 1 || d.Len() != 0 {
		t.Fatalf("Expire did not drop the expired card of %s", ocr.ID)
	}
	if err := d.Put(tr, discoNow, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if !d.Remove(tr.ID) || d.Remove(tr.ID) {
		t.Fatal("Remove does not report presence")
	}
	if err := d.Put(&adp.Card{}, discoNow, time.Time{}); err == nil {
		t.Fatal("card without id accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := adp.ParseDiscoverRequest(nil)
	if _, err := d.Discover(ctx, req); err == nil {
		t.Fatal("Discover ignores a cancelled context")
	}
}

func TestDiscoveryKnown(t *testing.T) {
	d, err := discovery.New(discovery.WithClock(func() time.Time { return discoNow }))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := `{"id": "ID", "name": "Translator", "seq": SEQ, "skills": ["nlp/translation"], "endpoints": [{"protocol": "aitp", "uri": "ID"}]}`
	card := func(key byte, seq string) *adp.Card {
		return cardtest.Card(t, key, strings.Replace(tmpl, "SEQ", seq, 1))
	}
	var cards []*adp.Card
	for key := byte(1); key <= 6; key++ {
		c := card(key, "1")
		cards = append(cards, c)
		if err := d.Put(c, discoNow, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(r *adp.DiscoverResponse) []string {
		var out []string
		for _, x := range r.Results {
			out = append(out, x.ID)
		}
		return out
	}
	knownOf := func(r *adp.DiscoverResponse) []string {
		var out []string
		for _, x := range r.Results {
			out = append(out, `"`+adp.CardDigest(x.AgentCard)+`"`)
		}
		return out
	}
	all := `{"limit": 3, "min_score": 0, "detail": "full"`
	first := discover(t, d, all+`}`)
	if len(first.Results) != 3 {
		t.Fatalf("%d results, want 3", len(first.Results))
	}
	// The caller holds the first three: the answer is the other three, the
	// filter applied before the limit.
	rest := discover(t, d, all+`, "known": [`+strings.Join(knownOf(first), ",")+`]}`)
	if got := ids(rest); len(got) != 3 || slices.ContainsFunc(got, func(id string) bool { return slices.Contains(ids(first), id) }) {
		t.Fatalf("with the first three known: %v (first %v)", got, ids(first))
	}
	both := append(knownOf(first), knownOf(rest)...)
	if r := discover(t, d, all+`, "known": [`+strings.Join(both, ",")+`]}`); len(r.Results) != 0 {
		t.Fatalf("every card known, yet %v returned", ids(r))
	}

	// A known digest of an older version does not hide the newer card.
	older := adp.CardDigest(cards[0].Raw())
	newer := card(1, "2")
	if err := d.Put(newer, discoNow, time.Time{}); err != nil {
		t.Fatal(err)
	}
	r := discover(t, d, `{"limit": 10, "min_score": 0, "detail": "full", "known": ["`+older+`"]}`)
	if !slices.Contains(ids(r), newer.ID) || len(r.Results) != 6 {
		t.Fatalf("known holds an older version of %s: got %v", newer.ID, ids(r))
	}

	// Digests lists the indexed cards' digests, bounded, without except's.
	got := d.Digests(adp.MaxKnownCards, newer.ID)
	if len(got) != 5 || slices.Contains(got, adp.CardDigest(newer.Raw())) || slices.Contains(got, older) {
		t.Fatalf("Digests without %s: %v", newer.ID, got)
	}
	for _, c := range cards[1:] {
		if !slices.Contains(got, adp.CardDigest(c.Raw())) {
			t.Fatalf("Digests lacks %s", c.ID)
		}
	}
	if n := len(d.Digests(2, "")); n != 2 {
		t.Fatalf("Digests(2) returned %d", n)
	}
	// A removed card's digest names nothing any more.
	d.Remove(cards[1].ID)
	if slices.Contains(d.Digests(adp.MaxKnownCards, ""), adp.CardDigest(cards[1].Raw())) {
		t.Fatal("Digests lists a removed card")
	}
}
