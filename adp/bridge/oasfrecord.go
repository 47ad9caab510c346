package bridge

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/adpnode/adpnode/adp"
)

// ToOASFRecord projects a card onto an OASF record (OASF schema 0.8.0), the
// document the AGNTCY directory (agntcy/dir) stores and serves, beside the
// AgentDescriptor of ADP Appendix A.3 that ToOASF writes:
//
//	(constant)            -> schema_version (OASFRecordSchemaVersion)
//	name                  -> name
//	version               -> version
//	description           -> description
//	skills                -> skills[].name (OASF names skills by a taxonomy
//	                         path, "category/sub/skill", with a numeric id;
//	                         ADP tags have no ids, so an id is written only
//	                         when the card came from a record that gave one)
//	metadata.created_at   -> created_at
//
// A record has no place for id, did, tools, endpoints (its locators say
// where to fetch the agent, not where to call it), examples, constraints,
// status, seq or the rest of the metadata. ToOASFRecord keeps them as a
// JSON string in annotations[CarrierKey] (record annotations are strings),
// which FromOASFRecord restores; a consumer that ignores the annotation
// loses them. The signature is never carried. The members FromOASFRecord
// kept in extensions["oasf-record"] (authors, domains, locators, modules,
// other annotations, skill ids, unknown members) are written back.
func ToOASFRecord(c *adp.Card) ([]byte, error) { return toOASFRecord(c, true) }

// toOASFRecord exports c; withCarrier adds the carrier (trimmed of what an
// import of the document without it derives anyway).
func toOASFRecord(c *adp.Card, withCarrier bool) ([]byte, error) {
	ext := extension(c, NamespaceOASFRecord)
	d := doc{"schema_version": OASFRecordSchemaVersion, "name": c.Name}
	d.setStr("version", c.Version)
	d.setStr("description", c.Description)
	if c.Metadata != nil {
		d.setStr("created_at", c.Metadata.CreatedAt)
	}
	// The skills as the source wrote them (with ids) while they still name
	// the card's skills.
	if kept := ext["skills"]; kept != nil && slices.Equal(recordSkillTags(kept), c.Skills) {
		d["skills"] = kept
	} else if len(c.Skills) > 0 {
		skills := make([]doc, len(c.Skills))
		for i, s := range c.Skills {
			skills[i] = doc{"name": s}
		}
		d["skills"] = skills
	}
	annotations := doc{}
	for k, v := range rawMap(ext["annotations"]) {
		annotations[k] = v
	}
	if withCarrier {
		carrier, err := carrierFor(c, NamespaceOASFRecord,
			[]string{"name", "description", "version", "skills"}, nil, nil)
		if err != nil {
			return nil, err
		}
		carrier = trimCarrier(carrier, NamespaceOASFRecord, func() (*adp.Card, error) {
			b, err := toOASFRecord(c, false)
			if err != nil {
				return nil, err
			}
			return fromOASFRecord(b, false)
		})
		if carrier != nil {
			b, err := marshal(carrier)
			if err != nil {
				return nil, err
			}
			annotations[CarrierKey] = string(b)
		}
	}
	if len(annotations) > 0 {
		d["annotations"] = annotations
	}
	for k, v := range ext {
		if k != "skills" && k != "annotations" {
			d[k] = v
		}
	}
	return marshal(d)
}

// FromOASFRecord imports an OASF record, reversing ToOASFRecord: the skill
// names become the card's skills (names outside the ADP tag syntax are
// lower-cased with "-" for spaces, or dropped), created_at becomes
// metadata.created_at, and the annotation annotations[CarrierKey] restores
// what ToOASFRecord kept. Everything else (schema_version, authors,
// domains, locators, modules, other annotations, the skills with their
// ids, unknown members) goes to extensions["oasf-record"]. The result is an
// unsigned card without an id unless the carrier had one.
func FromOASFRecord(data []byte) (*adp.Card, error) { return fromOASFRecord(data, true) }

// fromOASFRecord imports data; prune drops kept members the export writes
// anyway (off when called to trim a carrier, which avoids recursion).
func fromOASFRecord(data []byte, prune bool) (*adp.Card, error) {
	r, o, err := readDoc(data)
	if err != nil {
		return nil, err
	}
	card := doc{}
	ext := map[string]json.RawMessage{}
	card.setStr("name", o.str("name", true))
	card.setStr("version", o.str("version", false))
	card.setStr("description", o.str("description", false))
	if created := o.str("created_at", false); created != "" {
		card["metadata"] = doc{"created_at": created}
	}
	if raws := o.arr("skills"); raws != nil {
		var tags tagSet
		for i, raw := range raws {
			so := r.obj(fmt.Sprintf("/skills/%d", i), raw)
			if name := so.str("name", true); name != "" {
				tags.add(name)
			}
		}
		if tags.list != nil {
			card["skills"] = tags.list
		}
		ext["skills"] = o.get("skills")
	}
	var carrier map[string]json.RawMessage
	if ann := o.sub("annotations"); ann != nil {
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
	for k, v := range o.rest() {
		ext[k] = v
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	applyCarrier(card, carrier)
	return finishImport(card, NamespaceOASFRecord, ext, prune, func(c *adp.Card) ([]byte, error) { return toOASFRecord(c, false) }, func(ext, proj map[string]json.RawMessage) {
		pruneNested(ext, "annotations", proj["annotations"])
	})
}

// recordSkillTags returns the ADP tags a record's skills list names, as
// FromOASFRecord derives them.
func recordSkillTags(raw json.RawMessage) []string {
	var skills []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &skills) != nil {
		return nil
	}
	var tags tagSet
	for _, s := range skills {
		tags.add(s.Name)
	}
	return tags.list
}
