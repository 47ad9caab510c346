package node_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/store"
)

// TestIntakeOnePathVerifiedOnce: a card that reaches a node by adp.advertise
// (the greeting), by gossip (its owner's re-broadcasts) and by the DHT
// (its owner's put) goes through the one intake, and no encoding is
// verified twice: the shared check verified exactly the encodings it
// remembers, although the card was offered many more times.
func TestIntakeOnePathVerifiedOnce(t *testing.T) {
	a := startNode(t, testNode{name: "receiver"})
	b := startNode(t, testNode{name: "owner", bootstrap: []string{addrOf(t, a)}, gossipInterval: 200 * time.Millisecond})
	var last string
	polltest.For(t, 30*time.Second, "a to take b's card by advertise, gossip and the DHT", func() bool {
		st := a.IntakeStats()
		last = fmt.Sprintf("%+v", st)
		return st.Offered[store.SourceAdvertise] > 0 && st.Offered[store.SourceGossip] > 1 && st.Offered[store.SourceDHT] > 0
	})
	if _, err := a.LookupCard(context.Background(), b.AgentID()); err != nil {
		t.Fatalf("a does not hold b's card: %v (intake %s)", err, last)
	}
	st := a.IntakeStats()
	var offered uint64
	for _, n := range st.Offered {
		offered += n
	}
	remembered := a.CheckerRemembered()
	if st.Verifications != uint64(remembered) {
		t.Fatalf("%d verifications for %d distinct encodings: some card was verified twice (intake %+v)", st.Verifications, remembered, st)
	}
	t.Logf("intake %+v, remembered %d", st, remembered)
	if offered < 4 || st.Verifications >= offered {
		t.Fatalf("card offered %d times, verified %d times: want many offers, fewer verifications", offered, st.Verifications)
	}
}

// TestRebroadcastDoesNotReindex: an owner's re-broadcast of the card the
// node holds moves the card's times in the index without analysing the
// card again.
func TestRebroadcastDoesNotReindex(t *testing.T) {
	a := startNode(t, testNode{name: "announcer", description: "Announces often", gossipInterval: 200 * time.Millisecond})
	b := startNode(t, testNode{name: "listener", bootstrap: []string{addrOf(t, a)}})
	ctx := context.Background()
	held := func() *store.Record {
		rec, err := b.LookupCard(ctx, a.AgentID())
		if err != nil {
			return nil
		}
		return rec
	}
	polltest.For(t, 20*time.Second, "b to hold a's card", func() bool { return held() != nil })
	firstIs(t, b, `{"query":"announces often"}`, a.AgentID())
	first := held()
	analyzed := b.IndexAnalyzed()
	gossiped := b.IntakeStats().Offered[store.SourceGossip]
	indexedAt := func() string {
		resp, err := b.Discover(ctx, &adp.DiscoverRequest{Query: "announces often"}, "local")
		if err != nil || len(resp.Results) == 0 || resp.Results[0].Freshness == nil {
			return ""
		}
		return resp.Results[0].Freshness.IndexedAt
	}
	was := indexedAt()
	// indexed_at has a precision of one second.
	polltest.For(t, 20*time.Second, "re-broadcasts to renew b's copy and move its indexed_at", func() bool {
		rec := held()
		return rec != nil && rec.ReceivedAt.After(first.ReceivedAt) && b.IntakeStats().Offered[store.SourceGossip] >= gossiped+2 &&
			indexedAt() != was && indexedAt() >= rec.ReceivedAt.Add(-time.Second).UTC().Format(time.RFC3339)
	})
	// a may have made a new version meanwhile (its addresses changed):
	// each new version is analysed once at most, a re-broadcast never.
	versions := *held().Card.Seq - *first.Card.Seq
	if got := b.IndexAnalyzed(); got > analyzed+versions {
		t.Fatalf("re-broadcasts analysed the card again: %d analyses, was %d, %d new versions", got, analyzed, versions)
	}
}
