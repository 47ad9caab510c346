package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/adpnode/adpnode/adp"
)

// ToOASF projects a card onto an OASF AgentDescriptor (ADP Appendix A.3):
//
//	name                  -> metadata.name
//	skills                -> metadata.labels.skills, joined with ","
//	version               -> metadata.labels.version
//	description           -> spec.description
//	tools[].name          -> spec.capabilities[].name
//	tools[].description   -> spec.capabilities[].description
//	tools[].input_schema  -> spec.capabilities[].inputSchema
//	endpoints[]           -> spec.endpoints[] with uri renamed url
//
// OASF has no id, did, seq, constraints, metadata, examples, status, output
// schemas, streaming or idempotence (A.3: "omitted in the OASF
// projection"). ToOASF keeps them as a JSON string in the annotation
// metadata.annotations[CarrierKey], which FromOASF restores; a consumer that
// ignores the annotation loses them. The signature is never carried. Fields
// kept in extensions["oasf"] by FromOASF are written back.
func ToOASF(c *adp.Card) ([]byte, error) { return toOASF(c, true) }

// toOASF exports c; withCarrier adds the carrier (trimmed of what an
// import of the document without it derives anyway).
func toOASF(c *adp.Card, withCarrier bool) ([]byte, error) {
	ext := extension(c, NamespaceOASF)
	labels := doc{}
	for k, v := range rawMap(ext["labels"]) {
		labels[k] = v
	}
	// A kept skills label (as the source wrote it, spaces and all) is used
	// while it still says the card's skills.
	if kept, ok := labels["skills"].(json.RawMessage); !ok || !slices.Equal(splitSkills(unquote(kept)), c.Skills) {
		delete(labels, "skills")
		if len(c.Skills) > 0 {
			labels["skills"] = strings.Join(c.Skills, ",")
		}
	}
	labels.setStr("version", c.Version)
	meta := doc{"name": c.Name}
	for k, v := range rawMap(ext["metadata"]) {
		meta[k] = v
	}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	annotations := doc{}
	for k, v := range rawMap(ext["annotations"]) {
		annotations[k] = v
	}
	var carrier map[string]json.RawMessage
	if withCarrier {
		var err error
		carrier, err = carrierFor(c, NamespaceOASF,
			[]string{"name", "description", "version", "skills", "endpoints"},
			[]string{"name", "description", "input_schema"}, nil)
		if err != nil {
			return nil, err
		}
		carrier = trimCarrier(carrier, NamespaceOASF, func() (*adp.Card, error) {
			b, err := toOASF(c, false)
			if err != nil {
				return nil, err
			}
			return fromOASF(b, false)
		})
	}
	if carrier != nil {
		b, err := marshal(carrier)
		if err != nil {
			return nil, err
		}
		annotations[CarrierKey] = string(b)
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}

	spec := doc{}
	for k, v := range rawMap(ext["spec"]) {
		spec[k] = v
	}
	spec.setStr("description", c.Description)
	extCaps := rawMap(ext["capabilities"])
	caps := make([]doc, 0, len(c.Tools))
	for _, t := range c.Tools {
		cp := doc{"name": t.Name}
		cp.setStr("description", t.Description)
		if t.InputSchema != nil {
			cp["inputSchema"] = t.InputSchema
		}
		cp.merge(rawMap(extCaps[t.Name]))
		caps = append(caps, cp)
	}
	spec["capabilities"] = caps
	if c.Endpoints != nil {
		eps := make([]map[string]json.RawMessage, 0, len(c.Endpoints))
		for i := range c.Endpoints {
			b, err := c.Endpoints[i].MarshalJSON()
			if err != nil {
				return nil, err
			}
			m := rawMap(b)
			if u, ok := m["uri"]; ok {
				m["url"] = u
				delete(m, "uri")
			}
			eps = append(eps, m)
		}
		spec["endpoints"] = eps
	}

	d := doc{"apiVersion": OASFAPIVersion, "kind": OASFKind, "metadata": meta, "spec": spec}
	for k, v := range ext {
		switch k {
		case "labels", "metadata", "annotations", "spec", "capabilities":
		default:
			d[k] = v
		}
	}
	return marshal(d)
}

// FromOASF imports an OASF AgentDescriptor, reversing ToOASF: skills are
// split from metadata.labels.skills (tags outside the ADP syntax are
// lower-cased with "-" for spaces, or dropped), spec.endpoints[].url
// becomes uri and the other endpoint members pass through, and the
// annotation metadata.annotations[CarrierKey] restores what ToOASF kept.
// Everything else (apiVersion, kind, other labels, annotations, metadata
// and spec members, unknown capability members) goes to extensions["oasf"].
// The result is an unsigned card without an id unless the carrier had one.
func FromOASF(data []byte) (*adp.Card, error) { return fromOASF(data, true) }

