package bridge

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adpnode/adpnode/adp"
)

// agentCardProtocols are the endpoint.protocol values the AgentCard draft
// allows (validation rule 5).
var agentCardProtocols = []string{"http", "https", "grpc", "stdio", "mcp"}

// agentCardAuthSchemes are the endpoint.auth.scheme values it allows.
var agentCardAuthSchemes = []string{"none", "bearer", "api_key", "oauth2", "mtls"}

// ToAgentCard projects a card onto the AgentCard draft
// (draft-aevum-agentcard-00, media type AgentCardMediaType):
//
//	id (agent://...)          -> agent_id, a ULID derived from the key (AgentCardULID)
//	name, version             -> name, version
//	tools[]                   -> capabilities[] (name -> id, description,
//	                             input_schema, output_schema; skills -> tags)
//	best usable endpoint      -> endpoint {protocol, url, auth.scheme}
//	metadata.created_at       -> metadata.created_at
//
// The endpoint is the first, in priority order, whose protocol the draft
// allows (http, https, grpc, stdio, mcp; http+json becomes the scheme of its
// uri); auth "mutual_tls" becomes "mtls", and schemes the draft lacks (such
// as aitp_signed) are left out. Everything the draft cannot express (the
// ADP id, description, skills, examples, all endpoints, constraints, did,
// metadata, status, seq, per-tool streaming and idempotence, extensions) is
// kept in metadata[CarrierKey], which FromAgentCard restores. The signature
// is never carried. Fields kept in extensions["agentcard"] by FromAgentCard
// (the original agent_id, pricing, goal_subscriptions, other metadata) are
// written back.
//
// The result must pass ValidateAgentCard; when it would not (no tools, no
// usable endpoint, a version that is not SemVer, a tool name outside the
// capability id pattern, no id to derive agent_id from) ToAgentCard returns
// an *adp.ValidationError whose paths point into the AgentCard.
func ToAgentCard(c *adp.Card) ([]byte, error) { return toAgentCard(c, true, true) }

// toAgentCard exports c; withCarrier adds the carrier (trimmed of what an
// import of the document without it derives anyway).
//
// Unless strict, it skips the draft's rules and returns the document as
// built, which is what pruning an import needs (an imported card without an
// ADP id has no agent_id to derive, yet its other members still compare).
func toAgentCard(c *adp.Card, withCarrier, strict bool) ([]byte, error) {
	ext := extension(c, NamespaceAgentCard)
	var probs []adp.Problem
	d := doc{"name": c.Name, "version": c.Version}
	if id, ok := ext["agent_id"]; ok {
		d["agent_id"] = id
	} else if c.ID == "" {
		probs = append(probs, adp.Problem{Path: "/agent_id", Message: "cannot be derived: the card has no id (sign it with its key first, e.g. adpnode card sign)"})
	} else if u, err := AgentCardULID(c.ID); err != nil {
		probs = append(probs, adp.Problem{Path: "/agent_id", Message: "cannot be derived from the card's id: " + err.Error()})
	} else {
		d["agent_id"] = u
	}

	extCaps := rawMap(ext["capabilities"])
	caps := make([]doc, 0, len(c.Tools))
	for _, t := range c.Tools {
		cp := doc{"id": t.Name}
		cp.setStr("description", t.Description)
		if t.InputSchema != nil {
			cp["input_schema"] = t.InputSchema
		}
		if t.OutputSchema != nil {
			cp["output_schema"] = t.OutputSchema
		}
		if len(c.Skills) > 0 {
			cp["tags"] = c.Skills
		}
		for k, v := range rawMap(extCaps[t.Name]) {
			if string(v) == "null" {
				delete(cp, k) // the imported capability did not have it
			} else {
				cp[k] = v
			}
		}
		caps = append(caps, cp)
	}
	d["capabilities"] = caps

	if ep := agentCardEndpoint(c.Endpoints, rawMap(ext["endpoint"])); ep != nil {
		d["endpoint"] = ep
	} else {
		probs = append(probs, adp.Problem{Path: "/endpoint",
			Message: "is required: the card has no endpoint with protocol http, https, grpc, stdio or mcp (or http+json with an http or https uri)"})
	}

	meta := doc{}
	for k, v := range rawMap(ext["metadata"]) {
		meta[k] = v
	}
	if c.Metadata != nil {
		meta.setStr("created_at", c.Metadata.CreatedAt)
	}
	var carrier map[string]json.RawMessage
	if withCarrier {
		var err error
		carrier, err = carrierFor(c, NamespaceAgentCard,
			[]string{"name", "version"},
			[]string{"name", "description", "input_schema", "output_schema"},
			[]string{"endpoints"})
		if err != nil {
			return nil, err
		}
		carrier = trimCarrier(carrier, NamespaceAgentCard, func() (*adp.Card, error) {
			b, err := toAgentCard(c, false, true)
			if err != nil {
				return nil, err
			}
			return fromAgentCard(b, false)
		})
	}
	if carrier != nil {
		meta[CarrierKey] = carrier
	}
	if len(meta) > 0 {
		d["metadata"] = meta
	}
	for k, v := range ext {
		switch k {
		case "agent_id", "capabilities", "endpoint", "metadata":
		default:
			d[k] = v
		}
	}
	b, err := marshal(d)
	if err != nil || !strict {
		return b, err
	}
	if err := ValidateAgentCard(b); err != nil {
		var ve *adp.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		// Keep the explanations above over the generic "is required".
		for _, p := range ve.Problems {
			if !slices.ContainsFunc(probs, func(q adp.Problem) bool { return q.Path == p.Path }) {
				probs = append(probs, p)
			}
		}
	}
	if len(probs) > 0 {
		slices.SortStableFunc(probs, func(a, b adp.Problem) int { return strings.Compare(a.Path, b.Path) })
		return nil, &adp.ValidationError{Problems: probs}
	}
	return b, nil
}

