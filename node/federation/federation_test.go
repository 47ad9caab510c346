package federation_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/federation"
)

// network is a node's view of a small network held in memory: directory
// peers with their answers, DHT providers by tag with their cards, and
// the cards the node holds. Every card is a real signed card.
type network struct {
	self      peer.ID
	dirs      map[peer.ID]string
	answers   map[peer.ID]*adp.DiscoverResponse // a directory missing here does not answer
	providers map[string][]peer.AddrInfo
	cards     map[peer.ID]*adp.Card // what each provider describes

	mu      sync.Mutex
	held    map[string]*adp.Card
	fetched []peer.ID
	asked   []*adp.DiscoverRequest
}

func (n *network) Self() peer.ID { return n.self }

func (n *network) Directories(context.Context) map[peer.ID]string { return n.dirs }

func (n *network) AskDirectory(_ context.Context, p peer.ID, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	n.mu.Lock()
	n.asked = append(n.asked, req)
	n.mu.Unlock()
	if a, ok := n.answers[p]; ok {
		return a, nil
	}
	return nil, errors.New("connection refused")
}

func (n *network) Check(raw []byte) (*adp.Card, error) { return adp.DecodeVerified(raw) }

func (n *network) FindByTag(_ context.Context, tag string, max int) ([]peer.AddrInfo, error) {
	ps := n.providers[tag]
	return ps[:min(len(ps), max)], nil
}

func (n *network) Holds(id string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.held[id] != nil
}

func (n *network) Fetch(_ context.Context, ai peer.AddrInfo) (*adp.Card, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fetched = append(n.fetched, ai.ID)
	c, ok := n.cards[ai.ID]
	if !ok {
		return nil, errors.New("no answer")
	}
	n.held[c.ID] = c
	return c, nil
}

func (n *network) Keep(_ context.Context, f discovery.Federated) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.held[f.Card.ID] != nil {
		return false
	}
	n.held[f.Card.ID] = f.Card
	return true
}

func (n *network) AwaitIndexed(context.Context, ...*adp.Card) {}

// Local ranks every held card alike, in id order.
func (n *network) Local(context.Context, *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	resp := &adp.DiscoverResponse{}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range n.held {
			if !yield(id) {
				return
			}
		}
	}) {
		c := n.held[id]
		resp.Results = append(resp.Results, adp.DiscoverResult{AgentCard: c.Raw(), ID: c.ID, Name: c.Name, Score: 0.5})
	}
	return resp, nil
}

func card(t *testing.T, b byte, name string) (*adp.Card, peer.ID) {
	t.Helper()
	c := cardtest.Card(t, b, fmt.Sprintf(`{"id": "ID", "name": %q, "skills": ["nlp/translation"], "tools": [], "endpoints": []}`, name))
	p, err := c.PeerID()
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

func result(c *adp.Card, score float64) adp.DiscoverResult {
	return adp.DiscoverResult{AgentCard: c.Raw(), ID: c.ID, Name: c.Name, Score: score}
}

// TestDiscover: one directory answers, one does not; a directory result
// whose card does not verify is refused; the tag's providers not held are
// fetched, the node itself never; the answer merges all that with the
// local ranking and lists the silent directory among its warnings.
func TestDiscover(t *testing.T) {
	_, self := card(t, 1, "self")
	held, _ := card(t, 2, "held here")
	viaDir, _ := card(t, 3, "from the directory")
	forged, _ := card(t, 4, "forged")
	viaDHT, provider := card(t, 5, "from the DHT")
	_, dirUp := card(t, 10, "directory up")
	_, dirDown := card(t, 11, "directory down")

	bad := result(forged, 0.9)
	bad.AgentCard = []byte(strings.Replace(string(forged.Raw()), `"forged"`, `"changed"`, 1))
	nw := &network{
		self: self,
		dirs: map[peer.ID]string{dirUp: adp.AgentID(dirUp), dirDown: adp.AgentID(dirDown)},
		answers: map[peer.ID]*adp.DiscoverResponse{dirUp: {Results: []adp.DiscoverResult{
			result(viaDir, 0.9), bad, result(held, 0.8),
		}}},
		providers: map[string][]peer.AddrInfo{"nlp/translation": {{ID: self}, {ID: provider}}},
		cards:     map[peer.ID]*adp.Card{provider: viaDHT},
		held:      map[string]*adp.Card{held.ID: held},
	}
	req := &adp.DiscoverRequest{Tags: []string{"nlp/translation"}, Detail: adp.DetailSummary}
	resp, err := federation.New(nw, nil).Discover(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range resp.Results {
		got = append(got, r.Name)
	}
	slices.Sort(got)
	if want := []string{"from the DHT", "from the directory", "held here"}; !slices.Equal(got, want) {
		t.Fatalf("results %q, want %q", got, want)
	}
	if !slices.Equal(nw.fetched, []peer.ID{provider}) {
		t.Errorf("fetched %v, want the provider only", nw.fetched)
	}
	if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], adp.AgentID(dirDown)) {
		t.Errorf("warnings %q, want the silent directory", resp.Warnings)
	}
	for _, q := range nw.asked {
		if q.Detail != adp.DetailFull {
			t.Errorf("a directory was asked for detail %q, want full signed cards", q.Detail)
		}
	}
	if req.Detail != adp.DetailSummary {
		t.Errorf("the caller's request was changed: detail %q", req.Detail)
	}
	if !nw.Holds(viaDir.ID) || nw.Holds(forged.ID) {
		t.Errorf("held after the search: directory's card %v, forged card %v", nw.Holds(viaDir.ID), nw.Holds(forged.ID))
	}
}

// TestDiscoverBoundsFetches: tags whose providers together are more than
// MaxProviderFetches fetch that many cards, each once though a provider
// serves several tags.
func TestDiscoverBoundsFetches(t *testing.T) {
	_, self := card(t, 1, "self")
	nw := &network{self: self, providers: map[string][]peer.AddrInfo{}, cards: map[peer.ID]*adp.Card{}, held: map[string]*adp.Card{}}
	provide := func(tag string, b byte) {
		c, p := card(t, b, fmt.Sprintf("provider %d", b))
		nw.cards[p] = c
		nw.providers[tag] = append(nw.providers[tag], peer.AddrInfo{ID: p})
	}
	for i := range byte(federation.MaxTagProviders) {
		provide("nlp/translation", 20+i)
		provide("coding/review", 60+i)
		if i < federation.MaxTagProviders/2 {
			provide("nlp/summarization", 20+i) // also a translation provider
		} else {
			provide("nlp/summarization", 100+i)
		}
	}
	req := &adp.DiscoverRequest{Tags: []string{"nlp/translation", "nlp/summarization", "coding/review"}}
	if _, err := federation.New(nw, nil).Discover(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if len(nw.fetched) != federation.MaxProviderFetches {
		t.Fatalf("%d cards fetched, want %d", len(nw.fetched), federation.MaxProviderFetches)
	}
	seen := map[peer.ID]bool{}
	for _, p := range nw.fetched {
		if seen[p] {
			t.Fatalf("%s fetched twice", p)
		}
		seen[p] = true
	}
}
