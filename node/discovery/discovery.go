package discovery

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/index"
)

// Discovery answers adp.discover from the cards this node holds: it keeps
// an index.Index (scoring/index) in step with them (Put, Remove, Expire) and turns
// requests into scoring queries and results into discovery responses
// with evidence, freshness and the detail level's redaction (discovery
// profile §5.1, §6, §7.4, §8).
//
// The node feeds it from the store's change feed and pushes each agent's
// ranking signals with SetSignals when they change (WithSignals, a lookup
// per scored candidate, remains for tests and tools). A Discovery is safe
// for concurrent use and owns no goroutines.
type Discovery struct {
	idx     *index.Index
	signals scoring.SignalFunc
	now     func() time.Time
	log     *slog.Logger

	mu    sync.RWMutex
	cards map[string]*discoveryEntry
	// byDigest names the agent of each indexed card by the card's
	// adp.CardDigest, for the known lists of card syncs.
	byDigest map[string]string

	analyzed atomic.Uint64 // cards analysed into the scoring index (Put)
}

type discoveryEntry struct {
	card      *adp.Card
	digest    string // adp.CardDigest of the card's bytes
	indexedAt time.Time
	expiresAt time.Time
}

// Option configures a Discovery.
type Option func(*config)

type config struct {
	signals scoring.SignalFunc
	now     func() time.Time
	log     *slog.Logger
	scoring []scoring.Option
}

// WithSignals sets a lookup of this node's interaction records per agent
// id, called for every candidate scored (under the index's read lock; it
// must not call back into the Discovery). Without it the Discovery uses
// the signals given to SetSignals, which is faster at scale: agents
// without records then have an exact score bound and most candidates are
// never scored individually. The node does not use it: it pushes.
func WithSignals(f func(agentID string) scoring.Signals) Option {
	return func(c *config) { c.signals = f }
}

// WithClock sets the clock (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.log = l }
}

// WithScoring passes options to the scoring index (weights, taxonomy,
// BM25 parameters...).
func WithScoring(opts ...scoring.Option) Option {
	return func(c *config) { c.scoring = append(c.scoring, opts...) }
}

// RedactionWarning begins the warning Discover adds to every answer with
// results whose detail is not "full": their agent_card holds only the
// detail level's fields. Clients that show no cards may leave it out.
const RedactionWarning = "agent_card reduced to the "

// New returns an empty Discovery.
func New(opts ...Option) (*Discovery, error) {
	cfg := config{now: time.Now, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	// Tags default to the standard taxonomy; a WithScoring(WithTags) given
	// by the caller (the node passes its own) comes later and wins.
	idx, err := index.New(append([]scoring.Option{scoring.WithTags(tag.Default())}, cfg.scoring...)...)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	return &Discovery{idx: idx, signals: cfg.signals, now: cfg.now, log: cfg.log, cards: make(map[string]*discoveryEntry), byDigest: make(map[string]string)}, nil
}

// Put indexes c (or replaces the agent's previous card), received at
// indexedAt and fresh until expiresAt (zero: no expiry). A revocation
// (ADP §6.4) removes the agent.
func (d *Discovery) Put(c *adp.Card, indexedAt, expiresAt time.Time) error {
	if c == nil || c.ID == "" {
		return fmt.Errorf("discovery: card without id: %w", scoring.ErrNoID)
	}
	doc := DocFromCard(c, indexedAt, expiresAt)
	digest := ""
	if c.Raw() != nil { // a card built in code has no bytes to name
		digest = adp.CardDigest(c.Raw())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc.Revoked {
		d.forget(c.ID)
		d.idx.Delete(c.ID)
		return nil
	}
	if err := d.idx.Upsert(doc); err != nil {
		return err
	}
	d.analyzed.Add(1)
	d.forget(c.ID)
	d.cards[c.ID] = &discoveryEntry{card: c, digest: digest, indexedAt: indexedAt, expiresAt: expiresAt}
	if digest != "" {
		d.byDigest[digest] = c.ID
	}
	return nil
}

// forget drops agentID's entry and its digest; d.mu is held.
func (d *Discovery) forget(agentID string) {
	if e, ok := d.cards[agentID]; ok {
		if e.digest != "" && d.byDigest[e.digest] == agentID {
			delete(d.byDigest, e.digest)
		}
		delete(d.cards, agentID)
	}
}

// Digests returns the adp.CardDigest of at most max indexed cards, leaving
// out except's (the node's own card, whose absence from a peer's answer
// must mean the peer lacks it): the known list of a card sync's request.
// Which cards fill the list when there are more is unspecified.
func (d *Discovery) Digests(max int, except string) []string {
	if max <= 0 {
		return nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]string, 0, min(max, len(d.cards)))
	for id, e := range d.cards {
		if len(out) == max {
			break
		}
		if id != except && e.digest != "" {
			out = append(out, e.digest)
		}
	}
	return out
}

// Touch moves the received and expiry times of agentID's indexed card
// without analysing it again, when the index holds exactly c (the same
// bytes): an owner's re-broadcast. It reports whether it did; otherwise
// the caller Puts c.
func (d *Discovery) Touch(agentID string, c *adp.Card, indexedAt, expiresAt time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.cards[agentID]
	if !ok || c == nil || (e.card != c && !bytes.Equal(e.card.Raw(), c.Raw())) {
		return false
	}
	if !d.idx.Touch(agentID, indexedAt, expiresAt) {
		return false
	}
	e.indexedAt, e.expiresAt = indexedAt, expiresAt
	return true
}

// Holds reports whether the index holds c or a card of its agent that
// supersedes it.
func (d *Discovery) Holds(c *adp.Card) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	e, ok := d.cards[c.ID]
	return ok && adp.Compare(e.card, c) >= 0
}