// fromOASF imports data; prune drops kept members the export writes
// anyway (off when called to trim a carrier, which avoids recursion).
func fromOASF(data []byte, prune bool) (*adp.Card, error) {
	r, o, err := readDoc(data)
	if err != nil {
		return nil, err
	}
	card := doc{}
	ext := map[string]json.RawMessage{}
	var carrier map[string]json.RawMessage

	meta := o.sub("metadata")
	if meta == nil && !o.has("metadata") {
		r.add("/metadata", "is required")
	}
	card.setStr("name", meta.str("name", true))
	if labels := meta.sub("labels"); labels != nil {
		label := labels.str("skills", false)
		if tags := splitSkills(label); tags != nil {
			card["skills"] = tags
			if label != strings.Join(tags, ",") {
				labels.used["skills"] = false // keep the label as written
			}
		}
		card.setStr("version", labels.str("version", false))
		if rest := labels.rest(); rest != nil {
			ext["labels"], _ = marshal(rest)
		}
	}
	if ann := meta.sub("annotations"); ann != nil {
		if s := ann.str(CarrierKey, false); s != "" {
			if depth([]byte(s)) > MaxDepth || !json.Valid([]byte(s)) {
				r.add(ann.at(CarrierKey), "must hold a JSON object")
			} else {
				carrier = readCarrier(r, ann.at(CarrierKey), json.RawMessage(s))
			}
		}
		if rest := ann.rest(); rest != nil {
			ext["annotations"], _ = marshal(rest)
		}
	}
	if rest := meta.rest(); rest != nil {
		ext["metadata"], _ = marshal(rest)
	}

	spec := o.sub("spec")
	card.setStr("description", spec.str("description", false))
	extCaps := map[string]json.RawMessage{}
	if raws := spec.arr("capabilities"); raws != nil {
		tools := make([]doc, 0, len(raws))
		seen := map[string]bool{}
		for i, raw := range raws {
			co := r.obj(fmt.Sprintf("/spec/capabilities/%d", i), raw)
			name := co.str("name", true)
			if co == nil || name == "" {
				continue
			}
			if seen[name] {
				r.add(co.at("name"), "duplicate capability name %q", name)
				continue
			}
			seen[name] = true
			t := doc{"name": name}
			t.setStr("description", co.str("description", false))
			if s := co.schema("inputSchema"); s != nil {
				t["input_schema"] = s
			}
			if rest := co.rest(); rest != nil {
				extCaps[name], _ = marshal(rest)
			}
			tools = append(tools, t)
		}
		if len(tools) > 0 { // ToOASF always writes the list, possibly empty
			card["tools"] = tools
		}
	}
	if len(extCaps) > 0 {
		ext["capabilities"], _ = marshal(extCaps)
	}
	if raws := spec.arr("endpoints"); raws != nil {
		eps := make([]doc, 0, len(raws))
		for i, raw := range raws {
			eo := r.obj(fmt.Sprintf("/spec/endpoints/%d", i), raw)
			if eo == nil {
				continue
			}
			e := doc{}
			e.setStr("uri", eo.str("url", true))
			e.merge(eo.rest())
			eps = append(eps, e)
		}
		card["endpoints"] = eps
	}
	if rest := spec.rest(); rest != nil {
		ext["spec"], _ = marshal(rest)
	}
	for k, v := range o.rest() {
		ext[k] = v
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	applyCarrier(card, carrier)
	return finishImport(card, NamespaceOASF, ext, prune, func(c *adp.Card) ([]byte, error) { return toOASF(c, false) }, func(ext, proj map[string]json.RawMessage) {
		meta := rawMap(proj["metadata"])
		spec := rawMap(proj["spec"])
		pruneNested(ext, "labels", meta["labels"])
		pruneNested(ext, "annotations", meta["annotations"])
		pruneNested(ext, "metadata", proj["metadata"])
		pruneNested(ext, "spec", proj["spec"])
		pruneByName(ext, "capabilities", spec["capabilities"], "name")
	})
}

// splitSkills splits an OASF skills label: comma-separated tags, spaces
// around them ignored, tags outside the ADP syntax normalized or dropped.
func splitSkills(label string) []string {
	var tags tagSet
	for _, t := range strings.Split(label, ",") {
		tags.add(strings.TrimSpace(t))
	}
	return tags.list
}

// unquote decodes a JSON string, "" for anything else.
func unquote(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
