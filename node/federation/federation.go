package federation

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/discovery"
)

// Bounds of one network-scope discovery.
const (
	// Timeout bounds the gathering of remote answers.
	Timeout = 5 * time.Second
	// TagLookupTimeout bounds the DHT provider lookups of one request
	// and the fetches of the providers' cards that follow them.
	TagLookupTimeout = 2 * time.Second
	// MaxTagProviders bounds the providers looked up per tag.
	MaxTagProviders = 20
	// MaxProviderFetches bounds the cards fetched from providers per request.
	MaxProviderFetches = 32
	// FetchConcurrency bounds the provider fetches under way at once.
	FetchConcurrency = 8
)

// Network is what a search needs of its node.
type Network interface {
	// Self is the node's own peer, never asked.
	Self() peer.ID
	// Directories returns the directory peers to ask (peer -> agent id),
	// looking for some first when none is known.
	Directories(ctx context.Context) map[peer.ID]string
	// AskDirectory sends req to directory p (adp.discover).
	AskDirectory(ctx context.Context, p peer.ID, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error)
	// Check decodes and verifies a card a directory returned.
	Check(raw []byte) (*adp.Card, error)
	// FindByTag returns up to max DHT providers of tag.
	FindByTag(ctx context.Context, tag string, max int) ([]peer.AddrInfo, error)
	// Holds reports whether the node holds a card of agentID.
	Holds(agentID string) bool
	// Fetch asks provider ai, whose addresses it learns, for its card,
	// which is verified and kept.
	Fetch(ctx context.Context, ai peer.AddrInfo) (*adp.Card, error)
	// Keep offers the node a directory's result card, stored only when it
	// is new here; it reports whether it was stored.
	Keep(ctx context.Context, f discovery.Federated) bool
	// AwaitIndexed waits, boundedly, until the index holds cards.
	AwaitIndexed(ctx context.Context, cards ...*adp.Card)
	// Local ranks the cards the node holds for req.
	Local(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error)
}

// Search answers network-scope discoveries over a Network.
type Search struct {
	nw  Network
	log *slog.Logger
}

// New returns a Search over nw; log (nil: discarded) receives a Debug line
// for each refused result and each failed lookup.
func New(nw Network, log *slog.Logger) *Search {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Search{nw: nw, log: log}
}

// request is one search under way.
type request struct {
	*Search
	req *adp.DiscoverRequest

	mu       sync.Mutex
	remote   []discovery.Federated
	viaDHT   map[string]string // agent id -> when its card was fetched from its provider
	warnings []string
}

// Discover answers req from the network (see the package documentation).
func (s *Search) Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	r := &request{Search: s, req: req}
	r.gather(ctx)
	r.keep(ctx)
	return r.merge(ctx)
}

// gather asks the directories and the tags' providers at once, within
// Timeout.
func (r *request) gather(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var wg sync.WaitGroup
	asked := 0
	for p, dirID := range r.nw.Directories(ctx) {
		if asked == discovery.MaxDirectoriesAsked {
			break
		}
		asked++
		wg.Go(func() {
			got, err := r.askDirectory(ctx, p, dirID)
			r.mu.Lock()
			defer r.mu.Unlock()
			if err != nil {
				r.warnings = append(r.warnings, fmt.Sprintf("directory %s did not answer: %v", dirID, err))
				return
			}
			r.remote = append(r.remote, got...)
		})
	}
	wg.Go(func() {
		tctx, cancel := context.WithTimeout(ctx, TagLookupTimeout)
		defer cancel()
		fetched := r.fetchProviders(tctx)
		r.mu.Lock()
		r.viaDHT = fetched
		r.mu.Unlock()
	})
	wg.Wait()
}

// askDirectory sends the request to directory p, asking for full signed
// cards so that each result can be verified, and returns the verified
// results.
func (r *request) askDirectory(ctx context.Context, p peer.ID, dirID string) ([]discovery.Federated, error) {
	q := *r.req
	q.Detail = adp.DetailFull
	resp, err := r.nw.AskDirectory(ctx, p, &q)
	if err != nil {
		return nil, err
	}
	received := time.Now().UTC().Format(time.RFC3339Nano)
	return discovery.FromDirectory(resp, dirID, adp.AgentID(r.nw.Self()), received, r.nw.Check, func(id string, err error) {
		r.log.Debug("directory result refused", "peer", p, "agent", id, "err", err)
	}), nil
}

// fetchProviders finds the DHT providers of the request's tags and
// fetches the cards of those whose card is not held. It returns the
// agents whose card it fetched, with the time each was received.
func (r *request) fetchProviders(ctx context.Context) map[string]string {
	seen := map[peer.ID]bool{r.nw.Self(): true}
	var todo []peer.AddrInfo
	for _, tag := range discovery.ProviderTags(r.req) {
		provs, err := r.nw.FindByTag(ctx, tag, MaxTagProviders)
		if err != nil {
			r.log.Debug("find by tag", "tag", tag, "err", err)
			continue
		}
		for _, ai := range provs {
			if seen[ai.ID] || len(todo) == MaxProviderFetches {
				continue
			}
			seen[ai.ID] = true
			if !r.nw.Holds(adp.AgentID(ai.ID)) {
				todo = append(todo, ai)
			}
		}
	}
	sem := make(chan struct{}, FetchConcurrency)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		fetched = map[string]string{}
	)
	for _, ai := range todo {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := r.nw.Fetch(ctx, ai)
			if err != nil {
				r.log.Debug("fetch provider card", "peer", ai.ID, "err", err)
				return
			}
			mu.Lock()
			fetched[c.ID] = time.Now().UTC().Format(time.RFC3339Nano)
			mu.Unlock()
			r.nw.AwaitIndexed(ctx, c)
		})
	}
	wg.Wait()
	return fetched
}

// keep stores the directories' cards that are new here and waits until
// the index holds them.
func (r *request) keep(ctx context.Context) {
	var fresh []*adp.Card
	for _, f := range r.remote {
		if r.nw.Keep(ctx, f) {
			fresh = append(fresh, f.Card)
		}
	}
	r.nw.AwaitIndexed(ctx, fresh...)
}

// merge ranks the held cards and merges the remote answers into them.
func (r *request) merge(ctx context.Context) (*adp.DiscoverResponse, error) {
	local, err := r.nw.Local(ctx, r.req)
	if err != nil {
		return nil, err
	}
	return discovery.Merge(local, r.remote, r.viaDHT, r.req, r.warnings), nil
}
