package node

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/store"
)

// Bounds of a network-scope discovery.
const (
	networkDiscoverTimeout = 5 * time.Second
	tagLookupTimeout       = 2 * time.Second // DHT provider lookups of one request
	maxFederatedTags       = 8               // DHT tag lookups per request
	maxTagProviders        = 20              // providers asked per tag
	maxProviderFetches     = 32              // cards fetched from providers per request
	fetchConcurrency       = 8
	maxDirectoriesAsked    = 8
)

// Discover ranks agents for req. Scope "local" (or "") ranks the cards
// this node holds; "network" also asks the known directory peers
// (adp.discover) and the DHT's providers of the request's tags (whose
// cards are fetched, verified and stored), and merges everything by agent
// id keeping the best score. Results that came through a directory carry
// origin_service (the directory's agent id) and received_at.
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
		return nil, fmt.Errorf("%w: %q", ErrBadScope, scope)
	}
	if err == nil {
		n.metrics.observeDiscover(scope, time.Since(start))
	}
	return resp, err
}

// federated is a result from a directory with its provenance.
type federated struct {
	result adp.DiscoverResult
	card   *adp.Card // verified full card
}

func (n *Node) discoverNetwork(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	fctx, cancel := context.WithTimeout(ctx, networkDiscoverTimeout)
	defer cancel()

	var (
		mu       sync.Mutex
		remote   = map[string]federated{}
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
		if asked == maxDirectoriesAsked {
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
			for _, f := range got {
				if old, ok := remote[f.result.ID]; !ok || f.result.Score > old.result.Score {
					remote[f.result.ID] = f
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tctx, cancel := context.WithTimeout(fctx, tagLookupTimeout)
		defer cancel()
		n.fetchTagProviders(tctx, req)
	}()
	wg.Wait()

	// Keep the directories' cards that are new here, and wait for the
	// store's feed to index them, so the local ranking sees them too.
	var fresh []*adp.Card
	for _, f := range remote {
		if n.keep(ctx, f.card, intake.From{Source: store.SourceImport, Origin: f.result.OriginService, GapsOnly: true}) {
			fresh = append(fresh, f.card)
		}
	}
	n.awaitIndexed(ctx, fresh...)
	local, err := n.index.Discover(ctx, req)
	if err != nil {
		return nil, err
	}
	return mergeResults(local, remote, req, warnings), nil
}

// askDirectory sends req to a directory peer, asking for full signed cards
// so that each result can be verified, and returns the verified results.
func (n *Node) askDirectory(ctx context.Context, p peer.ID, dirID string, req *adp.DiscoverRequest) ([]federated, error) {
	q := *req
	q.Detail = adp.DetailFull
	resp, err := service.Discover(ctx, n.client, p, &q)
	if err != nil {
		return nil, wrapUnreachable(err)
	}
	received := time.Now().UTC().Format(time.RFC3339Nano)
	limit := min(len(resp.Results), adp.MaxDiscoverLimit)
	out := make([]federated, 0, limit)
	for _, r := range resp.Results[:limit] {
		c, err := n.intake.Checker().Check(r.AgentCard, "")
		if err != nil || c.ID != r.ID || c.ID == n.agentID {
			n.log.Debug("directory result refused", "peer", p, "agent", r.ID, "err", err)
			continue
		}
		r.ID, r.Name, r.Status = c.ID, c.Name, c.Status
		if r.Score < 0 || r.Score > 1 {
			continue
		}
		r.OriginService, r.ReceivedAt = dirID, received
		out = append(out, federated{result: r, card: c})
	}
	return out, nil
}

// fetchTagProviders finds the DHT providers of the request's tags and
// fetches, verifies and stores the cards of those this node does not hold.
func (n *Node) fetchTagProviders(ctx context.Context, req *adp.DiscoverRequest) {
	var tags []string
	for _, list := range [][]string{req.RequiredTags, req.Tags, req.PreferredTags} {
		for _, t := range list {
			t = strings.TrimSuffix(t, "/*")
			if t != "" && !slices.Contains(tags, t) && len(tags) < maxFederatedTags {
				tags = append(tags, t)
			}
		}
	}
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
	var wg sync.WaitGroup
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
			n.awaitIndexed(ctx, c) // the feed indexes it
		}()
	}
	wg.Wait()
}

// mergeResults merges the local ranking with the directories' results by
// agent id, keeping the best score and the directory's provenance, sorted
// by score and cut to the request's limit. Directory results are reduced
// to the requested detail.
func mergeResults(local *adp.DiscoverResponse, remote map[string]federated, req *adp.DiscoverRequest, warnings []string) *adp.DiscoverResponse {
	detail := req.Detail
	if detail == "" {
		detail = adp.DetailSummary
	}
	byID := make(map[string]adp.DiscoverResult, len(local.Results)+len(remote))
	for _, r := range local.Results {
		byID[r.ID] = r
	}
	for id, f := range remote {
		r := f.result
		if cur, ok := byID[id]; ok && cur.Score >= r.Score {
			cur.OriginService, cur.ReceivedAt = r.OriginService, r.ReceivedAt
			byID[id] = cur
			continue
		}
		if card, err := cardAtDetail(f.card, detail); err == nil {
			r.AgentCard = card
			r.Redacted = detail != adp.DetailFull
		}
		if detail == adp.DetailMinimal {
			r.Description = ""
		}
		if !req.IncludeEvidence {
			r.ScoreComponents, r.Weights, r.MatchedExamples = nil, nil, nil
		}
		byID[id] = r
	}
	results := make([]adp.DiscoverResult, 0, len(byID))
	for _, r := range byID {
		results = append(results, r)
	}
	slices.SortFunc(results, func(a, b adp.DiscoverResult) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	limit := req.Limit
	if limit <= 0 {
		limit = adp.DefaultDiscoverLimit
	}
	if len(results) > limit {
		results = results[:limit]
	}
	out := *local
	out.Results = results
	out.Warnings = append(slices.Clone(local.Warnings), warnings...)
	return &out
}
