package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
)

// twinCard is an agent card equal on text to every other twin: only the
// ranking signals can order twins.
const twinCard = `{"id": "ID", "name": "Weather Oracle", "description": "Forecasts the weather for any city.",
 "status": "active", "skills": ["data/weather"], "tools": [{"name": "forecast", "description": "Forecast the weather"}],
 "endpoints": [{"protocol": "https", "uri": "https://weather.example/v1"}]}`

// importTwins imports two twin cards (keys kx, ky) into n.
func importTwins(t *testing.T, n *node.Node, kx, ky byte) (string, string) {
	t.Helper()
	var ids []string
	for _, k := range []byte{kx, ky} {
		c := cardtest.Card(t, k, twinCard)
		if _, err := n.ImportCard(context.Background(), c); err != nil {
			t.Fatalf("import: %v", err)
		}
		ids = append(ids, c.ID)
	}
	polltest.For(t, 10*time.Second, "both twins indexed", func() bool { return len(ranking(t, n, twinQuery)) == 2 })
	return ids[0], ids[1]
}

// ranking returns the agent ids n's local discovery returns for body.
func ranking(t *testing.T, n *node.Node, body string) []string {
	t.Helper()
	req, err := adp.ParseDiscoverRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := n.Discover(context.Background(), req, "local")
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	ids := make([]string, 0, len(resp.Results))
	for _, r := range resp.Results {
		ids = append(ids, r.ID)
	}
	return ids
}

const twinQuery = `{"tags": ["data/weather"], "query": "weather forecast", "min_score": 0}`

// firstOf reports whether ids ranks first before second, both present.
func firstOf(ids []string, first, second string) bool {
	i, j := -1, -1
	for k, id := range ids {
		switch id {
		case first:
			i = k
		case second:
			j = k
		}
	}
	return i >= 0 && j >= 0 && i < j
}

// TestRankingFollowsPushedRating: two agents equal on text; rating the
// one ranked second above the first makes it rank first, and a restarted
// node ranks with the stored ratings.
func TestRankingFollowsPushedRating(t *testing.T) {
	dir := t.TempDir()
	if _, err := node.Init(dir, node.InitOptions{Name: "rater"}); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, testNode{dataDir: dir, noAPI: true})
	x, y := importTwins(t, n, 61, 62)
	ids := ranking(t, n, twinQuery)
	if len(ids) != 2 {
		t.Fatalf("ranking %v, want both twins", ids)
	}
	first, second := ids[0], ids[1]
	ctx := context.Background()
	if err := n.Rate(ctx, second, 5); err != nil {
		t.Fatal(err)
	}
	if err := n.Rate(ctx, first, 1); err != nil {
		t.Fatal(err)
	}
	// Rate pushes synchronously: the next search sees it.
	if got := ranking(t, n, twinQuery); !firstOf(got, second, first) {
		t.Fatalf("after rating: ranking %v, want %s before %s", got, second, first)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	r := startNode(t, testNode{dataDir: dir, noAPI: true})
	if got := ranking(t, r, twinQuery); !firstOf(got, second, first) {
		t.Fatalf("after restart: ranking %v, want %s before %s (x %s, y %s)", got, second, first, x, y)
	}
}

// TestRankingFollowsFailureStreak: failed calls to the agent ranked first
// (it has no reachable address) are written off the call path and pushed
// to the index, which then ranks its twin first.
func TestRankingFollowsFailureStreak(t *testing.T) {
	n := startNode(t, testNode{name: "caller", noAPI: true})
	importTwins(t, n, 63, 64)
	ids := ranking(t, n, twinQuery)
	if len(ids) != 2 {
		t.Fatalf("ranking %v, want both twins", ids)
	}
	first, second := ids[0], ids[1]
	for range 3 {
		if _, err := n.Invoke(context.Background(), first, "forecast", []byte(`{}`)); !errors.Is(err, node.ErrUnreachable) {
			t.Fatalf("invoke an agent without addresses: %v, want ErrUnreachable", err)
		}
	}
	polltest.For(t, 10*time.Second, "the failures recorded", func() bool {
		st, err := n.Stats(context.Background(), first)
		return err == nil && st.Failures == 3
	})
	polltest.For(t, 10*time.Second, "the failures pushed to the ranking", func() bool {
		return firstOf(ranking(t, n, twinQuery), second, first)
	})
}

// TestAvailabilityFollowsCallsInFlight: an agent seen recently is
// available (availability 1); while this node has max_concurrent_tasks
// calls in flight to it, the load filter leaves it out; once the call
// ends it is back with availability 1.
func TestAvailabilityFollowsCallsInFlight(t *testing.T) {
	a := startNode(t, testNode{name: "busy agent", skills: []string{"nlp/reversal"}, demo: true})
	ctx := context.Background()
	one := 1
	if err := a.UpdateCard(ctx, func(c *adp.Card) {
		c.Constraints = &adp.Constraints{MaxConcurrentTasks: &one}
	}); err != nil {
		t.Fatal(err)
	}
	b := startNode(t, testNode{name: "caller", bootstrap: []string{addrOf(t, a)}})
	polltest.For(t, 20*time.Second, "b holds a's card with its constraints", func() bool {
		rec, err := b.LookupCard(ctx, a.AgentID())
		return err == nil && *rec.Card.Seq == *a.Card().Seq
	})
	if _, err := b.Invoke(ctx, a.AgentID(), demoagent.Echo, []byte(`{"x":1}`)); err != nil {
		t.Fatalf("invoke: %v", err)
	}
	query := `{"tags": ["nlp/reversal"], "min_score": 0, "include_evidence": true}`
	availability := func() (float64, bool) {
		req, err := adp.ParseDiscoverRequest([]byte(query))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := b.Discover(ctx, req, "local")
		if err != nil {
			t.Fatalf("discover: %v", err)
		}
		for _, r := range resp.Results {
			if r.ID == a.AgentID() {
				return r.ScoreComponents["availability"], true
			}
		}
		return 0, false
	}
	polltest.For(t, 10*time.Second, "a available after a successful call", func() bool {
		v, ok := availability()
		return ok && v == 1
	})

	inFlight, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once bool
		done <- b.InvokeStream(ctx, a.AgentID(), demoagent.Reverse, []byte(`{"text": "one two three"}`), func(json.RawMessage) error {
			if !once {
				once = true
				close(inFlight)
				<-release
			}
			return nil
		})
	}()
	select {
	case <-inFlight:
	case err := <-done:
		t.Fatalf("stream ended before its first chunk: %v", err)
	}
	if _, ok := availability(); ok {
		close(release)
		t.Fatal("a at max_concurrent_tasks calls in flight is still offered")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("stream: %v", err)
	}
	polltest.For(t, 10*time.Second, "a available again once the call ended", func() bool {
		v, ok := availability()
		return ok && v == 1
	})
}
