package node

import (
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/invoke"
	"github.com/adpnode/adpnode/store"
)

// Discovery scopes, for the metrics and the local adp.discover answer.
const (
	scopeLocal   = discovery.ScopeLocal
	scopeNetwork = discovery.ScopeNetwork
)

// Discover ranks agents for req. Scope "local" (or "") ranks the cards
// this node holds; "network" also asks the known directory peers
// (adp.discover) and the DHT's providers of the request's tags (whose
// cards are fetched, verified and stored), and merges the answers by
// reciprocal rank fusion, never comparing the services' scores (package
// node/federation). Each result lists the services that returned it in
// sources; origin_service and received_at name the best-ranked directory.
func (n *Node) Discover(ctx context.Context, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error) {
	start := time.Now()
	var (
		resp *adp.DiscoverResponse
		err  error
	)
	switch scope {
	case "", scopeLocal:
		scope = scopeLocal
		resp, err = n.index.Discover(ctx, req)
	case scopeNetwork:
		resp, err = n.federation.Discover(ctx, req)
	default:
		return nil, fmt.Errorf("%w: %q", discovery.ErrBadScope, scope)
	}
	if err == nil && req.Probe {
		n.prober.Probe(ctx, resp)
	}
	if err == nil {
		n.metrics.ObserveDiscover(scope, time.Since(start))
	}
	return resp, err
}

// nodeNet is the node as packages federation and directories reach it.
type nodeNet struct{ n *Node }

func (f nodeNet) Self() peer.ID { return f.n.self }

// Directories returns the known directory peers, looking for some in the
// DHT when none is known and the node is not a directory itself.
func (f nodeNet) Directories(ctx context.Context) map[peer.ID]string {
	dirs := f.n.dirs.Known()
	if len(dirs) == 0 && !f.n.cfg.Directory {
		f.n.dirs.Find(ctx)
		dirs = f.n.dirs.Known()
	}
	return dirs
}

func (f nodeNet) AskDirectory(ctx context.Context, p peer.ID, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	resp, err := service.Discover(ctx, f.n.client, p, req)
	return resp, invoke.Unreachable(p, err)
}

func (f nodeNet) Check(raw []byte) (*adp.Card, error) {
	return f.n.intake.Checker().Check(raw, "")
}

func (f nodeNet) FindByTag(ctx context.Context, tag string, max int) ([]peer.AddrInfo, error) {
	return f.n.dht.FindByTag(ctx, tag, max)
}

func (f nodeNet) Holds(agentID string) bool { return f.n.store.Held(agentID) != nil }

// NetworkOf returns the source network of the connection to p, as the
// rate limits count it: a directory book lists at most
// directories.MaxPerNetwork directories of one.
func (f nodeNet) NetworkOf(p peer.ID) string { return f.n.networkOf(p) }

func (f nodeNet) Fetch(ctx context.Context, ai peer.AddrInfo) (*adp.Card, error) {
	if len(ai.Addrs) > 0 {
		f.n.host.Peerstore().AddAddrs(ai.ID, ai.Addrs, time.Hour)
	}
	return f.n.fetchFromOwner(ctx, ai.ID)
}

func (f nodeNet) Keep(ctx context.Context, r discovery.Federated) bool {
	return f.n.keep(ctx, r.Card, intake.From{Source: store.SourceImport, Origin: r.Result.OriginService, GapsOnly: true, SyncLater: true})
}

func (f nodeNet) AwaitIndexed(ctx context.Context, cards ...*adp.Card) {
	f.n.feed.AwaitIndexed(ctx, cards...)
}

func (f nodeNet) Local(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	return f.n.index.Discover(ctx, req)
}

func (f nodeNet) Advertise(ctx context.Context, p peer.ID) error {
	_, err := f.n.advertiseTo(ctx, p)
	return err
}

func (f nodeNet) Greeted(p peer.ID) bool { return f.n.greeter.Greeted(p) }
