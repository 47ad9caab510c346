package service_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2phost"
)

// methodsHost starts a loopback TCP host with a fresh Ed25519 key, built
// as a node builds its own.
func methodsHost(t *testing.T) (host.Host, crypto.PrivKey) {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2phost.New(sk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, sk
}

func methodsCard(t *testing.T, sk crypto.PrivKey, name string) *adp.Card {
	t.Helper()
	c := &adp.Card{
		Name:        name,
		Description: "translates between Chinese and English",
		Skills:      []string{"nlp/translation"},
		Tools:       []adp.Tool{{Name: "translate", Description: "translate text"}},
		Endpoints:   []adp.Endpoint{{Protocol: "aitp", URI: "agent://self"}},
		Status:      "active",
	}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c
}

type recordingSink struct {
	mu    sync.Mutex
	cards []*adp.Card
	from  []peer.ID
}

func (s *recordingSink) AdvertisedCard(_ context.Context, c *adp.Card, from peer.ID) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cards, s.from = append(s.cards, c), append(s.from, from)
	return true, nil
}

type fakeDiscoverer struct {
	got  *adp.DiscoverRequest
	resp *adp.DiscoverResponse
}

func (d *fakeDiscoverer) Discover(_ context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	d.got = req
	return d.resp, nil
}

type methodsEnv struct {
	server, caller       host.Host
	serverKey, callerKey crypto.PrivKey
	serverCard           *adp.Card
	sink                 *recordingSink
	disc                 *fakeDiscoverer
	cl                   *aitp.Client
}

func newMethodsEnv(t *testing.T) *methodsEnv {
	t.Helper()
	e := &methodsEnv{sink: &recordingSink{}, disc: &fakeDiscoverer{}}
	e.server, e.serverKey = methodsHost(t)
	e.caller, e.callerKey = methodsHost(t)
	e.serverCard = methodsCard(t, e.serverKey, "server-agent")
	srv, err := aitp.NewServer(e.server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	service.New(service.CardSourceFunc(func() *adp.Card { return e.serverCard }),
		service.WithCardSink(e.sink), service.WithDiscoverer(e.disc)).Register(srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.caller.Connect(ctx, peer.AddrInfo{ID: e.server.ID(), Addrs: e.server.Addrs()}); err != nil {
		t.Fatal(err)
	}
	e.cl = aitp.NewClient(e.caller)
	t.Cleanup(func() { e.cl.Close() })
	return e
}

func methodsCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func wantRemoteError(t *testing.T, err error, st aitp.Status, path string) *aitp.Error {
	t.Helper()
	var e *aitp.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *aitp.Error %v, got %v", st, err)
	}
	if e.Status != st || e.Path != path {
		t.Fatalf("got %v at %q (%s), want %v at %q", e.Status, e.Path, e.Message, st, path)
	}
	return e
}

func TestDescribe(t *testing.T) {
	e := newMethodsEnv(t)
	c, err := service.Describe(methodsCtx(t), e.cl, e.server.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Raw(), e.serverCard.Raw()) {
		t.Fatal("describe did not return the card as signed")
	}
	sub, err := service.Describe(methodsCtx(t), e.cl, e.server.ID(), "skills", "nonexistent")
	if err != nil {
		t.Fatal(err)
	}
	if sub.ID != e.serverCard.ID || sub.Name != "server-agent" || len(sub.Skills) != 1 || sub.Tools != nil || sub.Description != "" {
		t.Fatalf("fields subset: %+v", sub)
	}
	for body, path := range map[string]string{
		`{"fields": 3}`:        "/fields",
		`{"fields": ["a", 7]}`: "/fields/1",
		`[1]`:                  "",
		`{"fields": [""]}`:     "/fields/0",
	} {
		_, err := e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodDescribe, []byte(body))
		wantRemoteError(t, err, aitp.StatusInvalidRequest, path)
	}
	// A node without a card answers NOT_FOUND.
	e.serverCard = nil
	_, err = service.Describe(methodsCtx(t), e.cl, e.server.ID())
	wantRemoteError(t, err, aitp.StatusNotFound, "")
}

