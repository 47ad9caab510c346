package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/adpnode/adpnode/adp"
	adptag "github.com/adpnode/adpnode/adp/tag"
)

// ToA2A projects a card onto an A2A AgentCard (A2A 1.0, Section 4.4.1),
// the document an agent serves at A2AWellKnownPath. The mapping extends ADP
// Appendix A.1:
//
//	name, description, version     -> name, description, version
//	endpoints[].uri, .protocol     -> supportedInterfaces[{url, protocolBinding
//	                                  (upper case), protocolVersion}], in order
//	  (no endpoints: url is the agent:// id, binding AITP; no id: none)
//	endpoint members protocolVersion, tenant -> the interface's (by
//	  default protocolVersion is A2AProtocolVersion)
//	tools[].name, .description     -> skills[].id (and .name), .description
//	skills                         -> skills[].tags (A2A tags are per skill)
//	examples tagged with a tool    -> that skill's examples (text only)
//	any(tools[].streaming)         -> capabilities.streaming
//
// A2A has no place for tool schemas, per-tool streaming, idempotence,
// endpoint methods/auth/priority, constraints, did, metadata, seq, status,
// example ids and tags, or other extensions. ToA2A keeps them, with
// everything else A2A cannot say, in a capabilities.extensions entry whose
// uri is CarrierKey; FromA2A restores them. An A2A client that ignores that
// extension sees only the fields above. The document is unsigned: sign it
// with SignA2A (A2A 1.0, Section 8.4); the ADP signature is never carried.
//
// When the card was imported from A2A, the fields kept in
// extensions["a2a"] (provider, securitySchemes, skill names, per-skill tags
// and examples, ...) are written back as they were. ToA2A writes no member
// at its protobuf default value (no "required": false, no empty optional
// list), so the document is its own signing payload (Section 8.4.1).
func ToA2A(c *adp.Card) ([]byte, error) { return toA2A(c, true) }

// toA2A exports c; withCarrier adds the carrier (trimmed of what an
// import of the document without it derives anyway).
func toA2A(c *adp.Card, withCarrier bool) ([]byte, error) {
	ext := extension(c, NamespaceA2A)
	d := doc{
		"name":                c.Name,
		"description":         c.Description,
		"version":             c.Version,
		"defaultInputModes":   []string{"application/json"},
		"defaultOutputModes":  []string{"application/json"},
		"supportedInterfaces": a2aInterfaces(c),
	}

	streaming := false
	for _, t := range c.Tools {
		if t.Streaming != nil && *t.Streaming {
			streaming = true
		}
	}
	caps := doc{}
	var capExts []json.RawMessage
	if m := rawMap(ext["capabilities"]); m != nil {
		for k, v := range m {
			switch k {
			case "streaming":
				streaming = streaming || string(v) == "true"
			case "extensions":
				_ = json.Unmarshal(v, &capExts)
			default:
				caps[k] = v
			}
		}
	}
	caps["streaming"] = streaming
	var carrier map[string]json.RawMessage
	if withCarrier {
		var err error
		carrier, err = carrierFor(c, NamespaceA2A,
			[]string{"name", "description", "version"},
			[]string{"name", "description"},
			[]string{"endpoints"})
		if err != nil {
			return nil, err
		}
		carrier = trimCarrier(carrier, NamespaceA2A, func() (*adp.Card, error) {
			b, err := toA2A(c, false)
			if err != nil {
				return nil, err
			}
			return fromA2A(b, false)
		})
	}
	if carrier != nil {
		entry, err := marshal(doc{
			"uri":         CarrierKey,
			"description": "ADP Agent Card fields that A2A cannot express",
			"params":      carrier,
		})
		if err != nil {
			return nil, err
		}
		capExts = append(capExts, entry)
	}
	if len(capExts) > 0 {
		caps["extensions"] = capExts
	}
	d["capabilities"] = caps

	extSkills := rawMap(ext["skills"])
	byTag := map[string][]string{} // example texts by tag, for the skills
	for _, e := range c.Examples {
		for i, tag := range e.Tags {
			if !slices.Contains(e.Tags[:i], tag) {
				byTag[tag] = append(byTag[tag], e.Text)
			}
		}
	}
	skills := make([]doc, 0, len(c.Tools))
	for _, t := range c.Tools {
		tags := c.Skills
		if tags == nil {
			tags = []string{}
		}
		s := doc{"id": t.Name, "name": t.Name, "description": t.Description, "tags": tags}
		if examples := byTag[t.Name]; examples != nil {
			s["examples"] = examples
		}
		for k, v := range rawMap(extSkills[t.Name]) {
			s[k] = v
		}
		skills = append(skills, s)
	}
	d["skills"] = skills
	for k, v := range ext {
		switch {
		case k == "capabilities" || k == "skills":
		case string(v) == "null":
			delete(d, k) // the imported document did not have this default
		default:
			d[k] = v
		}
	}
	return marshal(d)
}

