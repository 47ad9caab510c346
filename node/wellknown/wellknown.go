package wellknown

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node/a2aserver"
)

// Document limits and cache lifetimes.
const (
	// MaxAge is how long a client may reuse a document without asking
	// again: short, because the card behind it can change at any time
	// (A2A 1.0 asks for Cache-Control and ETag but names no lifetime).
	MaxAge = 5 * time.Minute
	// AgentCardMaxAge is the lifetime of the AgentCard document, the one
	// its draft recommends (Well-Known URI Discovery: max-age=3600).
	AgentCardMaxAge = time.Hour
	// ANPPageSize is the number of items per ANP CollectionPage.
	ANPPageSize = 100
	// MaxPage bounds the page query parameter of the ANP collection.
	MaxPage = 1 << 20
)

// Paths of the documents.
const (
	ADPCardPath = "/.well-known/adp-card.json"
	// DescriptionPattern is the ServeMux pattern of the ANP agent
	// descriptions; Description takes its {id}.
	DescriptionPattern = "/agents/{id}/ad.json"
)

// Content types, with the charset the documents are written in.
const (
	JSONType      = "application/json; charset=utf-8"
	agentCardType = bridge.AgentCardMediaType + "; charset=utf-8"
	anpType       = bridge.ANPMediaType + "; charset=utf-8"
)

// Source is what the documents are made from; package node implements it.
type Source interface {
	// Card is the node's own signed card.
	Card() *adp.Card
	// AgentCardID is the AgentCard agent_id: a ULID created once and kept.
	AgentCardID() string
	// SignA2A signs an A2A AgentCard with the node's key (bridge.SignA2A).
	SignA2A(card []byte) ([]byte, error)
	// DescribedCards returns at most limit of the cards the ANP collection
	// lists, from offset, and how many it lists in all; DescribedCard the
	// card an ANP description of agentID is made from, nil when none.
	DescribedCards(ctx context.Context, offset, limit int) ([]*adp.Card, int, error)
	DescribedCard(agentID string) *adp.Card
}

// Base is where a server is reached: the documents link to it.
type Base struct {
	// URL is the server's absolute http or https base URL.
	URL string
	// InvokeURL is the http endpoint the AgentCard document names when the
	// card has none (the draft requires one); "" names URL itself.
	InvokeURL string
	// A2AURL is where the server answers A2A JSON-RPC requests (an
	// a2aserver.Server); the A2A card names it first among its
	// interfaces. "" = no A2A server there.
	A2AURL string
}

// Document is one rendered document.
type Document struct {
	Body        []byte
	ContentType string
	MaxAge      time.Duration
	// Modified is when the card behind the document was updated (its
	// metadata.updated_at); zero when unknown or several cards make it.
	Modified time.Time
}

// Docs renders the documents of a Source. Safe for concurrent use.
type Docs struct {
	src Source

	mu     sync.Mutex
	a2aFor *adp.Card         // the card the bodies of a2a were signed from
	a2a    map[string][]byte // signed A2A cards by Base.A2AURL
}

// maxA2ABodies bounds the signed A2A cards kept for one card: one per
// A2A URL the servers name (a public server's base may follow the
// request's Host).
const maxA2ABodies = 8

// New returns the documents of src.
func New(src Source) *Docs { return &Docs{src: src} }

// render builds one document from the own card for a base and query.
type render func(d *Docs, ctx context.Context, b Base, q url.Values) (*Document, error)

var docs = map[string]render{
	ADPCardPath:                   (*Docs).adpCard,
	bridge.A2AWellKnownPath:       (*Docs).a2aCard,
	bridge.AgentCardWellKnownPath: (*Docs).agentCard,
	bridge.AgentJSONWellKnownPath: (*Docs).agentJSON,
	bridge.ANPWellKnownPath:       (*Docs).anpCollection,
}