func TestAdvertise(t *testing.T) {
	e := newMethodsEnv(t)
	own := methodsCard(t, e.callerKey, "caller-agent")
	stored, err := service.Advertise(methodsCtx(t), e.cl, e.server.ID(), own)
	if err != nil || !stored {
		t.Fatalf("own card: stored %v, %v", stored, err)
	}
	e.sink.mu.Lock()
	if len(e.sink.cards) != 1 || e.sink.cards[0].ID != own.ID || e.sink.from[0] != e.caller.ID() {
		t.Fatalf("sink got %d cards", len(e.sink.cards))
	}
	e.sink.mu.Unlock()

	// Someone else's valid card: the caller is not its agent.
	thirdKey, _, _ := crypto.GenerateEd25519Key(rand.Reader)
	other := methodsCard(t, thirdKey, "someone-else")
	_, err = service.Advertise(methodsCtx(t), e.cl, e.server.ID(), other)
	wantRemoteError(t, err, aitp.StatusUnauthorized, "/id")

	// An invalid card of the caller's own: every problem listed, the first
	// one's path.
	var doc map[string]any
	if err := json.Unmarshal(own.Raw(), &doc); err != nil {
		t.Fatal(err)
	}
	doc["tools"] = []any{map[string]any{"name": ""}}
	doc["status"] = "sleeping"
	bad, _ := json.Marshal(doc)
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodAdvertise, bad)
	re := wantRemoteError(t, err, aitp.StatusInvalidRequest, "/status")
	if !strings.Contains(re.Message, "/tools/0/name") {
		t.Fatalf("message does not list every problem: %q", re.Message)
	}
	// A tampered signature.
	doc = nil
	json.Unmarshal(own.Raw(), &doc)
	doc["name"] = "impostor"
	tampered, _ := json.Marshal(doc)
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodAdvertise, tampered)
	wantRemoteError(t, err, aitp.StatusInvalidRequest, "/signature")
	// Not JSON at all.
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodAdvertise, []byte("not json"))
	wantRemoteError(t, err, aitp.StatusInvalidRequest, "")
	// A card of the maximum size spans two messages and is accepted.
	big := methodsCard(t, e.callerKey, "caller-agent")
	big.Description = "x"
	if err := big.Sign(e.callerKey); err != nil {
		t.Fatal(err)
	}
	big.Description = strings.Repeat("d", adp.MaxCardSize-(len(big.Raw())-1))
	if err := big.Sign(e.callerKey); err != nil {
		t.Fatal(err)
	}
	if n := len(big.Raw()); n != adp.MaxCardSize {
		t.Fatalf("card of %d octets, want the maximum", n)
	}
	if stored, err := service.Advertise(methodsCtx(t), e.cl, e.server.ID(), big); err != nil || !stored {
		t.Fatalf("%d-octet card: %v %v", len(big.Raw()), stored, err)
	}
}

