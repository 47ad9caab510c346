package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/adpnode/adpnode/adp"
	adptag "github.com/adpnode/adpnode/adp/tag"
)

// ToA2A projects a card onto an A2A AgentCard (protocol 0.3), the document
// an agent serves at A2AWellKnownPath. The mapping extends ADP Appendix A.1:
//
//	name, description, version     -> name, description, version
//	endpoints[0].uri, .protocol    -> url, preferredTransport (upper case)
//	endpoints (when more than one) -> additionalInterfaces[{url, transport}]
//	  (no endpoints: url is the agent:// id, transport AITP)
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
// extension sees only the fields above. The signature is never carried.
//
// When the card was imported from A2A, the fields kept in
// extensions["a2a"] (provider, securitySchemes, skill names, per-skill tags
// and examples, ...) are written back as they were.
func ToA2A(c *adp.Card) ([]byte, error) { return toA2A(c, true) }

// toA2A exports c; withCarrier adds the carrier (trimmed of what an
// import of the document without it derives anyway).
func toA2A(c *adp.Card, withCarrier bool) ([]byte, error) {
	ext := extension(c, NamespaceA2A)
	d := doc{
		"protocolVersion":    A2AProtocolVersion,
		"name":               c.Name,
		"description":        c.Description,
		"version":            c.Version,
		"defaultInputModes":  []string{"application/json"},
		"defaultOutputModes": []string{"application/json"},
	}
	if len(c.Endpoints) > 0 {
		d["url"] = c.Endpoints[0].URI
		d["preferredTransport"] = strings.ToUpper(c.Endpoints[0].Protocol)
		if len(c.Endpoints) > 1 {
			// A2A 0.3: additionalInterfaces should list the main url too.
			var more []doc
			for _, e := range c.Endpoints {
				more = append(more, doc{"url": e.URI, "transport": strings.ToUpper(e.Protocol)})
			}
			d["additionalInterfaces"] = more
		}
	} else {
		d["url"] = c.ID
		d["preferredTransport"] = "AITP"
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
			"required":    false,
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

// FromA2A imports an A2A AgentCard. It reverses ToA2A: skills become tools
// (id -> name, description -> description), the union of the skills' tags
// becomes the card's skills (tags outside the ADP tag syntax are lower-cased
// with "-" for spaces, or dropped), each skill example becomes an example
// tagged with the skill id, url/preferredTransport and additionalInterfaces
// become endpoints (protocol in lower case), and a url that is an ADP agent
// id becomes the card's id. The ADP fields kept by ToA2A under CarrierKey
// are restored. Everything else the document says (provider, security
// schemes, skill names, input and output modes, the capabilities other than
// the carrier, unknown fields) is kept in extensions["a2a"] so that ToA2A
// writes it back.
//
// The result is an unsigned card; it may lack an id (A2A has none unless
// url is an agent:// id): set one by signing it.
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

	var endpoints []doc
	seenEndpoint := map[[2]string]bool{}
	addEndpoint := func(uri, transport string, extra map[string]json.RawMessage) {
		proto := strings.ToLower(transport)
		if seenEndpoint[[2]string{uri, proto}] {
			return
		}
		seenEndpoint[[2]string{uri, proto}] = true
		e := doc{"protocol": proto, "uri": uri}
		e.merge(extra)
		endpoints = append(endpoints, e)
		if _, ok := card["id"]; !ok {
			if id, err := adp.NormalizeAgentID(uri); err == nil {
				card["id"] = id
			}
		}
	}
	url := o.str("url", false)
	transport := o.str("preferredTransport", false)
	if transport == "" {
		transport = A2ADefaultTransport
	}
	if url != "" {
		addEndpoint(url, transport, nil)
	}
	for i, raw := range o.arr("additionalInterfaces") {
		io := r.obj(fmt.Sprintf("/additionalInterfaces/%d", i), raw)
		u, tr := io.str("url", true), io.str("transport", true)
		if u != "" && tr != "" {
			addEndpoint(u, tr, io.rest())
		}
	}
	if endpoints != nil {
		card["endpoints"] = endpoints
	}

	var carrier map[string]json.RawMessage
	if caps := o.sub("capabilities"); caps != nil {
		keep := caps.rest()
		if keep == nil {
			keep = map[string]json.RawMessage{}
		}
		delete(keep, "extensions")
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
		if others != nil {
			keep["extensions"], _ = marshal(others)
		}
		if len(keep) > 0 {
			ext["capabilities"], _ = marshal(keep)
		}
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
	// Members ToA2A writes by default but the document lacks: remember
	// their absence so that the export leaves them out again.
	for _, k := range []string{"protocolVersion", "preferredTransport", "defaultInputModes", "defaultOutputModes"} {
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
