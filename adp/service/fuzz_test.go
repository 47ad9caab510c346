package service_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
)

// FuzzServe hands any body to each method the service answers
// (adp.describe, adp.advertise, adp.discover): a handler never panics,
// and it either answers or fails with an *aitp.Error whose status is
// INVALID_REQUEST or UNAUTHORIZED (a card of another agent than the
// caller's), never an internal failure; what adp.advertise hands to its
// sink is always the caller's own verified card.
func FuzzServe(f *testing.F) {
	sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	caller, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		f.Fatal(err)
	}
	own := &adp.Card{
		Name: "server", Description: "answers", Skills: []string{"nlp/translation"},
		Tools:     []adp.Tool{{Name: "t", Description: "d"}},
		Endpoints: []adp.Endpoint{{Protocol: "aitp", URI: "agent://self"}},
	}
	if err := own.Sign(sk); err != nil {
		f.Fatal(err)
	}
	callerCard := &adp.Card{
		Name: "caller", Description: "calls", Skills: []string{"vision/ocr"},
		Tools:     []adp.Tool{{Name: "t", Description: "d"}},
		Endpoints: []adp.Endpoint{{Protocol: "aitp", URI: "agent://self"}},
	}
	if err := callerCard.Sign(sk); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []struct {
		m    uint8
		body []byte
	}{
		{0, nil}, {0, []byte(`{"fields":["name","skills"]}`)}, {0, []byte(`{"fields":[1]}`)},
		{1, callerCard.Raw()}, {1, []byte(`{"id":"agent://x"}`)}, {1, []byte(`[]`)},
		{2, []byte(`{"query":"translate","tags":["nlp/*"],"limit":3}`)}, {2, []byte(`{"querry":1}`)}, {2, []byte(`{"limit":1e999}`)},
	} {
		f.Add(seed.m, seed.body)
	}
	sink := &recordingSink{}
	disc := &fakeDiscoverer{resp: &adp.DiscoverResponse{}}
	sv := service.New(service.CardSourceFunc(func() *adp.Card { return own }),
		service.WithCardSink(sink), service.WithDiscoverer(disc))
	serve := []func(context.Context, aitp.ResponseWriter, *aitp.Request) error{sv.ServeDescribe, sv.ServeAdvertise, sv.ServeDiscover}
	f.Fuzz(func(t *testing.T, m uint8, body []byte) {
		var out bytes.Buffer
		err := serve[int(m)%len(serve)](context.Background(), &out, &aitp.Request{Remote: caller, Body: body})
		var e *aitp.Error
		switch {
		case err == nil:
		case errors.As(err, &e) && (e.Status == aitp.StatusInvalidRequest || e.Status == aitp.StatusUnauthorized):
			if e.Path != "" && e.Path[0] != '/' {
				t.Fatalf("error path %q is not a JSON Pointer", e.Path)
			}
		default:
			t.Fatalf("method %d: %v", m%3, err)
		}
		sink.mu.Lock()
		defer sink.mu.Unlock()
		for _, c := range sink.cards {
			if c.ID != adp.AgentID(caller) || c.Verify() != nil {
				t.Fatalf("advertise handed the sink %s, not the caller's verified card", c.ID)
			}
		}
		sink.cards, sink.from = nil, nil
	})
}
