package testnet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// WaitPropagation polls every node until each holds at least as many cards
// as the testnet has nodes, or timeout passes. It returns the time since
// the first node was started (since the call for a testnet found with
// Open). On timeout the error names every node that lags and what it lacks.
func (t *Testnet) WaitPropagation(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	t.mu.Lock()
	start := t.start
	t.mu.Unlock()
	if start.IsZero() {
		start = time.Now()
	}
	nodes := t.Nodes()
	n := len(nodes)
	held := make([]int, n)
	done := make([]bool, n)
	lastErr := make([]error, n)
	var finished time.Time
	check := func() bool {
		var wg sync.WaitGroup
		for i, nd := range nodes {
			if done[i] {
				continue
			}
			wg.Go(func() {
				base := readAPIFile(nd.DataDir)
				if base == "" {
					lastErr[i] = fmt.Errorf("%w: no API address", ErrNodeDown)
					return
				}
				cctx, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				st, err := t.api.status(cctx, base)
				if err != nil {
					lastErr[i] = err
					return
				}
				lastErr[i] = nil
				held[i] = st.Cards
				done[i] = st.Cards >= n
			})
		}
		wg.Wait()
		now := time.Now()
		complete, cards := 0, 0
		for i := range n {
			cards += min(held[i], n)
			if done[i] {
				complete++
			}
		}
		t.progress(Progress{Phase: PhasePropagate, Done: complete, Total: n, Cards: cards, Elapsed: now.Sub(start)})
		if complete == n {
			finished = now
			return true
		}
		return false
	}
	deadline := time.Now().Add(timeout)
	for !check() {
		if time.Now().After(deadline) {
			return 0, t.laggards(ctx, nodes, held, lastErr, timeout)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(statusPoll):
		}
	}
	return finished.Sub(start), nil
}

// laggards builds the propagation timeout error: every node that lacks
// cards, with the names of the cards it lacks when it can tell.
func (t *Testnet) laggards(ctx context.Context, nodes []NodeInfo, held []int, lastErr []error, timeout time.Duration) error {
	n := len(nodes)
	var b strings.Builder
	late := 0
	for i, nd := range nodes {
		if held[i] >= n {
			continue
		}
		late++
		fmt.Fprintf(&b, "\n  node %d (%s): ", i, nd.Name)
		if lastErr[i] != nil {
			fmt.Fprintf(&b, "%v; log %s", lastErr[i], nd.Log)
			continue
		}
		fmt.Fprintf(&b, "holds %d/%d cards", held[i], n)
		if missing := t.missing(ctx, i, nodes); len(missing) > 0 {
			fmt.Fprintf(&b, ", lacks %s", strings.Join(missing, ", "))
		}
	}
	return fmt.Errorf("%w: after %v, %d of %d nodes do not hold every card:%s", ErrTimeout, timeout, late, n, b.String())
}

// missing lists the names of the testnet's cards node i does not hold.
func (t *Testnet) missing(ctx context.Context, i int, nodes []NodeInfo) []string {
	ids, err := t.heldIDs(ctx, i)
	if err != nil {
		return nil
	}
	var out []string
	for j, nd := range nodes {
		if !ids[nd.AgentID] {
			out = append(out, fmt.Sprintf("node %d (%s)", j, nd.Name))
		}
	}
	sort.Strings(out)
	return out
}

// heldIDs returns the agent ids of the cards node i holds (GET /v1/cards).
func (t *Testnet) heldIDs(ctx context.Context, i int) (map[string]bool, error) {
	var raw json.RawMessage
	if err := t.API(ctx, i, http.MethodGet, "/v1/cards", nil, &raw); err != nil {
		return nil, err
	}
	return cardIDs(raw)
}

// cardIDs extracts agent ids from a card listing: an array, or an object
// with a "cards" (or "results") array, whose items are cards or records
// holding the card under "card" or "agent_card".
func cardIDs(raw json.RawMessage) (map[string]bool, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var wrap struct {
			Cards   []json.RawMessage `json:"cards"`
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(raw, &wrap); err != nil {
			return nil, fmt.Errorf("%w: card listing: %v", ErrAPI, err)
		}
		items = append(wrap.Cards, wrap.Results...)
	}
	ids := make(map[string]bool, len(items))
	for _, it := range items {
		var v struct {
			ID        string          `json:"id"`
			AgentID   string          `json:"agent_id"`
			Card      json.RawMessage `json:"card"`
			AgentCard json.RawMessage `json:"agent_card"`
		}
		if json.Unmarshal(it, &v) != nil {
			continue
		}
		for _, inner := range []json.RawMessage{v.Card, v.AgentCard} {
			var c struct {
				ID string `json:"id"`
			}
			if len(inner) > 0 && json.Unmarshal(inner, &c) == nil && c.ID != "" {
				v.ID = c.ID
			}
		}
		if v.ID == "" {
			v.ID = v.AgentID
		}
		if v.ID != "" {
			ids[v.ID] = true
		}
	}
	return ids, nil
}