// agentCardEndpoint picks the endpoint the draft can express and builds it
// over kept (the original endpoint's other members), or returns nil.
func agentCardEndpoint(eps []adp.Endpoint, kept map[string]json.RawMessage) doc {
	order := make([]int, len(eps))
	for i := range order {
		order[i] = i
	}
	prio := func(e adp.Endpoint) int {
		if e.Priority == nil {
			return 0
		}
		return *e.Priority
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(prio(eps[a]), prio(eps[b])) })
	for _, i := range order {
		e := eps[i]
		proto := strings.ToLower(e.Protocol)
		if proto == "http+json" {
			switch {
			case strings.HasPrefix(strings.ToLower(e.URI), "https://"):
				proto = "https"
			case strings.HasPrefix(strings.ToLower(e.URI), "http://"):
				proto = "http"
			}
		}
		if !slices.Contains(agentCardProtocols, proto) {
			continue
		}
		d := doc{}
		for k, v := range kept {
			d[k] = v
		}
		d["protocol"] = proto
		d["url"] = e.URI
		scheme := e.Auth
		if scheme == "mutual_tls" {
			scheme = "mtls"
		}
		if slices.Contains(agentCardAuthSchemes, scheme) {
			auth := rawMap(kept["auth"])
			if auth == nil {
				auth = map[string]json.RawMessage{}
			}
			auth["scheme"], _ = marshal(scheme)
			d["auth"] = auth
		}
		return d
	}
	return nil
}

// FromAgentCard imports an AgentCard, given as an object or as a JSON
// string holding one (the draft's embedded-string form). The document must
// pass ValidateAgentCard. Capabilities become tools (id -> name), their
// tags are merged into skills, the endpoint becomes the single endpoint
// (url -> uri, auth.scheme -> auth with mtls as mutual_tls), and
// metadata.created_at becomes metadata.created_at when it is an RFC 3339
// time. The ADP fields kept under metadata[CarrierKey] are restored, the
// ADP id among them. Everything else (agent_id when it is not the one
// derived from the id, pricing, goal_subscriptions, per-capability tags,
// other metadata, unknown members) goes to extensions["agentcard"], so that
// ToAgentCard writes it back. The result is an unsigned card, without an id
// unless the carrier had one.
func FromAgentCard(data []byte) (*adp.Card, error) { return fromAgentCard(data, true) }

