package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// inertService answers every call of the HTTP API with an empty result
// or ErrNotFound, so that a fuzzed request exercises the decoding and
// checks of the API and nothing behind them. Events returns a closed
// channel: a stream ends at once.
type inertService struct{}

func (inertService) AgentID() string { return "agent://k51a" }
func (inertService) APIURL() string  { return "http://127.0.0.1:5001" }
func (inertService) Card() *adp.Card { return &adp.Card{ID: "agent://k51a", Name: "inert"} }
func (inertService) SetCard(context.Context, *adp.Card) (*adp.Card, error) {
	return nil, store.ErrNotFound
}
func (inertService) CardPage(context.Context, int, int) ([]*store.Record, int, error) {
	return nil, 0, nil
}
func (inertService) LookupCard(context.Context, string) (*store.Record, error) {
	return nil, store.ErrNotFound
}
func (inertService) DescribedCards(context.Context, int, int) ([]*adp.Card, int, error) {
	return nil, 0, nil
}
func (inertService) DescribedCard(string) *adp.Card { return nil }
func (inertService) Discover(context.Context, *adp.DiscoverRequest, string) (*adp.DiscoverResponse, error) {
	return &adp.DiscoverResponse{}, nil
}
func (inertService) Describe(context.Context, string, []string) (json.RawMessage, error) {
	return nil, store.ErrNotFound
}
func (inertService) Invoke(context.Context, string, string, []byte) (*nodeapi.InvokeResult, error) {
	return nil, store.ErrNotFound
}
func (inertService) InvokeStream(context.Context, string, string, []byte, func(json.RawMessage) error) error {
	return store.ErrNotFound
}
func (inertService) Rate(context.Context, string, int) error { return store.ErrNotFound }
func (inertService) Stats(context.Context, string) (store.Stats, error) {
	return store.Stats{}, store.ErrNotFound
}
func (inertService) Advertise(context.Context, string) (bool, error) { return false, store.ErrNotFound }
func (inertService) PeerInfos() []nodeapi.PeerInfo                   { return nil }
func (inertService) Events(int) (<-chan nodeapi.Event, func(), error) {
	ch := make(chan nodeapi.Event)
	close(ch)
	return ch, func() {}, nil
}
func (inertService) Status() nodeapi.Status { return nodeapi.Status{Addrs: []string{}} }
func (inertService) AgentCardID() string    { return "01JDR4S0000000000000000000" }
func (inertService) SignA2A(card []byte) ([]byte, error) {
	return card, nil
}
func (inertService) Arrivals(...string) []nodeapi.Arrival { return nil }
func (inertService) Network(context.Context) (*nodeapi.Network, error) {
	return &nodeapi.Network{}, nil
}

// fuzzRoutes are the routes that take a body or query parameters.
var fuzzRoutes = []struct{ method, path string }{
	{http.MethodPut, "/v1/card"},
	{http.MethodPost, "/v1/discover"},
	{http.MethodPost, "/v1/describe"},
	{http.MethodPost, "/v1/invoke"},
	{http.MethodPost, "/v1/ratings"},
	{http.MethodPost, "/v1/advertise"},
	{http.MethodGet, "/v1/cards"},
	{http.MethodGet, "/v1/cards/agent%3A%2F%2Fk51a"},
	{http.MethodGet, "/v1/events"},
	{http.MethodGet, "/v1/status"},
	{http.MethodGet, "/agents/agent%3A%2F%2Fk51a/ad.json"},
}

// FuzzAPIRoutes sends any body and query string to every route of the
// HTTP API that reads one (including GET /v1/events, whose query the
// API ignores): the API never panics and answers either a success or an
// error in its error model (a 4xx status with a JSON body carrying a code
// and, when present, a JSON Pointer path); it never fails with a 5xx on
// what a client sent, the service behind it being inert.
func FuzzAPIRoutes(f *testing.F) {
	for i, seed := range []struct{ query, body string }{
		{"", `{"id":"agent://k51a","name":"x"}`},
		{"scope=network", `{"tags":["nlp/*"],"limit":3,"include_evidence":true}`},
		{"", `{"agent":"agent://k51b","fields":["name"]}`},
		{"", `{"agent":"agent://k51b","method":"echo","body":{},"stream":true}`},
		{"", `{"agent":"agent://k51b","stars":5}`},
		{"", `{"agent":"agent://k51b"}`},
		{"limit=5&offset=2", ``},
		{"format=a2a", ``},
		{"since=1&topic=cards", ``},
		{"%zz", `{`},
		{"limit=-1&offset=1e9", `[]`},
	} {
		f.Add(uint8(i), seed.query, []byte(seed.body))
	}
	h := httpapi.NewHandler(inertService{})
	f.Fuzz(func(t *testing.T, route uint8, query string, body []byte) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		req := httptest.NewRequest(rt.method, "http://127.0.0.1:5001"+rt.path, bytes.NewReader(body))
		req.URL.RawQuery = query // as sent: the API parses it
		target := req.URL.String()
		if len(body) > 0 {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch code := rec.Code; {
		case code >= 200 && code < 300:
		case code >= 400 && code < 500:
			var e httpapi.Error
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code == "" {
				t.Fatalf("%s %s: %d with a body outside the error model: %q", rt.method, target, code, rec.Body.Bytes())
			}
			if e.Path != "" && e.Path[0] != '/' {
				t.Fatalf("%s %s: error path %q is not a JSON Pointer", rt.method, target, e.Path)
			}
		default:
			t.Fatalf("%s %s: status %d: %s", rt.method, target, code, rec.Body.Bytes())
		}
	})
}
