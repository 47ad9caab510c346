package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestADPMethodsOverAITP calls a node's ADP methods as a remote peer does
// and checks their answers and the JSON paths of their errors.
func TestADPMethodsOverAITP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a := startNode(t, testNode{name: "server", skills: []string{"text/summarization"}})
	b := startNode(t, testNode{name: "client", noAPI: true})
	if err := b.Host().Connect(ctx, peer.AddrInfo{ID: a.PeerID(), Addrs: a.Host().Addrs()}); err != nil {
		t.Fatal(err)
	}
	cl := aitp.NewClient(b.Host())
	defer cl.Close()
	remoteErr := func(what string, err error, st aitp.Status, path string) {
		t.Helper()
		var ae *aitp.Error
		if !errors.As(err, &ae) || ae.Status != st || ae.Path != path {
			t.Fatalf("%s: %v, want status %v at %q", what, err, st, path)
		}
	}

	full, err := service.Describe(ctx, cl, a.PeerID())
	if err != nil || string(full.Raw()) != string(a.Card().Raw()) {
		t.Fatalf("describe: %v", err)
	}
	sub, err := service.Describe(ctx, cl, a.PeerID(), "skills", "no_such_field")
	if err != nil || sub.ID != a.AgentID() || sub.Name != "server" || len(sub.Skills) != 1 || sub.Signature != "" {
		t.Fatalf("describe skills: %+v %v", sub, err)
	}
	_, err = cl.Call(ctx, a.PeerID(), service.MethodDescribe, []byte(`{"fields":["name",7]}`))
	remoteErr("describe with a number among the fields", err, aitp.StatusInvalidRequest, "/fields/1")
	_, err = cl.Call(ctx, a.PeerID(), service.MethodDescribe, []byte(`{"fields":"name"}`))
	remoteErr("describe with a string for fields", err, aitp.StatusInvalidRequest, "/fields")

	_, err = service.Advertise(ctx, cl, a.PeerID(), a.Card())
	remoteErr("advertise of another agent's card", err, aitp.StatusUnauthorized, "/id")
	_, err = cl.Call(ctx, a.PeerID(), service.MethodAdvertise, []byte(`{"id":"`+b.AgentID()+`","name":"unsigned"}`))
	remoteErr("advertise of an unsigned card", err, aitp.StatusInvalidRequest, "/signature")
	if _, err := service.Advertise(ctx, cl, a.PeerID(), b.Card()); err != nil {
		t.Fatalf("advertise own card: %v", err)
	}
	polltest.For(t, 10*time.Second, "a to hold b's card", func() bool {
		recs, err := a.Cards(ctx)
		if err != nil {
			return false
		}
		for _, r := range recs {
			if r.Card.ID == b.AgentID() {
				return r.Source != "advertise" || r.Origin == b.AgentID()
			}
		}
		return false
	})

	resp, err := service.Discover(ctx, cl, a.PeerID(), &adp.DiscoverRequest{Tags: []string{"text/summarization"}})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].ID != a.AgentID() {
		t.Fatalf("discover: %+v %v", resp, err)
	}
	_, err = cl.Call(ctx, a.PeerID(), service.MethodDiscover, []byte(`{"limit":1000}`))
	remoteErr("discover over the limit", err, aitp.StatusInvalidRequest, "/limit")
}

// TestDescribeSelf: the own card is described locally, whole or as the
// requested fields plus id and name, as adp.describe answers a peer.
func TestDescribeSelf(t *testing.T) {
	n := startNode(t, testNode{name: "self", skills: []string{"text/summarization"}, noAPI: true})
	ctx := context.Background()
	whole, err := n.Describe(ctx, n.AgentID(), nil)
	if c, derr := adp.DecodeVerified(whole); err != nil || derr != nil || c.ID != n.AgentID() {
		t.Fatalf("whole card: %v %v", err, derr)
	}
	sub, err := n.Describe(ctx, n.AgentID(), []string{"skills", "no_such_field"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(sub, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || string(got["name"]) != `"self"` || string(got["skills"]) != `["text/summarization"]` || string(got["id"]) != `"`+n.AgentID()+`"` {
		t.Fatalf("fields: %s, want id, name and skills only", sub)
	}
}