func TestDiscover(t *testing.T) {
	e := newMethodsEnv(t)
	e.disc.resp = &adp.DiscoverResponse{
		RequestID: "r1", GeneratedAt: "2026-03-24T12:00:00Z",
		Results: []adp.DiscoverResult{{
			AgentCard: e.serverCard.Raw(), ID: e.serverCard.ID, Name: "server-agent",
			Score: 0.8, MatchedTags: []string{"nlp/translation"},
			ScoreComponents: map[string]float64{"tag": 1}, Weights: map[string]float64{"tag": 0.8},
		}},
		UnsupportedFilters: []string{"constraints.region"},
	}
	resp, err := service.Discover(methodsCtx(t), e.cl, e.server.ID(), &adp.DiscoverRequest{
		Tags: []string{"nlp/translation"}, IncludeEvidence: true,
		Constraints: map[string]json.RawMessage{"region": json.RawMessage(`"eu"`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.disc.got == nil || e.disc.got.Limit != 10 || *e.disc.got.MinScore != 0.1 || !e.disc.got.IncludeEvidence {
		t.Fatalf("discoverer got %+v", e.disc.got)
	}
	if len(resp.Results) != 1 || resp.Results[0].Score != 0.8 || resp.Results[0].ID != e.serverCard.ID ||
		resp.UnsupportedFilters[0] != "constraints.region" || resp.Results[0].Weights["tag"] != 0.8 {
		t.Fatalf("response %+v", resp)
	}
	if _, err := adp.DecodeVerified(resp.Results[0].AgentCard); err != nil {
		t.Fatalf("agent_card no longer verifies: %v", err)
	}
	// A discoverer breaking its contract (no response, no error) is an
	// internal error, answered without a panic and without local detail.
	e.disc.resp = nil
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodDiscover, []byte(`{"tags":["ok"]}`))
	if re := wantRemoteError(t, err, aitp.StatusError, ""); re.Code != aitp.CodeInternal || strings.Contains(re.Message, "discoverer") {
		t.Fatalf("nil response answered %q: %q", re.Code, re.Message)
	}
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodDiscover, []byte(`{"tags":["ok"],"limit":1000}`))
	wantRemoteError(t, err, aitp.StatusInvalidRequest, "/limit")
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodDiscover, []byte(`{"querry":"ocr"}`))
	wantRemoteError(t, err, aitp.StatusInvalidRequest, "/querry")
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodDiscover, []byte(`{"constraints":{"strict":true,"region":"apac"}}`))
	if re := wantRemoteError(t, err, aitp.StatusInvalidRequest, "/constraints/region"); re.Code != aitp.CodeUnsupportedFilter {
		t.Fatalf("strict request answered %q", re.Code)
	}
	_, err = e.cl.Call(methodsCtx(t), e.server.ID(), service.MethodDiscover, []byte(`{"tags":`))
	wantRemoteError(t, err, aitp.StatusInvalidRequest, "")
}

// gatedDiscoverer tells entered on each call and answers when gate gives
// a value.
type gatedDiscoverer struct{ entered, gate chan struct{} }

func (d *gatedDiscoverer) Discover(ctx context.Context, _ *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	d.entered <- struct{}{}
	select {
	case <-d.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &adp.DiscoverResponse{RequestID: "r", Results: []adp.DiscoverResult{}}, nil
}

// TestMaxDiscovering: with one discovery slot taken, a second call waits
// DiscoverQueueWait and is answered BUSY (code busy); once the slot frees
// a call runs again.
func TestMaxDiscovering(t *testing.T) {
	server, serverKey := methodsHost(t)
	caller, _ := methodsHost(t)
	card := methodsCard(t, serverKey, "server-agent")
	srv, err := aitp.NewServer(server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	d := &gatedDiscoverer{entered: make(chan struct{}, 2), gate: make(chan struct{})}
	service.New(service.CardSourceFunc(func() *adp.Card { return card }),
		service.WithDiscoverer(d), service.WithMaxDiscovering(1)).Register(srv)
	ctx := methodsCtx(t)
	if err := caller.Connect(ctx, peer.AddrInfo{ID: server.ID(), Addrs: server.Addrs()}); err != nil {
		t.Fatal(err)
	}
	cl := aitp.NewClient(caller)
	t.Cleanup(func() { cl.Close() })
	call := func() error {
		_, err := cl.Call(ctx, server.ID(), service.MethodDiscover, []byte(`{"tags":["ok"]}`))
		return err
	}
	first := make(chan error, 1)
	go func() { first <- call() }()
	<-d.entered
	re := wantRemoteError(t, call(), aitp.StatusBusy, "")
	if re.Code != aitp.CodeBusy {
		t.Fatalf("a call past the bound: code %q, want %q", re.Code, aitp.CodeBusy)
	}
	d.gate <- struct{}{}
	if err := <-first; err != nil {
		t.Fatalf("the running call: %v", err)
	}
	third := make(chan error, 1)
	go func() { third <- call() }()
	<-d.entered
	d.gate <- struct{}{}
	if err := <-third; err != nil {
		t.Fatalf("a call after the slot freed: %v", err)
	}
}
