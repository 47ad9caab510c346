package node

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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

	analyzed atomic.Uint64 // cards analysed into the scoring index (Put)
}

type discoveryEntry struct {
	card      *adp.Card
	indexedAt time.Time
	expiresAt time.Time
}

// DiscoveryOption configures a Discovery.
type DiscoveryOption func(*discoveryConfig)

type discoveryConfig struct {
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
func WithSignals(f func(agentID string) scoring.Signals) DiscoveryOption {
	return func(c *discoveryConfig) { c.signals = f }
}

// WithDiscoveryClock sets the clock (default time.Now).
func WithDiscoveryClock(now func() time.Time) DiscoveryOption {
	return func(c *discoveryConfig) { c.now = now }
}

// WithDiscoveryLogger sets the logger (default: discard).
func WithDiscoveryLogger(l *slog.Logger) DiscoveryOption {
	return func(c *discoveryConfig) { c.log = l }
}

// WithScoring passes options to the scoring index (weights, taxonomy,
// BM25 parameters...).
func WithScoring(opts ...scoring.Option) DiscoveryOption {
	return func(c *discoveryConfig) { c.scoring = append(c.scoring, opts...) }
}

// RedactionWarning begins the warning Discover adds to every answer with
// results whose detail is not "full": their agent_card holds only the
// detail level's fields. Clients that show no cards may leave it out.
const RedactionWarning = "agent_card reduced to the "

// NewDiscovery returns an empty Discovery.
func NewDiscovery(opts ...DiscoveryOption) (*Discovery, error) {
	cfg := discoveryConfig{now: time.Now, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	// Tags default to the standard taxonomy; a WithScoring(WithTags) given
	// by the caller (the node passes its own) comes later and wins.
	idx, err := index.New(append([]scoring.Option{scoring.WithTags(tag.Default())}, cfg.scoring...)...)
	if err != nil {
		return nil, fmt.Errorf("node: discovery: %w", err)
	}
	return &Discovery{idx: idx, signals: cfg.signals, now: cfg.now, log: cfg.log, cards: make(map[string]*discoveryEntry)}, nil
}

// Put indexes c (or replaces the agent's previous card), received at
// indexedAt and fresh until expiresAt (zero: no expiry). A revocation
// (ADP §6.4) removes the agent.
func (d *Discovery) Put(c *adp.Card, indexedAt, expiresAt time.Time) error {
	if c == nil || c.ID == "" {
		return fmt.Errorf("node: discovery: card without id: %w", scoring.ErrNoID)
	}
	doc := DocFromCard(c, indexedAt, expiresAt)
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc.Revoked {
		delete(d.cards, c.ID)
		d.idx.Delete(c.ID)
		return nil
	}
	if err := d.idx.Upsert(doc); err != nil {
		return err
	}
	d.analyzed.Add(1)
	d.cards[c.ID] = &discoveryEntry{card: c, indexedAt: indexedAt, expiresAt: expiresAt}
	return nil
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
// since NewDiscovery (a refresh through Touch is not one).
func (d *Discovery) Analyzed() uint64 { return d.analyzed.Load() }

// Remove forgets an agent and reports whether it was indexed.
func (d *Discovery) Remove(agentID string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.cards, agentID)
	return d.idx.Delete(agentID)
}

// Expire forgets every agent whose card expired at or before t.
func (d *Discovery) Expire(t time.Time) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	for id, e := range d.cards {
		if !e.expiresAt.IsZero() && !e.expiresAt.After(t) {
			delete(d.cards, id)
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

// Discover ranks the held cards for req, which must come from
// adp.ParseDiscoverRequest (defaults applied, bounds checked).
func (d *Discovery) Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	if req == nil {
		return nil, errors.New("node: discovery: nil request")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := d.now()
	q, unsupported := QueryFromRequest(req)
	res := d.idx.Search(q, d.signals, now)
	resp := &adp.DiscoverResponse{
		RequestID:          newRequestID(),
		GeneratedAt:        now.UTC().Format(time.RFC3339Nano),
		Results:            make([]adp.DiscoverResult, 0, len(res.Hits)),
		AppliedFilters:     appliedFilters(req, q),
		UnsupportedFilters: unsupported,
		Warnings:           res.Warnings,
	}
	detail := req.Detail
	if detail == "" {
		detail = adp.DetailSummary
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
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
	}
	if detail != adp.DetailFull && len(resp.Results) > 0 {
		resp.Warnings = append(resp.Warnings, RedactionWarning+detail+" fields (redacted); request detail \"full\" for the signed cards")
	}
	return resp, nil
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

// cardAtDetail returns the card as a result carries it (discovery profile
// §5.1, §7.4):
//   - full: the card exactly as received, signature included;
//   - summary: id, name, description, version, skills, status, did, the
//     tools' names and descriptions, endpoints' protocol, uri and
//     methods, constraints and metadata; no schemas, examples,
//     extensions, endpoint auth or unknown fields;
//   - minimal: id, name, status and the endpoints' protocol and uri,
//     enough to continue resolution.
func cardAtDetail(c *adp.Card, detail string) (json.RawMessage, error) {
	if detail == adp.DetailFull {
		if raw := c.Raw(); raw != nil {
			return raw, nil
		}
		return c.MarshalJSON()
	}
	type endpoint struct {
		Protocol string   `json:"protocol"`
		URI      string   `json:"uri"`
		Methods  []string `json:"methods,omitempty"`
	}
	type tool struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
	}
	type constraints struct {
		MaxConcurrentTasks *int     `json:"max_concurrent_tasks,omitempty"`
		MaxInputTokens     *int     `json:"max_input_tokens,omitempty"`
		SupportedLanguages []string `json:"supported_languages,omitempty"`
		RateLimit          string   `json:"rate_limit,omitempty"`
	}
	type metadata struct {
		CreatedAt string `json:"created_at,omitempty"`
		UpdatedAt string `json:"updated_at,omitempty"`
		TTL       *int64 `json:"ttl,omitempty"`
	}
	type subset struct {
		ID          string       `json:"id"`
		Name        string       `json:"name"`
		Description string       `json:"description,omitempty"`
		Version     string       `json:"version,omitempty"`
		Skills      []string     `json:"skills,omitempty"`
		Status      string       `json:"status,omitempty"`
		DID         string       `json:"did,omitempty"`
		Tools       []tool       `json:"tools,omitempty"`
		Endpoints   []endpoint   `json:"endpoints,omitempty"`
		Constraints *constraints `json:"constraints,omitempty"`
		Metadata    *metadata    `json:"metadata,omitempty"`
	}
	s := subset{ID: c.ID, Name: c.Name, Status: c.Status}
	for _, ep := range c.Endpoints {
		e := endpoint{Protocol: ep.Protocol, URI: ep.URI}
		if detail != adp.DetailMinimal {
			e.Methods = ep.Methods
		}
		s.Endpoints = append(s.Endpoints, e)
	}
	if detail != adp.DetailMinimal {
		s.Description, s.Version, s.Skills, s.DID = c.Description, c.Version, c.Skills, c.DID
		for _, t := range c.Tools {
			s.Tools = append(s.Tools, tool{Name: t.Name, Description: t.Description})
		}
		if k := c.Constraints; k != nil {
			s.Constraints = &constraints{k.MaxConcurrentTasks, k.MaxInputTokens, k.SupportedLanguages, k.RateLimit}
		}
		if m := c.Metadata; m != nil {
			s.Metadata = &metadata{m.CreatedAt, m.UpdatedAt, m.TTL}
		}
	}
	return json.Marshal(s)
}

// DocFromCard is the searchable view of a card: name, description,
// skills, tools with the text of their input schemas, examples,
// endpoint protocols, status, max_concurrent_tasks and times. Nothing the
// card says about its own reputation is used.
func DocFromCard(c *adp.Card, indexedAt, expiresAt time.Time) scoring.Doc {
	d := scoring.Doc{
		ID: c.ID, Name: c.Name, Description: c.Description, Tags: c.Skills, Status: c.Status,
		IndexedAt: indexedAt, ExpiresAt: expiresAt, Revoked: c.IsRevocation(),
	}
	for _, t := range c.Tools {
		d.Tools = append(d.Tools, scoring.ToolText{Name: t.Name, Description: t.Description, InputProps: scoring.SchemaText(t.InputSchema)})
	}
	for _, e := range c.Examples {
		d.Examples = append(d.Examples, scoring.ExampleText{ID: e.ID, Text: e.Text, Tags: e.Tags})
	}
	for _, ep := range c.Endpoints {
		if !slices.Contains(d.Protocols, ep.Protocol) {
			d.Protocols = append(d.Protocols, ep.Protocol)
		}
	}
	if c.Constraints != nil && c.Constraints.MaxConcurrentTasks != nil {
		d.MaxConcurrent = max(*c.Constraints.MaxConcurrentTasks, 0)
	}
	if c.Metadata != nil && c.Metadata.UpdatedAt != "" {
		if t, err := time.Parse(time.RFC3339, c.Metadata.UpdatedAt); err == nil {
			d.UpdatedAt = t
		}
	}
	return d
}

// QueryFromRequest translates a parsed adp.discover request and returns
// the constraints it cannot apply (for unsupported_filters). Applied
// constraints: max_results_age_seconds and allow_stale.
func QueryFromRequest(req *adp.DiscoverRequest) (scoring.Query, []string) {
	q := scoring.Query{
		Text: req.Query, Tags: req.Tags, RequiredTags: req.RequiredTags, PreferredTags: req.PreferredTags,
		ExcludedTags: req.ExcludedTags, Protocols: req.Protocols, Limit: req.Limit,
		MinScore: adp.DefaultMinScore, AllowStale: req.AllowStale(),
	}
	if req.MinScore != nil {
		q.MinScore = *req.MinScore
	}
	if q.Limit <= 0 {
		q.Limit = adp.DefaultDiscoverLimit
	}
	if age, ok := req.MaxResultsAge(); ok {
		q.MaxAge = age
		if age == 0 {
			q.MaxAge = time.Nanosecond // 0 seconds: nothing older than now
		}
	}
	return q, req.UnsupportedConstraints()
}

func appliedFilters(req *adp.DiscoverRequest, q scoring.Query) map[string]any {
	f := map[string]any{"limit": q.Limit, "min_score": q.MinScore}
	for k, v := range map[string][]string{"required_tags": req.RequiredTags, "excluded_tags": req.ExcludedTags, "protocols": req.Protocols} {
		if len(v) > 0 {
			f[k] = v
		}
	}
	if q.MaxAge > 0 {
		if age, ok := req.MaxResultsAge(); ok {
			f[adp.ConstraintMaxResultsAge] = age.Seconds()
		}
	}
	if q.AllowStale {
		f[adp.ConstraintAllowStale] = true
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