// FromA2A imports an A2A AgentCard, of protocol 1.0 or 0.3. It reverses
// ToA2A: skills become tools (id -> name, description -> description), the
// union of the skills' tags becomes the card's skills (tags outside the ADP
// tag syntax are lower-cased with "-" for spaces, or dropped), each skill
// example becomes an example tagged with the skill id, supportedInterfaces
// (1.0) or url/preferredTransport and additionalInterfaces (0.3) become
// endpoints (protocol in lower case; see readA2AInterfaces), and an
// interface url that is an ADP agent id becomes the card's id. The ADP
// fields kept by ToA2A under CarrierKey are restored. Everything else the
// document says (provider, security schemes and requirements, skill names,
// input and output modes, the capabilities other than the carrier, unknown
// fields) is kept in extensions["a2a"] so that ToA2A writes it back; the
// members of a 0.3 card whose shape 1.0 changed are kept in their 1.0 form
// (see a2a03.go), and 0.3 capabilities.stateTransitionHistory, which 1.0
// removed, is dropped. The signatures are dropped: they cover the document
// as it was, and an export is new bytes to be signed again (SignA2A).
//
// The result is an unsigned card; it may lack an id (A2A has none unless
// an interface url is an agent:// id): set one by signing it.
func FromA2A(data []byte) (*adp.Card, error) { return fromA2A(data, true) }

