package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/adpnode/adpnode/adp"
)

// profileStatuses are the status values of discovery profile 4.8, which ADP
// cards carry as they are.
var profileStatuses = []string{adp.StatusActive, adp.StatusInactive, adp.StatusSuspended, adp.StatusDeprecated, adp.StatusTesting}

// ToProfile projects a card onto discovery-profile Agent Metadata
// (draft-xu, Section 4), a D0 document:
//
//	id, name, description, version, status -> same
//	skills                     -> tags
//	examples                   -> examples (every member, {id, text, tags, ...})
//	endpoints[]                -> bindings[] (uri -> endpoint; protocol,
//	                              priority and every other member as they are)
//	constraints                -> constraints (every member)
//	metadata.updated_at        -> updated_at
//	metadata.expires_at        -> expires_at (an extra metadata member)
//
// The profile has no tools, did, seq, created_at or ttl; ToProfile keeps
// them, with every other ADP member, in the top-level member CarrierKey
// (the profile asks relays to preserve unknown members, and private ones
// to have URI names), which FromProfile restores. The signature is never
// carried: the profile's signature member is an object of another shape.
// Members kept in extensions["profile"] by FromProfile (auth, signature, a
// non-ADP id, unknown members) are written back; a kept id is used when
// present.
//
// The profile requires id, name, description and at least one binding; a
// card without them gives an *adp.ValidationError with paths into the
// profile document.
func ToProfile(c *adp.Card) ([]byte, error) { return toProfile(c, true) }

// toProfile exports c; withCarrier adds the carrier (trimmed of what an
// import of the document without it derives anyway).
func toProfile(c *adp.Card, withCarrier bool) ([]byte, error) {
	ext := extension(c, NamespaceProfile)
	d := doc{}
	d.setStr("id", c.ID)
	d.setStr("name", c.Name)
	d.setStr("description", c.Description)
	d.setStr("version", c.Version)
	d.setStr("status", c.Status)
	if c.Skills != nil {
		d["tags"] = c.Skills
	}
	if c.Examples != nil {
		ex := make([]json.RawMessage, 0, len(c.Examples))
		for i := range c.Examples {
			b, err := c.Examples[i].MarshalJSON()
			if err != nil {
				return nil, err
			}
			ex = append(ex, b)
		}
		d["examples"] = ex
	}
	if c.Endpoints != nil {
		bs := make([]map[string]json.RawMessage, 0, len(c.Endpoints))
		for i := range c.Endpoints {
			b, err := c.Endpoints[i].MarshalJSON()
			if err != nil {
				return nil, err
			}
			m := rawMap(b)
			if u, ok := m["uri"]; ok {
				m["endpoint"] = u
				delete(m, "uri")
			}
			bs = append(bs, m)
		}
		d["bindings"] = bs
	}
	if c.Constraints != nil {
		b, err := c.Constraints.MarshalJSON()
		if err != nil {
			return nil, err
		}
		d["constraints"] = json.RawMessage(b)
	}
	if m := c.Metadata; m != nil {
		d.setStr("updated_at", m.UpdatedAt)
		if v, ok := m.Extra["expires_at"]; ok {
			d["expires_at"] = v
		}
	}
	var carrier map[string]json.RawMessage
	if withCarrier {
		var err error
		carrier, err = carrierFor(c, NamespaceProfile,
			[]string{"id", "name", "description", "version", "status", "skills", "examples", "endpoints", "constraints"},
			nil, nil)
		if err != nil {
			return nil, err
		}
		carrier = trimCarrier(carrier, NamespaceProfile, func() (*adp.Card, error) {
			b, err := toProfile(c, false)
			if err != nil {
				return nil, err
			}
			return fromProfile(b, false)
		})
	}
	if carrier != nil {
		d[CarrierKey] = carrier
	}
	for k, v := range ext {
		d[k] = v
	}
	var probs []adp.Problem
	for _, k := range []string{"id", "name", "description"} {
		if _, ok := d[k]; !ok {
			probs = append(probs, adp.Problem{Path: "/" + k, Message: "is required by the discovery profile"})
		}
	}
	if len(c.Endpoints) == 0 {
		probs = append(probs, adp.Problem{Path: "/bindings", Message: "the discovery profile requires at least one binding (the card has no endpoints)"})
	}
	if len(probs) > 0 {
		return nil, &adp.ValidationError{Problems: probs}
	}
	return marshal(d)
}

