package adp_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
)

func TestParseDiscoverRequestDefaults(t *testing.T) {
	for _, body := range []string{"", "  ", "{}", `{"client_context": {"x": 2}}`} {
		r, err := adp.ParseDiscoverRequest([]byte(body))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if r.Limit != 10 || r.MinScore == nil || *r.MinScore != 0.1 || r.Detail != "summary" {
			t.Fatalf("%q: defaults not applied: %+v", body, r)
		}
	}
}

func TestDiscoverRequestWithDefaults(t *testing.T) {
	// A request built in Go gets the same defaults as its JSON form, on a
	// copy: the caller's request is not changed.
	built := &adp.DiscoverRequest{Tags: []string{"nlp"}}
	r := built.WithDefaults()
	if r.Limit != 10 || r.MinScore == nil || *r.MinScore != 0.1 || r.Detail != "summary" || !reflect.DeepEqual(r.Tags, built.Tags) {
		t.Fatalf("defaults not applied: %+v", r)
	}
	if built.Limit != 0 || built.MinScore != nil || built.Detail != "" {
		t.Fatalf("caller's request changed: %+v", built)
	}
	// Set values are kept, and a complete request is returned as it is.
	ms := 0.0
	full := &adp.DiscoverRequest{Limit: 3, MinScore: &ms, Detail: "full"}
	if got := full.WithDefaults(); got != full || got.Limit != 3 || *got.MinScore != 0 || got.Detail != "full" {
		t.Fatalf("complete request changed: %+v", got)
	}
}