// Paths lists the /.well-known paths Render answers, sorted.
func Paths() []string {
	out := make([]string, 0, len(docs))
	for p := range docs {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Render returns the document at path (one of Paths) for a server reached
// at b; q is the request's query (page of the ANP collection). Errors:
// ErrNotFound, ErrBadPage, or why the card cannot be expressed.
func (d *Docs) Render(ctx context.Context, path string, b Base, q url.Values) (*Document, error) {
	f, ok := docs[path]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	return f(d, ctx, b, q)
}

func (d *Docs) adpCard(_ context.Context, _ Base, _ url.Values) (*Document, error) {
	c := d.src.Card()
	return document(c.Raw(), JSONType, MaxAge, c), nil
}

// a2aCard is the A2A AgentCard signed with the node's key; the last one
// is kept until the card changes (an Ed25519 signature is deterministic,
// so the bytes are those a new signing would give).
func (d *Docs) a2aCard(_ context.Context, b Base, _ url.Values) (*Document, error) {
	c := d.src.Card()
	d.mu.Lock()
	if d.a2aFor != c {
		d.a2aFor, d.a2a = c, nil
	}
	body := d.a2a[b.A2AURL]
	d.mu.Unlock()
	if body == nil {
		exported := c
		if b.A2AURL != "" {
			exported = a2aserver.WithJSONRPC(c, b.A2AURL)
		}
		doc, err := bridge.ToA2A(exported)
		if err != nil {
			return nil, err
		}
		if body, err = d.src.SignA2A(doc); err != nil {
			return nil, err
		}
		d.mu.Lock()
		if d.a2aFor == c {
			if d.a2a == nil || len(d.a2a) >= maxA2ABodies {
				d.a2a = map[string][]byte{}
			}
			d.a2a[b.A2AURL] = body
		}
		d.mu.Unlock()
	}
	return document(body, JSONType, MaxAge, c), nil
}

func (d *Docs) agentCard(_ context.Context, b Base, _ url.Values) (*Document, error) {
	c := d.src.Card()
	invoke := b.InvokeURL
	if invoke == "" {
		invoke = b.URL
	}
	ac, err := forAgentCard(c, invoke, d.src.AgentCardID())
	if err != nil {
		return nil, err
	}
	body, err := bridge.ToAgentCard(ac)
	if err != nil {
		return nil, err
	}
	return document(body, agentCardType, AgentCardMaxAge, c), nil
}

func (d *Docs) agentJSON(_ context.Context, _ Base, _ url.Values) (*Document, error) {
	c := d.src.Card()
	body, err := bridge.AgentJSON(c)
	if err != nil {
		return nil, err
	}
	return document(body, JSONType, MaxAge, c), nil
}

func (d *Docs) anpCollection(ctx context.Context, b Base, q url.Values) (*Document, error) {
	page := 1
	if s := q.Get("page"); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > MaxPage {
			return nil, fmt.Errorf("%w (1 to %d): %q", ErrBadPage, MaxPage, s)
		}
		page = p
	}
	offset := (page - 1) * ANPPageSize
	cards, total, err := d.src.DescribedCards(ctx, offset, ANPPageSize)
	if err != nil {
		return nil, err
	}
	body, err := bridge.ANPPage(cards, b.URL, page, offset+len(cards) < total)
	if err != nil {
		return nil, err
	}
	return document(body, anpType, MaxAge, nil), nil
}

// Description returns the ANP description of the agent id (agent://...,
// or its bare key as in DescriptionPattern's {id}): of the own card or, on
// a directory peer, of a held card. ErrNotFound when there is none.
func (d *Docs) Description(id string, b Base) (*Document, error) {
	id = "agent://" + strings.TrimPrefix(id, "agent://")
	c := d.src.DescribedCard(id)
	if c == nil {
		return nil, fmt.Errorf("%w: no description for %s", ErrNotFound, id)
	}
	body, err := bridge.ANPDescription(c, b.URL)
	if err != nil {
		return nil, err
	}
	return document(body, anpType, MaxAge, c), nil
}

// document wraps body, ended by a newline, with the update time of c.
func document(body []byte, contentType string, maxAge time.Duration, c *adp.Card) *Document {
	doc := &Document{Body: append(slices.Clip(body), '\n'), ContentType: contentType, MaxAge: maxAge}
	if c != nil && c.Metadata != nil {
		if t, err := time.Parse(time.RFC3339, c.Metadata.UpdatedAt); err == nil {
			doc.Modified = t
		}
	}
	return doc
}

// forAgentCard returns a copy of c that the AgentCard draft accepts: with
// invokeURL as an http(s) endpoint when c has none (the draft requires
// one), a version, and agent_id the node's ULID unless the card already
// names one (kept from an AgentCard it was imported from).
func forAgentCard(c *adp.Card, invokeURL, agentID string) (*adp.Card, error) {
	c = c.Clone()
	if !slices.ContainsFunc(c.Endpoints, func(e adp.Endpoint) bool { return e.Protocol == "http" || e.Protocol == "https" }) {
		proto := "http"
		if strings.HasPrefix(invokeURL, "https:") {
			proto = "https"
		}
		c.Endpoints = append(c.Endpoints, adp.Endpoint{Protocol: proto, URI: invokeURL, Methods: []string{"POST"}})
	}
	if c.Version == "" {
		c.Version = "0.0.0"
	}
	if agentID == "" {
		return c, nil
	}
	ext := map[string]json.RawMessage{}
	if raw, ok := c.Extensions[bridge.NamespaceAgentCard]; ok {
		if err := json.Unmarshal(raw, &ext); err != nil {
			return nil, fmt.Errorf("wellknown: extensions[%s]: %w", bridge.NamespaceAgentCard, err)
		}
	}
	if _, ok := ext["agent_id"]; ok {
		return c, nil
	}
	ext["agent_id"], _ = json.Marshal(agentID)
	raw, err := json.Marshal(ext)
	if err != nil {
		return nil, err
	}
	if c.Extensions == nil {
		c.Extensions = map[string]json.RawMessage{}
	}
	c.Extensions[bridge.NamespaceAgentCard] = raw
	return c, nil
}

// ETag returns the strong entity tag of body: a quoted hash of its bytes.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
}