// fromAgentCard imports data; prune drops kept members the export writes
// anyway (off when called to trim a carrier, which avoids recursion).
func fromAgentCard(data []byte, prune bool) (*adp.Card, error) {
	if err := checkDoc(data); err != nil {
		return nil, err
	}
	if trimmed := strings.TrimSpace(string(data)); strings.HasPrefix(trimmed, `"`) {
		var inner string
		if err := json.Unmarshal(data, &inner); err != nil {
			return nil, fmt.Errorf("%w: embedded AgentCard string: %v", ErrMalformed, err)
		}
		data = []byte(inner)
		if err := checkDoc(data); err != nil {
			return nil, err
		}
	}
	if err := ValidateAgentCard(data); err != nil {
		return nil, err
	}
	r := &reader{}
	o := r.root(data)
	card := doc{}
	ext := map[string]json.RawMessage{}
	ext["agent_id"] = o.get("agent_id")
	card.setStr("name", o.str("name", true))
	card.setStr("version", o.str("version", true))

	var tags tagSet
	extCaps := map[string]json.RawMessage{}
	raws := o.arr("capabilities")
	tools := make([]doc, 0, len(raws))
	seen := map[string]bool{}
	for i, raw := range raws {
		co := r.obj(fmt.Sprintf("/capabilities/%d", i), raw)
		id := co.str("id", true)
		if seen[id] {
			r.add(co.at("id"), "duplicate capability id %q", id)
			continue
		}
		seen[id] = true
		t := doc{"name": id}
		t.setStr("description", co.str("description", false))
		if s := co.schema("input_schema"); s != nil {
			t["input_schema"] = s
		}
		if s := co.schema("output_schema"); s != nil {
			t["output_schema"] = s
		}
		for _, tag := range co.strs("tags") {
			tags.add(tag)
		}
		// Keep the capability's own tags as written; the pruning below
		// drops them when they are the card's skills, as ToAgentCard writes.
		co.used["tags"] = false
		rest := co.rest()
		if !co.has("tags") {
			if rest == nil {
				rest = map[string]json.RawMessage{}
			}
			rest["tags"] = json.RawMessage("null") // ToAgentCard would add the card's skills
		}
		if rest != nil {
			extCaps[id], _ = marshal(rest)
		}
		tools = append(tools, t)
	}
	card["tools"] = tools
	if tags.list != nil {
		card["skills"] = tags.list
	}
	if len(extCaps) > 0 {
		ext["capabilities"], _ = marshal(extCaps)
	}

	eo := o.sub("endpoint")
	e := doc{"protocol": eo.str("protocol", true), "uri": eo.str("url", true)}
	if auth := eo.sub("auth"); auth != nil {
		switch s := auth.str("scheme", false); s {
		case "mtls":
			e["auth"] = "mutual_tls"
		case "":
		default:
			e["auth"] = s
		}
	}
	card["endpoints"] = []doc{e}
	kept := map[string]json.RawMessage{}
	for k, v := range eo.m {
		if k != "protocol" && k != "url" {
			kept[k] = v
		}
	}
	if len(kept) > 0 {
		ext["endpoint"], _ = marshal(kept)
	}

	var carrier map[string]json.RawMessage
	if mo := o.sub("metadata"); mo != nil {
		carrier = readCarrier(r, mo.at(CarrierKey), mo.get(CarrierKey))
		if s, ok := mo.m["created_at"]; ok {
			var ts string
			if json.Unmarshal(s, &ts) == nil {
				if _, err := time.Parse(time.RFC3339, ts); err == nil {
					mo.used["created_at"] = true
					card["metadata"] = doc{"created_at": ts}
				}
			}
		}
		if rest := mo.rest(); rest != nil {
			ext["metadata"], _ = marshal(rest)
		}
	}
	for k, v := range o.rest() {
		ext[k] = v
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	applyCarrier(card, carrier)
	return finishImport(card, NamespaceAgentCard, ext, prune, func(c *adp.Card) ([]byte, error) { return toAgentCard(c, false, false) }, func(ext, proj map[string]json.RawMessage) {
		pruneNested(ext, "metadata", proj["metadata"])
		pruneNested(ext, "endpoint", proj["endpoint"])
		pruneByName(ext, "capabilities", proj["capabilities"], "id")
	})
}