// FromProfile imports discovery-profile Agent Metadata. It checks what the
// profile requires (id, name, description, at least one binding with
// protocol and endpoint, example text) and the types and timestamps of the
// optional members, then reverses ToProfile: tags become skills (tags
// outside the ADP syntax are lower-cased with "-" for spaces, or dropped,
// and the original list is kept), bindings become endpoints, examples and
// constraints pass through, updated_at and expires_at go to metadata. An id
// that is not an ADP agent id (the profile allows any stable identifier)
// is kept in extensions["profile"] and the card has no id until signed; a
// status outside the profile's five values is kept there too. The ADP
// members under CarrierKey are restored; auth, signature and unknown
// members go to extensions["profile"].
func FromProfile(data []byte) (*adp.Card, error) { return fromProfile(data, true) }

// fromProfile imports data; prune drops kept members the export writes
// anyway (off when called to trim a carrier, which avoids recursion).
func fromProfile(data []byte, prune bool) (*adp.Card, error) {
	r, o, err := readDoc(data)
	if err != nil {
		return nil, err
	}
	card := doc{}
	ext := map[string]json.RawMessage{}
	id := o.str("id", true)
	if _, err := adp.PeerIDFromAgentID(id); err == nil {
		card["id"] = id
	} else if id != "" {
		ext["id"], _ = marshal(id)
	}
	card.setStr("name", o.str("name", true))
	card.setStr("description", o.str("description", true))
	card.setStr("version", o.str("version", false))
	if st := o.str("status", false); slices.Contains(profileStatuses, st) {
		card["status"] = st
	} else if st != "" {
		ext["status"], _ = marshal(st)
	}
	if tags := o.strs("tags"); tags != nil {
		var set tagSet
		for _, t := range tags {
			set.add(t)
		}
		skills := set.list
		if skills == nil {
			skills = []string{}
		}
		card["skills"] = skills
		if !slices.Equal(skills, tags) {
			ext["tags"], _ = marshal(tags)
		}
	}
	if raws := o.arr("examples"); raws != nil {
		for i, raw := range raws {
			eo := r.obj(fmt.Sprintf("/examples/%d", i), raw)
			eo.str("id", false)
			eo.str("text", true)
			eo.strs("tags")
			eo.str("language", false)
			eo.schema("input_schema")
			eo.schema("output_schema")
		}
		card["examples"] = raws
	}
	raws := o.arr("bindings")
	if len(raws) == 0 {
		r.add("/bindings", "must contain at least one binding")
	}
	eps := make([]doc, 0, len(raws))
	for i, raw := range raws {
		bo := r.obj(fmt.Sprintf("/bindings/%d", i), raw)
		if bo == nil {
			continue
		}
		e := doc{"protocol": bo.str("protocol", true), "uri": bo.str("endpoint", true)}
		bo.strs("media_types")
		bo.str("interaction_model", false)
		e.merge(bo.m)
		delete(e, "endpoint")
		eps = append(eps, e)
	}
	if raws != nil {
		card["endpoints"] = eps
	}
	if co := o.sub("constraints"); co != nil {
		card["constraints"] = o.m["constraints"]
	}
	meta := doc{}
	for _, k := range []string{"updated_at", "expires_at"} {
		if ts := o.str(k, false); ts != "" {
			if _, err := time.Parse(time.RFC3339, ts); err != nil {
				r.add("/"+k, "must be an RFC 3339 timestamp, got %q", ts)
			}
			meta[k] = ts
		}
	}
	if len(meta) > 0 {
		card["metadata"] = meta
	}
	o.sub("auth")
	if o.has("auth") {
		ext["auth"] = o.m["auth"]
	}
	var carrier map[string]json.RawMessage
	if raw := o.get(CarrierKey); raw != nil {
		carrier = readCarrier(r, "/"+pointerToken(CarrierKey), raw)
	}
	for k, v := range o.rest() {
		ext[k] = v
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	applyCarrier(card, carrier)
	return finishImport(card, NamespaceProfile, ext, prune, func(c *adp.Card) ([]byte, error) { return toProfile(c, false) }, nil)
}
