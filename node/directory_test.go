package node_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
)

// TestDirectoryHoldsEveryCard: in an 8-node network one directory peer
// ends up holding every card, and a network-scope discovery on a node that
// holds only a few cards finds the others through it, with provenance.
func TestDirectoryHoldsEveryCard(t *testing.T) {
	dir := startNode(t, testNode{name: "Directory", directory: true})
	boot := []string{addrOf(t, dir)}
	topics := []string{"finance/invoicing", "nlp/translation", "vision/ocr", "code/review", "data/cleaning", "legal/contracts", "travel/booking"}
	nodes := []*node.Node{dir}
	for i, tag := range topics {
		nodes = append(nodes, startNode(t, testNode{
			name:        fmt.Sprintf("agent %d", i),
			description: "An agent for " + tag,
			skills:      []string{tag},
			bootstrap:   boot,
		}))
	}
	t0 := time.Now()
	polltest.For(t, 30*time.Second, "the directory holds every card", func() bool {
		return dir.CardCount() == len(nodes)
	})
	t.Logf("directory full after %v", time.Since(t0))
	if !dir.Directory() || !containsSkill(dir, node.DirectorySkill) {
		t.Fatalf("directory card lacks %s", node.DirectorySkill)
	}

	// A node that joins late and hears only the directory still finds any
	// agent by scope=network, with the directory's provenance.
	late := startNode(t, testNode{name: "latecomer", bootstrap: boot})
	polltest.For(t, 20*time.Second, "the latecomer knows the directory", func() bool {
		for _, p := range late.PeerInfos() {
			if p.Directory {
				return true
			}
		}
		return false
	})
	t.Logf("latecomer knows the directory after %v", time.Since(t0))
	r := discoverAPI(t, late, "network", `{"tags":["legal/contracts"]}`)
	t.Logf("network discovery done after %v", time.Since(t0))
	want := nodes[6].AgentID()
	if len(r.Results) == 0 || r.Results[0].ID != want {
		t.Fatalf("network discovery: %v, want %s first", r.ids(), want)
	}
	if r.Results[0].OriginService != dir.AgentID() && late.CardCount() < len(nodes) {
		t.Fatalf("federated result without provenance: %+v", r.Results[0])
	}
	for _, res := range r.Results {
		if res.OriginService != "" && res.ReceivedAt == "" {
			t.Fatalf("origin_service without received_at: %+v", res)
		}
	}
	if code, body := api(t, late, "POST", "/v1/discover?scope=everywhere", `{}`); code != 400 {
		t.Fatalf("bad scope: %d %s", code, body)
	}
}

func containsSkill(n *node.Node, skill string) bool {
	for _, s := range n.Card().Skills {
		if s == skill {
			return true
		}
	}
	return false
}

// TestRestartKeepsCards: a node closed and started again on the same data
// directory still holds the cards it had, before it hears from anyone.
func TestRestartKeepsCards(t *testing.T) {
	a := startNode(t, testNode{name: "a", skills: []string{"test/a"}})
	b := startNode(t, testNode{name: "b", skills: []string{"test/b"}, bootstrap: []string{addrOf(t, a)}})
	c := startNode(t, testNode{name: "c", skills: []string{"test/c"}, bootstrap: []string{addrOf(t, a)}, noAPI: true})
	polltest.For(t, 20*time.Second, "b holds every card", func() bool { return b.CardCount() == 3 })

	dataDir := b.DataDir()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	a.Close()
	c.Close()

	b2 := startNode(t, testNode{dataDir: dataDir})
	if got := b2.CardCount(); got != 3 {
		t.Fatalf("restarted node holds %d cards, want 3", got)
	}
	recs, err := b2.Cards(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := rec.Card.Verify(); err != nil {
			t.Fatalf("card %s after restart: %v", rec.Card.ID, err)
		}
	}
	if r := discoverAPI(t, b2, "local", `{"tags":["test/c"]}`); !r.has(c.AgentID()) {
		t.Fatalf("restarted node's index lacks c: %v", r.ids())
	}
}

// TestStaleCardRefetched: a held card past its freshness is fetched again
// (from the DHT or its owner) when asked for, and is fresh afterwards.
func TestStaleCardRefetched(t *testing.T) {
	a := startNode(t, testNode{name: "a"})
	b := startNode(t, testNode{name: "b", bootstrap: []string{addrOf(t, a)}, cardTTL: 1500 * time.Millisecond}) // the store refreshes an equal card only when that extends it by 1 s or more
	ctx := context.Background()
	polltest.For(t, 20*time.Second, "b holds a's card", func() bool { return b.CardCount() == 2 })
	var first time.Time
	polltest.For(t, 20*time.Second, "a's card goes stale on b", func() bool {
		recs, _ := b.Cards(ctx)
		for _, r := range recs {
			if r.Card.ID == a.AgentID() {
				first = r.ReceivedAt
				return r.Stale(time.Now())
			}
		}
		return false
	})
	rec, err := b.LookupCard(ctx, a.AgentID())
	if err != nil {
		t.Fatal(err)
	}
	if !rec.ReceivedAt.After(first) || rec.Stale(time.Now().Add(-100*time.Millisecond)) {
		t.Fatalf("card not refetched: received %v (first %v), expires %v", rec.ReceivedAt, first, rec.ExpiresAt)
	}
	code, body := api(t, b, "GET", "/v1/cards/"+a.AgentID(), "")
	if code != 200 || !strings.Contains(body, `"stale":false`) {
		t.Fatalf("GET card: %d %s", code, body)
	}
}

// TestMaxCardsDefaults: a plain node and a directory peer get their own
// default bound on held cards, and the status reports it.
func TestMaxCardsDefaults(t *testing.T) {
	plain := startNode(t, testNode{name: "plain", noAPI: true})
	dir := startNode(t, testNode{name: "directory", directory: true, noAPI: true})
	set := startNode(t, testNode{name: "set", noAPI: true, maxCards: 7})
	for _, tc := range []struct {
		n    *node.Node
		want int
	}{{plain, node.DefaultMaxCards}, {dir, node.DefaultDirectoryMaxCards}, {set, 7}} {
		if got := tc.n.Status().MaxCards; got != tc.want {
			t.Errorf("%s: max cards %d, want %d", tc.n.Card().Name, got, tc.want)
		}
	}
}
