package testnet_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/testnet"
)

// TestNetworkViewOfInProcessTestnet checks GET /v1/network's answer on a
// testnet whose nodes serve their API: node 0 reads every node, reports
// the links the nodes report, and each card's travel to every node.
func TestNetworkViewOfInProcessTestnet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const n = 3
	nw, err := testnet.NewInProcess(ctx, n, testnet.WithBaseDir(t.TempDir()),
		testnet.WithNodeConfig(func(_ int, c *node.Config) { c.APIAddr = "127.0.0.1:0" }))
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	if err := nw.WaitPropagation(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 30*time.Second, func() error {
		view, err := nw.Node(0).Network(ctx)
		if err != nil {
			return err
		}
		return checkView(nw, view)
	})
}

// checkView compares a network view with what the nodes say themselves.
func checkView(nw *testnet.Network, view *nodeapi.Network) error {
	if view.Scope != nodeapi.ScopeTestnet || len(view.Nodes) != nw.Len() {
		return fmt.Errorf("scope %s with %d nodes, want testnet with %d", view.Scope, len(view.Nodes), nw.Len())
	}
	want := map[[2]string]bool{}
	for i, nd := range nw.Nodes() {
		if got := view.Nodes[i]; got.Error != "" || got.AgentID != nd.AgentID() {
			return fmt.Errorf("node %d read as %+v, want agent %s", i, got, nd.AgentID())
		}
		for _, p := range nd.Peers() {
			a, b := nd.AgentID(), adp.AgentID(p)
			want[[2]string{min(a, b), max(a, b)}] = true
		}
	}
	if len(view.Links) != len(want) {
		return fmt.Errorf("%d links, the nodes report %d", len(view.Links), len(want))
	}
	for _, l := range view.Links {
		if !want[[2]string{l.A, l.B}] || len(l.ReportedBy) != 2 {
			return fmt.Errorf("link %s — %s reported by %v: not a connection both ends report", l.A, l.B, l.ReportedBy)
		}
	}
	for i, nd := range nw.Nodes() {
		ct := view.Travel[i]
		if ct.Agent != nd.AgentID() || ct.Seq != *nd.Card().Seq || ct.PublishedAt == nil || len(ct.Arrivals) != nw.Len() {
			return fmt.Errorf("travel of node %d's card: %+v, want seq %d published and arrived at %d nodes", i, ct, *nd.Card().Seq, nw.Len())
		}
		for _, a := range ct.Arrivals {
			if a.AfterMS == nil || (a.Node == ct.Agent) != (*a.AfterMS == 0) || *a.AfterMS < 0 {
				return fmt.Errorf("card of node %d at %s: %+v, want 0 ms at its owner, more elsewhere", i, a.Node, a)
			}
		}
	}
	return nil
}