func TestParseDiscoverRequestSpecExamples(t *testing.T) {
	// Discovery profile 5.2.
	r, err := adp.ParseDiscoverRequest([]byte(`{
	  "query": "Find an agent for onboarding validation and API setup.",
	  "required_tags": ["hr"],
	  "preferred_tags": ["onboarding", "api-automation"],
	  "protocols": ["https"],
	  "constraints": {"max_results_age_seconds": 300, "region": "apac"},
	  "limit": 10, "detail": "summary", "include_evidence": true
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if !r.IncludeEvidence || r.RequiredTags[0] != "hr" || len(r.PreferredTags) != 2 || r.Protocols[0] != "https" {
		t.Fatalf("fields: %+v", r)
	}
	if age, ok := r.MaxResultsAge(); !ok || age != 300*time.Second {
		t.Fatalf("MaxResultsAge = %v, %v", age, ok)
	}
	if got := r.UnsupportedConstraints(); !reflect.DeepEqual(got, []string{"region"}) {
		t.Fatalf("UnsupportedConstraints = %v", got)
	}
	// 13.2 and 13.3.
	r, err = adp.ParseDiscoverRequest([]byte(`{"query": "answer a short factual question", "protocols": ["https"], "limit": 1}`))
	if err != nil || r.Limit != 1 || r.IncludeEvidence {
		t.Fatalf("13.2: %+v %v", r, err)
	}
	r, err = adp.ParseDiscoverRequest([]byte(`{"query": "find a translation agent", "required_tags": ["translation"], "constraints": {"unsupported_private_filter": "example"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.UnsupportedConstraints(); !reflect.DeepEqual(got, []string{"unsupported_private_filter"}) || r.AllowStale() {
		t.Fatalf("13.3: %v", got)
	}
	// ADP 4.3 form, with a prefix tag and allow_stale.
	r, err = adp.ParseDiscoverRequest([]byte(`{"tags": ["nlp/*", "python"], "min_score": 0, "constraints": {"allow_stale": true}}`))
	if err != nil || *r.MinScore != 0 || !r.AllowStale() || r.UnsupportedConstraints() != nil {
		t.Fatalf("ADP form: %+v %v", r, err)
	}
}

// TestParseDiscoverRequestLongQuery accepts a long task description as
// the query (18 KB were seen from agents).
func TestParseDiscoverRequestLongQuery(t *testing.T) {
	q := strings.Repeat("Summarize the attached quarterly report for the board. ", 18*1024/56+1)
	body, err := json.Marshal(map[string]string{"query": q})
	if err != nil {
		t.Fatal(err)
	}
	r, err := adp.ParseDiscoverRequest(body)
	if err != nil {
		t.Fatalf("%d-octet query: %v", len(q), err)
	}
	if r.Query != q {
		t.Errorf("query changed: %d octets, want %d", len(r.Query), len(q))
	}
}

func TestParseDiscoverRequestRejects(t *testing.T) {
	many := `["` + strings.Repeat(`a","`, adp.MaxDiscoverTags) + `a"]`
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"limit": 0}`, []string{"/limit"}},
		{`{"limit": 101}`, []string{"/limit"}},
		{`{"limit": 5.5}`, []string{"/limit"}},
		{`{"limit": "5"}`, []string{"/limit"}},
		{`{"min_score": 1.5}`, []string{"/min_score"}},
		{`{"min_score": -0.1}`, []string{"/min_score"}},
		{`{"min_score": "high"}`, []string{"/min_score"}},
		{`{"min_score": 1e400}`, []string{"/min_score"}},
		{`{"tags": "nlp"}`, []string{"/tags"}},
		{`{"tags": ["ok", 1, "bad tag", "a/*/b"]}`, []string{"/tags/1", "/tags/2", "/tags/3"}},
		{`{"required_tags": ` + many + `}`, []string{"/required_tags"}},
		{`{"excluded_tags": [""]}`, []string{"/excluded_tags/0"}},
		{`{"preferred_tags": [null]}`, []string{"/preferred_tags/0"}},
		{`{"query": "` + strings.Repeat("q", adp.MaxQueryLen+1) + `"}`, []string{"/query"}},
		{`{"query": 7}`, []string{"/query"}},
		{`{"protocols": [""]}`, []string{"/protocols/0"}},
		{`{"constraints": [], "detail": "everything"}`, []string{"/constraints", "/detail"}},
		{`{"constraints": {"max_results_age_seconds": -1, "allow_stale": "yes"}}`, []string{"/constraints/allow_stale", "/constraints/max_results_age_seconds"}},
		{`{"include_evidence": 1}`, []string{"/include_evidence"}},
		{`{"client_context": "en"}`, []string{"/client_context"}},
	} {
		_, err := adp.ParseDiscoverRequest([]byte(tc.body))
		if got := problemPaths(t, err); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%.60s: problems %v, want %v (%v)", tc.body, got, tc.want, err)
		}
	}
	for body, want := range map[string]error{
		`{"limit":`:     adp.ErrMalformed,
		`[]`:            adp.ErrMalformed,
		`{"a":1,"a":2}`: adp.ErrMalformed,
		strings.Repeat("[", 40) + strings.Repeat("]", 40):                     adp.ErrMalformed,
		`{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`:     adp.ErrTooDeep,
		`{"query":"` + strings.Repeat("q", adp.MaxDiscoverRequestSize) + `"}`: adp.ErrTooLarge,
	} {
		if _, err := adp.ParseDiscoverRequest([]byte(body)); !errors.Is(err, want) {
			t.Errorf("%.40s: %v, want %v", body, err, want)
		}
	}
}

func TestDiscoverResponseJSON(t *testing.T) {
	resp := adp.DiscoverResponse{
		RequestID:   "r1",
		GeneratedAt: "2026-03-24T12:00:00Z",
		Results: []adp.DiscoverResult{{
			AgentCard:       json.RawMessage(`{"id":"agent://k51x","name":"n"}`),
			ID:              "agent://k51x",
			Name:            "n",
			Score:           0.5,
			MatchedTags:     []string{},
			ScoreComponents: map[string]float64{"tag": 1},
			Weights:         map[string]float64{"tag": 0.5},
			Freshness:       &adp.Freshness{IndexedAt: "2026-03-24T12:00:00Z"},
		}},
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"request_id":"r1","generated_at":"2026-03-24T12:00:00Z","results":[{"agent_card":{"id":"agent://k51x","name":"n"},"id":"agent://k51x","name":"n","score":0.5,"matched_tags":[],"score_components":{"tag":1},"weights":{"tag":0.5},"freshness":{"indexed_at":"2026-03-24T12:00:00Z","stale":false}}],` +
		`"candidates":[{"id":"agent://k51x","name":"n","bindings":[],"score":0.5,"score_components":{"tag":1},"freshness":{"indexed_at":"2026-03-24T12:00:00Z","stale":false}}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestParseDiscoverRequestRefusesUnknownFields(t *testing.T) {
	// A misspelled field is refused with its path, not ignored: ignored,
	// "querry" turned a text query into an empty one that returns every
	// agent at the same score.
	for body, path := range map[string]string{
		`{"querry": "translate a contract"}`:         "/querry",
		`{"tag": ["nlp"]}`:                           "/tag",
		`{"query": "ocr", "unknown_field": [1, {}]}`: "/unknown_field",
		`{"a/b~c": 1}`:                               "/a~1b~0c",
	} {
		_, err := adp.ParseDiscoverRequest([]byte(body))
		var ve *adp.ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != path {
			t.Fatalf("%s: got %v, want one problem at %s", body, err, path)
		}
	}
}

func TestParseDiscoverRequestRelevanceFloor(t *testing.T) {
	r, err := adp.ParseDiscoverRequest([]byte(`{"query": "ocr", "probe": true, "constraints": {"relevance_floor": 0.05}}`))
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := r.RelevanceFloor(); !ok || f != 0.05 || !r.Probe {
		t.Fatalf("floor %v %v, probe %v", f, ok, r.Probe)
	}
	if u := r.UnsupportedConstraints(); len(u) != 0 {
		t.Fatalf("relevance_floor reported unsupported: %v", u)
	}
	if _, ok := (&adp.DiscoverRequest{}).RelevanceFloor(); ok {
		t.Fatal("floor reported without the constraint")
	}
	for _, body := range []string{`{"constraints": {"relevance_floor": 1.5}}`, `{"constraints": {"relevance_floor": "x"}}`, `{"probe": 1}`} {
		if _, err := adp.ParseDiscoverRequest([]byte(body)); err == nil {
			t.Fatalf("%s accepted", body)
		}
	}
}

func TestDiscoverResponseCandidates(t *testing.T) {
	// The profile's candidates beside ADP's results: matched tags direct
	// and by expansion, bindings from the card's endpoints; an empty
	// answer has both lists, empty.
	c, err := adp.ParseCard([]byte(`{"id":"agent://k51x","name":"n","endpoints":[{"protocol":"https","uri":"https://x.example/v1","priority":2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := adp.DiscoverResult{ID: c.ID, Name: "n", Score: 0.4, MatchedTags: []string{"nlp"}, ExpandedTags: []string{"py"}, Status: "active"}
	cd := adp.CandidateOf(r, adp.BindingsOf(c))
	if len(cd.Bindings) != 1 || cd.Bindings[0].Endpoint != "https://x.example/v1" || *cd.Bindings[0].Priority != 2 ||
		strings.Join(cd.MatchedTags, ",") != "nlp,py" || cd.Score != 0.4 || cd.Status != "active" {
		t.Fatalf("candidate %+v", cd)
	}
	b, err := json.Marshal(&adp.DiscoverResponse{RequestID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"request_id":"r","generated_at":"","results":[],"candidates":[]}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
}

func TestParseDiscoverRequestStrict(t *testing.T) {
	// Strict: an unknown constraint fails the request, by path; the
	// constraints this package applies do not.
	_, err := adp.ParseDiscoverRequest([]byte(`{"constraints": {"strict": true, "region": "apac", "allow_stale": true}}`))
	var ue *adp.UnsupportedFilterError
	if !errors.As(err, &ue) || !errors.Is(err, adp.ErrUnsupportedFilter) || len(ue.Paths) != 1 || ue.Paths[0] != "/constraints/region" {
		t.Fatalf("strict request: %v", err)
	}
	if _, err := adp.ParseDiscoverRequest([]byte(`{"constraints": {"strict": true, "allow_stale": true, "relevance_floor": 0}}`)); err != nil {
		t.Fatalf("strict request with known constraints: %v", err)
	}
	r, err := adp.ParseDiscoverRequest([]byte(`{"constraints": {"strict": false, "region": "apac"}}`))
	if err != nil || strings.Join(r.UnsupportedConstraints(), ",") != "region" {
		t.Fatalf("lenient request: %v %v", err, r)
	}
}

// TestDiscoverResponseMarshalJSONAsMarshal: the response's MarshalJSON,
// which the service sends as is, gives json.Marshal's bytes: compact, a
// card sent with insignificant white space included.
func TestDiscoverResponseMarshalJSONAsMarshal(t *testing.T) {
	resp := &adp.DiscoverResponse{Results: []adp.DiscoverResult{{
		AgentCard: json.RawMessage("{ \"id\" : \"agent://x\",\n \"name\": \"x\" }"),
		ID:        "agent://x", Name: "x", Score: 0.5, MatchedTags: []string{"a/b"},
	}}}
	want, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := resp.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("MarshalJSON:\n%s\njson.Marshal:\n%s", got, want)
	}
	if strings.ContainsAny(string(got), " \n") {
		t.Fatalf("not compact: %s", got)
	}
}

func TestParseDiscoverRequestKnown(t *testing.T) {
	a, b := adp.CardDigest([]byte(`{"id":"a"}`)), adp.CardDigest([]byte(`{"id":"b"}`))
	if len(a) != 16 || a == b {
		t.Fatalf("digests %q and %q: want two different 16-character digests", a, b)
	}
	r, err := adp.ParseDiscoverRequest([]byte(`{"known":["` + a + `","` + b + `"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Known, []string{a, b}) {
		t.Fatalf("known %v, want [%s %s]", r.Known, a, b)
	}
	// The list as a card sync writes it round-trips through JSON.
	raw, err := json.Marshal(&adp.DiscoverRequest{Known: []string{a}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := adp.ParseDiscoverRequest(raw); err != nil || !reflect.DeepEqual(r.Known, []string{a}) {
		t.Fatalf("%s: known %v, %v", raw, r.Known, err)
	}

	full := `["` + strings.Repeat(a+`","`, adp.MaxKnownCards-1) + a + `"]`
	if r, err := adp.ParseDiscoverRequest([]byte(`{"known":` + full + `}`)); err != nil || len(r.Known) != adp.MaxKnownCards {
		t.Fatalf("%d digests: %v", adp.MaxKnownCards, err)
	}
	over := `["` + strings.Repeat(a+`","`, adp.MaxKnownCards) + a + `"]`
	for _, tc := range []struct{ body, path string }{
		{`{"known":` + over + `}`, "/known"},
		{`{"known":"` + a + `"}`, "/known"},
		{`{"known":["` + a + `",7]}`, "/known/1"},
		{`{"known":["` + a + `","` + a[:15] + `"]}`, "/known/1"},                // too short
		{`{"known":["` + a + `=="]}`, "/known/0"},                               // padded
		{`{"known":["` + strings.Replace(a, a[:1], "+", 1) + `"]}`, "/known/0"}, // not the URL alphabet
		{`{"known":["` + a[:15] + `_","` + a[:15] + `/"]}`, "/known/1"},         // the first bad entry only
	} {
		_, err := adp.ParseDiscoverRequest([]byte(tc.body))
		if got := problemPaths(t, err); !reflect.DeepEqual(got, []string{tc.path}) {
			t.Errorf("%.60s: problems %v, want [%s] (%v)", tc.body, got, tc.path, err)
		}
	}
}

// TestCardDigestIgnoresEncoding: one signed card, written with white
// space, escapes or members in another order (as a JSON library may
// re-encode a reply's agent_card), has one digest; another card has
// another.
func TestCardDigestIgnoresEncoding(t *testing.T) {
	a := `{"id":"agent://x","name":"R&D <tools>","seq":2}`
	for _, other := range []string{
		`{ "id": "agent://x", "name": "R&D <tools>", "seq": 2 }`,
		`{"id":"agent://x","name":"R\u0026D \u003ctools\u003e","seq":2}`,
		`{"seq":2,"name":"R&D <tools>","id":"agent://x"}`,
	} {
		if adp.CardDigest([]byte(other)) != adp.CardDigest([]byte(a)) {
			t.Errorf("%s: digest differs from %s's", other, a)
		}
	}
	if adp.CardDigest([]byte(`{"id":"agent://x","name":"R&D <tools>","seq":3}`)) == adp.CardDigest([]byte(a)) {
		t.Error("another seq, the same digest")
	}
	// json.Marshal's re-encoding of a RawMessage keeps the digest.
	b, err := json.Marshal(struct {
		C json.RawMessage `json:"c"`
	}{json.RawMessage(`{ "id": "agent://x", "name": "R&D <tools>", "seq": 2 }`)})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		C json.RawMessage `json:"c"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.C) == a || adp.CardDigest(back.C) != adp.CardDigest([]byte(a)) {
		t.Fatalf("re-encoded %s: digest differs (or the bytes did not change)", back.C)
	}
}

func BenchmarkCardDigest(b *testing.B) {
	raw := []byte(`{"id":"agent://k51qzi5uqu5dlz2zlnlknm4i11ku4p9q0yfcfxhqk8d0cqhyet7aq68t254m7j","name":"Lingua Translator","description":"Translates contracts between English and German.","status":"active","skills":["nlp/translation","py"],"tools":[{"name":"translate","description":"Translate text","input_schema":{"type":"object","properties":{"target_language":{"type":"string"}}}}],"endpoints":[{"protocol":"aitp","uri":"agent://k51qzi5uqu5dlz2zlnlknm4i11ku4p9q0yfcfxhqk8d0cqhyet7aq68t254m7j","methods":["translate"]},{"protocol":"https","uri":"https://lingua.example/v1","auth":"bearer"}],"constraints":{"max_concurrent_tasks":2},"examples":[{"id":"ex-legal","text":"Translate a legal contract into German"},{"id":"ex-web","text":"Localize a web page"}],"metadata":{"updated_at":"2026-04-30T00:00:00Z","ttl":3600},"seq":7,"signature":"z3Xbq9mYp8tW2cRkL5vN7hJ4gF6dS1aQ0eU9iO8yT3rE2wX5zC7vB4nM6kJ1hG9fD8sA2qW3eR4tY5uI6oP7lK"}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		adp.CardDigest(raw)
	}
}