// fromA2A imports data; prune drops kept members the export writes
// anyway (off when called to trim a carrier, which avoids recursion).
func fromA2A(data []byte, prune bool) (*adp.Card, error) {
	r, o, err := readDoc(data)
	if err != nil {
		return nil, err
	}
	card := doc{}
	ext := map[string]json.RawMessage{}
	card.setStr("name", o.str("name", true))
	card.setStr("description", o.str("description", false))
	card.setStr("version", o.str("version", false))

	legacy := !o.has("supportedInterfaces") && (o.has("url") || o.has("preferredTransport") || o.has("additionalInterfaces"))
	if endpoints := readA2AInterfaces(r, o); endpoints != nil {
		card["endpoints"] = endpoints
		for _, e := range endpoints {
			if id, err := adp.NormalizeAgentID(e["uri"].(string)); err == nil {
				card["id"] = id
				break
			}
		}
	}
	caps, carrier := readA2ACapabilities(r, o, legacy)
	if caps != nil {
		ext["capabilities"] = caps
	}

	var tags tagSet
	var examples []doc
	extSkills := map[string]json.RawMessage{}
	if raws := o.arr("skills"); raws != nil {
		tools := make([]doc, 0, len(raws))
		seen := map[string]bool{}
		for i, raw := range raws {
			so := r.obj(fmt.Sprintf("/skills/%d", i), raw)
			if so == nil {
				continue
			}
			id := so.str("id", true)
			if id == "" {
				continue
			}
			if seen[id] {
				r.add(so.at("id"), "duplicate skill id %q", id)
				continue
			}
			seen[id] = true
			t := doc{"name": id}
			t.setStr("description", so.str("description", false))
			tools = append(tools, t)
			for _, tag := range so.strs("tags") {
				tags.add(tag)
			}
			for j, text := range so.strs("examples") {
				e := doc{"id": fmt.Sprintf("%s#%d", id, j+1), "text": text}
				if importTag(id) == id {
					e["tags"] = []string{id}
				}
				examples = append(examples, e)
			}
			keep := map[string]json.RawMessage{}
			for k, v := range so.m {
				if k != "id" && k != "description" {
					keep[k] = v
				}
			}
			if legacy {
				upgradeSecurity03(keep, "security", "securityRequirements")
			}
			if len(keep) > 0 {
				extSkills[id], _ = marshal(keep)
			}
		}
		// A2A always lists skills (possibly none); "none" is not the
		// revocation of ADP 6.4, which A2A cannot express.
		if len(tools) > 0 {
			card["tools"] = tools
		}
	}
	if tags.list != nil {
		card["skills"] = tags.list
	}
	if examples != nil {
		card["examples"] = examples
	}
	if len(extSkills) > 0 {
		ext["skills"], _ = marshal(extSkills)
	}
	for k, v := range o.rest() {
		ext[k] = v
	}
	// Signatures cover the document as it was; the export is new bytes.
	delete(ext, "signatures")
	if legacy {
		upgradeCard03(ext)
	}
	// Members ToA2A writes by default but the document lacks: remember
	// their absence so that the export leaves them out again.
	for _, k := range []string{"defaultInputModes", "defaultOutputModes"} {
		if _, ok := o.m[k]; !ok {
			ext[k] = json.RawMessage("null")
		}
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	applyCarrier(card, carrier)
	return finishImport(card, NamespaceA2A, ext, prune, func(c *adp.Card) ([]byte, error) { return toA2A(c, false) }, func(ext, proj map[string]json.RawMessage) {
		pruneNested(ext, "capabilities", proj["capabilities"])
		pruneByName(ext, "skills", proj["skills"], "id")
	})
}

// importTag returns tag when it follows the ADP tag syntax, else its lower
// case with runs of spaces turned into "-" when that does, else "".
func importTag(tag string) string {
	if err := adptag.Check(tag); err == nil {
		return tag
	}
	t := strings.Join(strings.Fields(strings.ToLower(tag)), "-")
	if err := adptag.Check(t); err == nil {
		return t
	}
	return ""
}

// a2aInterfaces returns the supportedInterfaces of c: one per endpoint, in
// order, or the agent id over AITP when c has none (none at all when c
// has no id either).
func a2aInterfaces(c *adp.Card) []doc {
	if len(c.Endpoints) == 0 {
		if c.ID == "" {
			return []doc{}
		}
		return []doc{{"url": c.ID, "protocolBinding": "AITP", "protocolVersion": A2AProtocolVersion}}
	}
	out := make([]doc, 0, len(c.Endpoints))
	for _, e := range c.Endpoints {
		in := doc{"url": e.URI, "protocolBinding": strings.ToUpper(e.Protocol), "protocolVersion": A2AProtocolVersion}
		for _, k := range a2aInterfaceExtras {
			if v, ok := e.Extra[k]; ok {
				in[k] = v
			}
		}
		out = append(out, in)
	}
	return out
}

// a2aInterfaceExtras are the AgentInterface members an ADP endpoint keeps
// as members of its own, written back by the export.
var a2aInterfaceExtras = []string{"protocolVersion", "tenant"}

// readA2AInterfaces reads the endpoints of a document: the entries of the
// A2A 1.0 supportedInterfaces, then the A2A 0.3 url (with
// preferredTransport, by default A2ADefaultTransport) and
// additionalInterfaces, without repeating a (url, protocol) pair. An
// interface keeps its protocolVersion as a member of the endpoint unless it
// is A2AProtocolVersion, which the export writes anyway; an interface read
// from the 0.3 members gets the document's protocolVersion (by default
// A2ALegacyProtocolVersion), which is what it speaks. The other members of
// an interface (tenant, unknown ones) stay on the endpoint too.
func readA2AInterfaces(r *reader, o *object) []doc {
	var endpoints []doc
	seen := map[[2]string]bool{}
	add := func(uri, binding string, extra map[string]json.RawMessage) {
		proto := strings.ToLower(binding)
		if seen[[2]string{uri, proto}] {
			return
		}
		seen[[2]string{uri, proto}] = true
		e := doc{"protocol": proto, "uri": uri}
		e.merge(extra)
		endpoints = append(endpoints, e)
	}
	for i, raw := range o.arr("supportedInterfaces") {
		io := r.obj(fmt.Sprintf("/supportedInterfaces/%d", i), raw)
		u, b, v := io.str("url", true), io.str("protocolBinding", true), io.str("protocolVersion", false)
		extra := io.rest()
		if v != "" && v != A2AProtocolVersion {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra["protocolVersion"], _ = marshal(v)
		}
		if u != "" && b != "" {
			add(u, b, extra)
		}
	}

	version := o.str("protocolVersion", false)
	if version == "" {
		version = A2ALegacyProtocolVersion
	}
	legacyVersion, _ := marshal(version)
	url := o.str("url", false)
	transport := o.str("preferredTransport", false)
	if transport == "" {
		transport = A2ADefaultTransport
	}
	if url != "" {
		add(url, transport, map[string]json.RawMessage{"protocolVersion": legacyVersion})
	}
	for i, raw := range o.arr("additionalInterfaces") {
		io := r.obj(fmt.Sprintf("/additionalInterfaces/%d", i), raw)
		u, tr := io.str("url", true), io.str("transport", true)
		extra := io.rest()
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra["protocolVersion"] = legacyVersion
		if u != "" && tr != "" {
			add(u, tr, extra)
		}
	}
	return endpoints
}

// readA2ACapabilities reads the capabilities object: it returns the
// carrier (the params of the CarrierKey extension) and the rest to keep.
// For an A2A 0.3 document (legacy) it drops stateTransitionHistory, which
// 1.0 removed, and moves supportsAuthenticatedExtendedCard to
// capabilities.extendedAgentCard.
func readA2ACapabilities(r *reader, o *object, legacy bool) (keep json.RawMessage, carrier map[string]json.RawMessage) {
	members := map[string]json.RawMessage{}
	if caps := o.sub("capabilities"); caps != nil {
		var others []json.RawMessage
		for i, raw := range caps.arr("extensions") {
			eo := r.obj(fmt.Sprintf("/capabilities/extensions/%d", i), raw)
			if eo == nil {
				continue
			}
			if eo.str("uri", false) == CarrierKey {
				carrier = readCarrier(r, eo.at("params"), eo.get("params"))
				continue
			}
			others = append(others, raw)
		}
		for k, v := range caps.rest() {
			members[k] = v
		}
		if others != nil {
			members["extensions"], _ = marshal(others)
		}
	}
	if legacy {
		delete(members, "stateTransitionHistory")
	}
	if v := o.get("supportsAuthenticatedExtendedCard"); v != nil {
		members["extendedAgentCard"] = v
	}
	if len(members) > 0 {
		keep, _ = marshal(members)
	}
	return keep, carrier
}
