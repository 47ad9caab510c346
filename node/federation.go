package node

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/invoke"
	"github.com/adpnode/adpnode/store"
)

// Bounds of a network-scope discovery.
const (
	networkDiscoverTimeout = 5 * time.Second
	tagLookupTimeout       = 2 * time.Second // DHT provider lookups of one request
	maxTagProviders        = 20              // providers asked per tag
	maxProviderFetches     = 32              // cards fetched from providers per request
	fetchConcurrency       = 8
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
// reciprocal rank fusion, never comparing the services' scores
// (discovery.Merge). Each result lists the services that returned it in
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
		resp, err = n.discoverNetwork(ctx, req)
	default:
		return nil, fmt.Errorf("%w: %q", discovery.ErrBadScope, scope)
	}
	if err == nil && req.Probe {
		n.probe(ctx, resp)
	}
	if err == nil {
		n.metrics.observeDiscover(scope, time.Since(start))
	}
	return resp, err
}

func (n *Node) discoverNetwork(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	fctx, cancel := context.WithTimeout(ctx, networkDiscoverTimeout)
	defer cancel()

	var (
		mu       sync.Mutex
		remote   []discovery.Federated
		viaDHT   map[string]string
		warnings []string
		wg       sync.WaitGroup
	)
	dirs := n.knownDirectories()
	if len(dirs) == 0 && !n.cfg.Directory {
		n.findDirectories(fctx)
		dirs = n.knownDirectories()
	}
	asked := 0
	for p, dirID := range dirs {
		if asked == discovery.MaxDirectoriesAsked {
			break
		}
		asked++
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := n.askDirectory(fctx, p, dirID, req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("directory %s did not answer: %v", dirID, err))
				return
			}
			remote = append(remote, got...)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tctx, cancel := context.WithTimeout(fctx, tagLookupTimeout)
		defer cancel()
		viaDHT = n.fetchTagProviders(tctx, req)
	}()
	wg.Wait()

	// Keep the directories' cards that are new here, and wait for the
	// store's feed to index them, so the local ranking sees them too.
	var fresh []*adp.Card
	for _, f := range remote {
		if n.keep(ctx, f.Card, intake.From{Source: store.SourceImport, Origin: f.Result.OriginService, GapsOnly: true, SyncLater: true}) {
			fresh = append(fresh, f.Card)
		}
	}
	n.awaitIndexed(ctx, fresh...)
	local, err := n.index.Discover(ctx, req)
	if err != nil {
		return nil, err
	}
	return discovery.Merge(local, remote, viaDHT, req, warnings), nil
}

// askDirectory sends req to a directory peer, asking for full signed cards
// so that each result can be verified, and returns the verified results.
func (n *Node) askDirectory(ctx context.Context, p peer.ID, dirID string, req *adp.DiscoverRequest) ([]discovery.Federated, error) {
	q := *req
	q.Detail = adp.DetailFull
	resp, err := service.Discover(ctx, n.client, p, &q)
	if err != nil {
		return nil, invoke.Unreachable(p, err)
	}
	received := time.Now().UTC().Format(time.RFC3339Nano)
	check := func(raw []byte) (*adp.Card, error) { return n.intake.Checker().Check(raw, "") }
	return discovery.FromDirectory(resp, dirID, n.agentID, received, check, func(id string, err error) {
		n.log.Debug("directory result refused", "peer", p, "agent", id, "err", err)
	}), nil
}

// fetchTagProviders finds the DHT providers of the request's tags and
// fetches, verifies and stores the cards of those this node does not
// hold. It returns the agents whose card it fetched, with the time each
// was received.
func (n *Node) fetchTagProviders(ctx context.Context, req *adp.DiscoverRequest) map[string]string {
	tags := discovery.ProviderTags(req)
	seen := map[peer.ID]bool{n.self: true}
	var todo []peer.AddrInfo
	for _, tag := range tags {
		provs, err := n.dht.FindByTag(ctx, tag, maxTagProviders)
		if err != nil {
			n.log.Debug("find by tag", "tag", tag, "err", err)
			continue
		}
		for _, ai := range provs {
			if seen[ai.ID] || len(todo) == maxProviderFetches {
				continue
			}
			seen[ai.ID] = true
			if n.store.Held(adp.AgentID(ai.ID)) != nil {
				continue
			}
			todo = append(todo, ai)
		}
	}
	sem := make(chan struct{}, fetchConcurrency)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		fetched = map[string]string{}
	)
	for _, ai := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if len(ai.Addrs) > 0 {
				n.host.Peerstore().AddAddrs(ai.ID, ai.Addrs, time.Hour)
			}
			c, err := n.fetchFromOwner(ctx, ai.ID)
			if err != nil {
				n.log.Debug("fetch provider card", "peer", ai.ID, "err", err)
				return
			}
			mu.Lock()
			fetched[c.ID] = time.Now().UTC().Format(time.RFC3339Nano)
			mu.Unlock()
			n.awaitIndexed(ctx, c) // the feed indexes it
		}()
	}
	wg.Wait()
	return fetched
}