// Analyzed returns how many cards Put analysed into the scoring index
// since New (a refresh through Touch is not one).
func (d *Discovery) Analyzed() uint64 { return d.analyzed.Load() }

// Remove forgets an agent and reports whether it was indexed.
func (d *Discovery) Remove(agentID string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forget(agentID)
	return d.idx.Delete(agentID)
}

// Expire forgets every agent whose card expired at or before t.
func (d *Discovery) Expire(t time.Time) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	for id, e := range d.cards {
		if !e.expiresAt.IsZero() && !e.expiresAt.After(t) {
			d.forget(id)
		}
	}
	return d.idx.Expire(t)
}

// SetSignals records this node's interaction signals for an agent (zero
// signals forget them); the node calls it whenever a call, rating, task
// or sighting changes them.
func (d *Discovery) SetSignals(agentID string, s scoring.Signals) {
	d.idx.SetSignals(agentID, s)
}

// Len returns the number of indexed agents.
func (d *Discovery) Len() int { return d.idx.Len() }

// Discover ranks the held cards for req, whose bounds
// adp.ParseDiscoverRequest checked; the defaults it leaves out are
// applied here (adp.DiscoverRequest.WithDefaults).
func (d *Discovery) Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	if req == nil {
		return nil, errors.New("discovery: nil request")
	}
	req = req.WithDefaults()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := d.now()
	q, unsupported := QueryFromRequest(req)
	if f, ok := req.RelevanceFloor(); ok {
		q.RelevanceFloor = &f
	}
	// One read lock from the known list's lookup to the last result: a
	// card Put meanwhile could otherwise be excluded for the digest of
	// the version it replaced.
	d.mu.RLock()
	defer d.mu.RUnlock()
	q.Exclude = d.held(req.Known)
	res := d.idx.Search(q, d.signals, now)
	resp := &adp.DiscoverResponse{
		RequestID:          newRequestID(),
		GeneratedAt:        now.UTC().Format(time.RFC3339Nano),
		Results:            make([]adp.DiscoverResult, 0, len(res.Hits)),
		Candidates:         make([]adp.Candidate, 0, len(res.Hits)),
		AppliedFilters:     appliedFilters(req, q),
		UnsupportedFilters: unsupported,
		Warnings:           res.Warnings,
	}
	// The relevance floor drops results the client did not filter out
	// itself: it is always reported, with the value applied.
	resp.AppliedFilters[adp.ConstraintRelevanceFloor] = res.RelevanceFloor
	detail := req.Detail
	for _, h := range res.Hits {
		e, ok := d.cards[h.ID]
		if !ok { // removed between ranking and now
			continue
		}
		r, err := buildResult(e, h, detail, req.IncludeEvidence, now)
		if err != nil {
			d.log.Debug("discovery: result", "agent", h.ID, "err", err)
			continue
		}
		resp.Results = append(resp.Results, r)
		resp.Candidates = append(resp.Candidates, adp.CandidateOf(r, adp.BindingsOf(e.card)))
	}
	if detail != adp.DetailFull && len(resp.Results) > 0 {
		resp.Warnings = append(resp.Warnings, RedactionWarning+detail+" fields (redacted); request detail \"full\" for the signed cards")
	}
	return resp, nil
}

// held returns the agents whose indexed card has one of the digests of a
// request's known list: the caller holds that very card. d.mu is held.
func (d *Discovery) held(known []string) map[string]struct{} {
	if len(known) == 0 {
		return nil
	}
	out := make(map[string]struct{}, len(known))
	for _, k := range known {
		if id, ok := d.byDigest[k]; ok {
			out[id] = struct{}{}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func buildResult(e *discoveryEntry, h scoring.Hit, detail string, evidence bool, now time.Time) (adp.DiscoverResult, error) {
	c := e.card
	card, err := cardAtDetail(c, detail)
	if err != nil {
		return adp.DiscoverResult{}, err
	}
	r := adp.DiscoverResult{
		AgentCard:    card,
		ID:           c.ID,
		Name:         c.Name,
		Status:       c.Status,
		Score:        h.Score,
		MatchedTags:  nonNil(h.MatchedTags),
		ExpandedTags: h.ExpandedTags,
		Redacted:     detail != adp.DetailFull,
		Freshness:    freshnessOf(e, now),
	}
	if detail != adp.DetailMinimal {
		r.Description = c.Description
	}
	if evidence {
		r.ScoreComponents = h.Components.Map()
		r.Weights = h.Weights.Map()
		for _, m := range h.Examples {
			if m.Tool || m.Index >= len(c.Examples) {
				continue
			}
			me := adp.MatchedExample{ID: c.Examples[m.Index].ID, Score: m.Score}
			if detail != adp.DetailMinimal {
				me.Text = c.Examples[m.Index].Text
			}
			r.MatchedExamples = append(r.MatchedExamples, me)
		}
	}
	return r, nil
}

func freshnessOf(e *discoveryEntry, now time.Time) *adp.Freshness {
	f := &adp.Freshness{}
	if e.card.Metadata != nil {
		f.MetadataUpdatedAt = e.card.Metadata.UpdatedAt
	}
	if !e.indexedAt.IsZero() {
		f.IndexedAt = e.indexedAt.UTC().Format(time.RFC3339)
	}
	if !e.expiresAt.IsZero() {
		f.ExpiresAt = e.expiresAt.UTC().Format(time.RFC3339)
		f.Stale = !now.Before(e.expiresAt)
	}
	return f
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "req-" + hex.EncodeToString(b[:])
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
