package bridge

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/adpnode/adpnode/adp"
)

// carrierFor returns the members of c that an export to a format cannot
// express, to be kept under CarrierKey: the card without its signature,
// without the members listed in carried, without the format's own extension
// namespace ns (the export restores that one into the document itself), and
// with each tool reduced to its name plus the members not in toolCarried.
// A member listed in nullIfAbsent that c lacks is written as null, telling
// the import to drop the value it would otherwise derive from the document.
// It returns nil when nothing is left.
//
// The signature never travels: a converted document is new bytes, so a
// card imported back is unsigned and must be signed again by its key.
func carrierFor(c *adp.Card, ns string, carried, toolCarried, nullIfAbsent []string) (map[string]json.RawMessage, error) {
	m, err := cardMap(c)
	if err != nil {
		return nil, err
	}
	delete(m, "signature")
	for _, k := range carried {
		delete(m, k)
	}
	if ext := rawMap(m["extensions"]); ext != nil {
		delete(ext, ns)
		if len(ext) == 0 {
			delete(m, "extensions")
		} else if b, err := marshal(ext); err == nil {
			m["extensions"] = b
		}
	}
	if raw, ok := m["tools"]; ok {
		var tools []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &tools); err != nil {
			return nil, err
		}
		keep := len(tools) == 0 // an empty tools array marks a revocation
		for _, t := range tools {
			for k := range t {
				if k != "name" && slices.Contains(toolCarried, k) {
					delete(t, k)
				}
			}
			if len(t) > 1 {
				keep = true
			}
		}
		if keep {
			b, err := marshal(tools)
			if err != nil {
				return nil, err
			}
			m["tools"] = b
		} else {
			delete(m, "tools")
		}
	}
	for _, k := range nullIfAbsent {
		if _, ok := m[k]; !ok {
			m[k] = json.RawMessage("null")
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// applyCarrier overlays the members kept by carrierFor on a card built from
// a document: the carrier is authoritative for what it holds, except tools,
// which are merged by name (members the document expressed win; a carried
// tool whose name the document no longer lists is dropped) unless the
// format has no tools, in which case the carried ones are taken whole. A null member
// removes what the import derived.
func applyCarrier(card doc, carrier map[string]json.RawMessage) {
	for k, v := range carrier {
		switch {
		case k == "tools":
			mergeTools(card, v)
		case string(v) == "null":
			delete(card, k)
		default:
			card[k] = v
		}
	}
}

func mergeTools(card doc, raw json.RawMessage) {
	var carried []map[string]json.RawMessage
	if json.Unmarshal(raw, &carried) != nil {
		return
	}
	derived, ok := card["tools"].([]doc)
	if !ok {
		// The format has no tools at all: the carrier holds them whole.
		card["tools"] = raw
		return
	}
	if len(carried) == 0 && len(derived) == 0 {
		card["tools"] = []doc{}
		return
	}
	byName := make(map[string]map[string]json.RawMessage, len(carried))
	for _, ct := range carried {
		var cn string
		if json.Unmarshal(ct["name"], &cn) == nil {
			if _, dup := byName[cn]; !dup {
				byName[cn] = ct
			}
		}
	}
	for _, t := range derived {
		name, _ := t["name"].(string)
		if ct, ok := byName[name]; ok {
			t.merge(ct)
		}
	}
}

// readCarrier reads the carrier object at path, reporting a problem when it
// is not an object.
func readCarrier(r *reader, path string, raw json.RawMessage) map[string]json.RawMessage {
	if raw == nil {
		return nil
	}
	o := r.obj(path, raw)
	if o == nil {
		return nil
	}
	return o.m
}

// setExtension stores fields under extensions[ns] of the card being built,
// merging with what is there.
func setExtension(card doc, ns string, fields map[string]json.RawMessage) error {
	if len(fields) == 0 {
		return nil
	}
	b, err := marshal(fields)
	if err != nil {
		return err
	}
	ext := map[string]json.RawMessage{}
	switch e := card["extensions"].(type) {
	case json.RawMessage:
		if m := rawMap(e); m != nil {
			ext = m
		}
	case map[string]json.RawMessage:
		ext = e
	}
	ext[ns] = b
	card["extensions"] = ext
	return nil
}

// extension returns the members of c.Extensions[ns], nil when absent.
func extension(c *adp.Card, ns string) map[string]json.RawMessage {
	return rawMap(c.Extensions[ns])
}

// finishImport stores what an import kept in extensions[ns] and builds the
// card. Before storing, it drops every kept member that the export to the
// same format (project, run on the card without extensions[ns]) writes
// identically anyway, so that a card exported and imported again does not
// gain an extension it did not have; prune handles nested members.
func finishImport(card doc, ns string, ext map[string]json.RawMessage, pruning bool,
	project func(*adp.Card) ([]byte, error), prune func(ext, proj map[string]json.RawMessage)) (*adp.Card, error) {
	if len(ext) > 0 && pruning {
		c0, err := finishCard(card)
		if err != nil {
			return nil, err
		}
		if b, err := project(c0); err == nil {
			proj := rawMap(b)
			for k, v := range ext {
				if sameJSON(v, proj[k]) {
					delete(ext, k)
				}
			}
			if prune != nil {
				prune(ext, proj)
			}
		}
	}
	if err := setExtension(card, ns, ext); err != nil {
		return nil, err
	}
	return finishCard(card)
}

// sameJSON reports whether two JSON values are equal as data.
func sameJSON(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// pruneNested drops from the object ext[key] the members that proj (the
// corresponding object of the projection) has with the same value.
func pruneNested(ext map[string]json.RawMessage, key string, proj json.RawMessage) {
	kept := rawMap(ext[key])
	if kept == nil {
		return
	}
	p := rawMap(proj)
	for k, v := range kept {
		if sameJSON(v, p[k]) {
			delete(kept, k)
		}
	}
	if len(kept) == 0 {
		delete(ext, key)
		return
	}
	ext[key], _ = marshal(kept)
}

// pruneByName does pruneNested for ext[key], an object of per-item objects
// keyed by name, against proj, an array of objects whose idKey is the name.
func pruneByName(ext map[string]json.RawMessage, key string, proj json.RawMessage, idKey string) {
	kept := rawMap(ext[key])
	if kept == nil {
		return
	}
	var items []map[string]json.RawMessage
	_ = json.Unmarshal(proj, &items)
	byID := make(map[string]map[string]json.RawMessage, len(items))
	for _, it := range items {
		var id string
		if json.Unmarshal(it[idKey], &id) == nil {
			if _, dup := byID[id]; !dup {
				byID[id] = it
			}
		}
	}
	for name := range kept {
		it, ok := byID[name]
		if !ok {
			continue
		}
		one := map[string]json.RawMessage{"x": kept[name]}
		b, _ := marshal(it)
		pruneNested(one, "x", b)
		if v, ok := one["x"]; ok {
			kept[name] = v
		} else {
			delete(kept, name)
		}
	}
	if len(kept) == 0 {
		delete(ext, key)
		return
	}
	ext[key], _ = marshal(kept)
}

// trimCarrier drops from carrier the members that importing the document
// without the carrier (derive) yields identically anyway, so that a card
// imported from a format and exported back does not grow a carrier. A null
// member is dropped when the import derives nothing for it. When derive
// fails the carrier is kept whole. It returns nil when nothing is left.
func trimCarrier(carrier map[string]json.RawMessage, ns string, derive func() (*adp.Card, error)) map[string]json.RawMessage {
	if carrier == nil {
		return nil
	}
	c, err := derive()
	if err != nil {
		return carrier
	}
	derived, err := cardMap(c)
	if err != nil {
		return carrier
	}
	if ext := rawMap(derived["extensions"]); ext != nil {
		delete(ext, ns)
		if len(ext) == 0 {
			delete(derived, "extensions")
		} else {
			derived["extensions"], _ = marshal(ext)
		}
	}
	for k, v := range carrier {
		switch {
		case k == "tools":
			trimTools(carrier, derived["tools"])
		case string(v) == "null":
			if _, ok := derived[k]; !ok {
				delete(carrier, k)
			}
		case sameJSON(v, derived[k]):
			delete(carrier, k)
		}
	}
	if len(carrier) == 0 {
		return nil
	}
	return carrier
}

// trimTools drops from each carried tool the members the derived tool of the
// same name has with the same value, then the tools left with a name only.
func trimTools(carrier map[string]json.RawMessage, derivedRaw json.RawMessage) {
	var carried, derived []map[string]json.RawMessage
	if json.Unmarshal(carrier["tools"], &carried) != nil || derivedRaw == nil || json.Unmarshal(derivedRaw, &derived) != nil {
		return
	}
	if len(carried) == 0 {
		if len(derived) == 0 {
			delete(carrier, "tools")
		}
		return
	}
	byName := make(map[string]map[string]json.RawMessage, len(derived))
	for _, dt := range derived {
		var n string
		if json.Unmarshal(dt["name"], &n) == nil {
			if _, dup := byName[n]; !dup {
				byName[n] = dt
			}
		}
	}
	var keep []map[string]json.RawMessage
	for _, ct := range carried {
		var n string
		if json.Unmarshal(ct["name"], &n) == nil {
			if dt, ok := byName[n]; ok {
				for k, v := range ct {
					if k != "name" && sameJSON(v, dt[k]) {
						delete(ct, k)
					}
				}
			}
		}
		if len(ct) > 1 {
			keep = append(keep, ct)
		}
	}
	if keep == nil {
		delete(carrier, "tools")
		return
	}
	carrier["tools"], _ = marshal(keep)
}
