package wellknown_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/wellknown"
)

const tmpl = `{"aip_version":"0.1","id":"ID","name":"docs","description":"d","version":"1.0.0",` +
	`"tools":[{"name":"echo","description":"echoes"}],"metadata":{"updated_at":"2026-03-04T05:06:07Z"},"seq":1%s}`

type source struct {
	card  atomic.Pointer[adp.Card]
	sk    crypto.PrivKey
	signs atomic.Int32
}

func newSource(t *testing.T, extra string) *source {
	s := &source{sk: cardtest.Key(t, 3)}
	s.card.Store(cardtest.Card(t, 3, strings.Replace(tmpl, "%s", extra, 1)))
	return s
}

func (s *source) Card() *adp.Card     { return s.card.Load() }
func (s *source) AgentCardID() string { return "01HZQK3P8EMXR9V7T5N2W4J6C0" }
func (s *source) SignA2A(b []byte) ([]byte, error) {
	s.signs.Add(1)
	return bridge.SignA2A(b, s.sk)
}
func (s *source) DescribedCards(_ context.Context, offset, limit int) ([]*adp.Card, int, error) {
	if offset > 0 || limit < 1 {
		return nil, 1, nil
	}
	return []*adp.Card{s.Card()}, 1, nil
}
func (s *source) DescribedCard(id string) *adp.Card {
	if id == s.Card().ID {
		return s.Card()
	}
	return nil
}

var base = wellknown.Base{URL: "https://agents.example"}

// TestAgentCardID: the AgentCard agent_id is the source's ULID, unless
// the card keeps one from the AgentCard it was imported from.
func TestAgentCardID(t *testing.T) {
	for _, tt := range []struct{ name, extra, want string }{
		{"persisted ULID", "", "01HZQK3P8EMXR9V7T5N2W4J6C0"},
		{"imported agent_id kept", `,"extensions":{"agentcard":{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}}`, "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := wellknown.New(newSource(t, tt.extra)).Render(context.Background(), bridge.AgentCardWellKnownPath, base, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ac struct {
				AgentID  string `json:"agent_id"`
				Endpoint struct{ Protocol, URL string }
			}
			if err := json.Unmarshal(doc.Body, &ac); err != nil || ac.AgentID != tt.want || ac.Endpoint.URL != base.URL || ac.Endpoint.Protocol != "https" {
				t.Fatalf("AgentCard %s: %+v %v", doc.Body, ac, err)
			}
			if doc.MaxAge != wellknown.AgentCardMaxAge || doc.Modified != time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) {
				t.Errorf("max age %v, modified %v", doc.MaxAge, doc.Modified)
			}
		})
	}
}

// TestA2ASignedOnce: the A2A card verifies, and is signed again only when
// the card changes.
func TestA2ASignedOnce(t *testing.T) {
	src := newSource(t, "")
	d := wellknown.New(src)
	for i := 0; i < 3; i++ {
		doc, err := d.Render(context.Background(), bridge.A2AWellKnownPath, base, nil)
		if err != nil {
			t.Fatal(err)
		}
		if kid, err := bridge.VerifyA2A(doc.Body, nil); err != nil || kid != src.Card().ID {
			t.Fatalf("VerifyA2A: %q %v", kid, err)
		}
	}
	if n := src.signs.Load(); n != 1 {
		t.Fatalf("signed %d times for one card, want 1", n)
	}
	src.card.Store(cardtest.Card(t, 3, strings.Replace(strings.Replace(tmpl, "%s", "", 1), `"name":"docs"`, `"name":"docs 2"`, 1)))
	doc, err := d.Render(context.Background(), bridge.A2AWellKnownPath, base, nil)
	if err != nil || !strings.Contains(string(doc.Body), "docs 2") || src.signs.Load() != 2 {
		t.Fatalf("after a card change: %s %v, %d signatures", doc.Body, err, src.signs.Load())
	}
}

// TestRenderErrors: the errors an HTTP layer maps to 400 and 404.
func TestRenderErrors(t *testing.T) {
	d := wellknown.New(newSource(t, ""))
	ctx := context.Background()
	for _, tt := range []struct {
		path, page string
		want       error
	}{
		{"/.well-known/nothing", "", wellknown.ErrNotFound},
		{bridge.ANPWellKnownPath, "0", wellknown.ErrBadPage},
		{bridge.ANPWellKnownPath, "-1", wellknown.ErrBadPage},
		{bridge.ANPWellKnownPath, "x", wellknown.ErrBadPage},
		{bridge.ANPWellKnownPath, "1048577", wellknown.ErrBadPage},
	} {
		if _, err := d.Render(ctx, tt.path, base, url.Values{"page": {tt.page}}); !errors.Is(err, tt.want) {
			t.Errorf("%s?page=%s: %v, want %v", tt.path, tt.page, err, tt.want)
		}
	}
	if _, err := d.Description("k51nobody", base); !errors.Is(err, wellknown.ErrNotFound) {
		t.Errorf("Description of an unknown agent: %v", err)
	}
	for _, p := range wellknown.Paths() {
		if _, err := d.Render(ctx, p, base, nil); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestWrite: the caching headers and the conditional answers.
func TestWrite(t *testing.T) {
	doc := &wellknown.Document{Body: []byte(`{"a":1}` + "\n"), ContentType: wellknown.JSONType, MaxAge: wellknown.MaxAge,
		Modified: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
	etag := wellknown.ETag(doc.Body)
	if etag == wellknown.ETag([]byte(`{"a":2}`+"\n")) || !strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, "W/") {
		t.Fatalf("ETag %s: want a strong tag that differs per body", etag)
	}
	for _, tt := range []struct {
		name, method string
		hdr          map[string]string
		status       int
		body         bool
	}{
		{"plain", "GET", nil, 200, true},
		{"HEAD", "HEAD", nil, 200, false},
		{"matching ETag", "GET", map[string]string{"If-None-Match": etag}, 304, false},
		{"one of several ETags", "GET", map[string]string{"If-None-Match": `"x", ` + etag}, 304, false},
		{"other ETag", "GET", map[string]string{"If-None-Match": `"x"`}, 200, true},
		{"other ETag wins over a date", "GET", map[string]string{"If-None-Match": `"x"`, "If-Modified-Since": "Wed, 04 Mar 2026 05:06:07 GMT"}, 200, true},
		{"not modified since", "GET", map[string]string{"If-Modified-Since": "Wed, 04 Mar 2026 05:06:07 GMT"}, 304, false},
		{"modified since", "GET", map[string]string{"If-Modified-Since": "Tue, 03 Mar 2026 05:06:07 GMT"}, 200, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/x", nil)
			for k, v := range tt.hdr {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			wellknown.Write(w, r, doc)
			h := w.Header()
			if w.Code != tt.status || (w.Body.Len() > 0) != tt.body {
				t.Fatalf("%d with %d body bytes, want %d (body %v)", w.Code, w.Body.Len(), tt.status, tt.body)
			}
			// A 304 keeps the validator and the cache lifetime (RFC 9110
			// 15.4.5); net/http leaves Last-Modified and Content-Type out.
			if h.Get("ETag") != etag || h.Get("Cache-Control") != "public, max-age=300" {
				t.Errorf("headers %v", h)
			}
			if w.Code == 200 && (h.Get("Content-Type") != "application/json; charset=utf-8" || h.Get("Last-Modified") != "Wed, 04 Mar 2026 05:06:07 GMT") {
				t.Errorf("headers of a 200: %v", h)
			}
		})
	}
}
