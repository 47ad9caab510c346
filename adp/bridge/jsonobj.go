package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adpnode/adpnode/adp"
)

// checkDoc bounds the size and depth of a foreign document and checks that
// it is one JSON value in valid UTF-8.
func checkDoc(data []byte) error {
	if len(data) > MaxDocSize {
		return fmt.Errorf("%w (got %d)", ErrTooLarge, len(data))
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: invalid UTF-8", ErrMalformed)
	}
	if depth(data) > MaxDepth {
		return ErrTooDeep
	}
	if !json.Valid(data) {
		return fmt.Errorf("%w: not a single JSON value", ErrMalformed)
	}
	return nil
}

// depth returns the deepest nesting of arrays and objects in data, which
// need not be valid JSON.
func depth(data []byte) int {
	d, max := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		switch {
		case esc:
			esc = false
		case inStr:
			switch c {
			case '\\':
				esc = true
			case '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			d++
			if d > max {
				max = d
			}
		case c == ']' || c == '}':
			d--
		}
	}
	return max
}

// reader decodes a foreign document into Go values, collecting one
// adp.Problem per value of the wrong type or missing where required.
type reader struct {
	probs []adp.Problem
}

func (r *reader) add(path, format string, args ...any) {
	r.probs = append(r.probs, adp.Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (r *reader) err() error {
	if len(r.probs) == 0 {
		return nil
	}
	ps := slices.Clone(r.probs)
	slices.SortStableFunc(ps, func(a, b adp.Problem) int { return strings.Compare(a.Path, b.Path) })
	return &adp.ValidationError{Problems: ps}
}

// object is a JSON object being read; it remembers which members were used
// so that the rest can be kept in an extension.
type object struct {
	r    *reader
	path string
	m    map[string]json.RawMessage
	used map[string]bool
}

// readDoc checks data (checkDoc) and decodes its top-level object. It
// returns the reader that collects the document's problems and the root
// object, or the error that stops the import: a failed check, or the
// problem of a document that is not an object.
func readDoc(data []byte) (*reader, *object, error) {
	if err := checkDoc(data); err != nil {
		return nil, nil, err
	}
	r := &reader{}
	o := r.root(data)
	if o == nil {
		return nil, nil, r.err()
	}
	return r, o, nil
}

// root decodes the top-level object of a checked document.
func (r *reader) root(data []byte) *object {
	return r.obj("", json.RawMessage(data))
}

// obj decodes raw as an object at path; it records a problem and returns nil
// when raw is not an object. Methods of a nil *object return zero values.
func (r *reader) obj(path string, raw json.RawMessage) *object {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		r.add(path, "must be an object")
		return nil
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &m); err != nil {
		r.add(path, "must be an object")
		return nil
	}
	return &object{r: r, path: path, m: m, used: map[string]bool{}}
}

func (o *object) at(key string) string { return o.path + "/" + pointerToken(key) }

// get returns the member key, marking it used; nil when absent or null.
func (o *object) get(key string) json.RawMessage {
	if o == nil {
		return nil
	}
	v, ok := o.m[key]
	if !ok {
		return nil
	}
	o.used[key] = true
	if string(v) == "null" {
		return nil
	}
	return v
}

func (o *object) has(key string) bool {
	if o == nil {
		return false
	}
	v, ok := o.m[key]
	return ok && string(v) != "null"
}

func (o *object) str(key string, required bool) string {
	v := o.get(key)
	if v == nil {
		if required && o != nil {
			o.r.add(o.at(key), "is required")
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		o.r.add(o.at(key), "must be a string")
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		o.r.add(o.at(key), "must not be empty")
	}
	return s
}

func (o *object) strs(key string) []string {
	elems := o.arr(key)
	if elems == nil {
		return nil
	}
	out := make([]string, 0, len(elems))
	for i, e := range elems {
		var s string
		if err := json.Unmarshal(e, &s); err != nil {
			o.r.add(o.at(key)+"/"+strconv.Itoa(i), "must be a string")
			continue
		}
		out = append(out, s)
	}
	return out
}

// arr returns the elements of an array member: nil when absent, non-nil
// (possibly empty) when present.
func (o *object) arr(key string) []json.RawMessage {
	v := o.get(key)
	if v == nil {
		return nil
	}
	elems := []json.RawMessage{}
	if v[0] != '[' || json.Unmarshal(v, &elems) != nil {
		o.r.add(o.at(key), "must be an array")
		return nil
	}
	return elems
}

func (o *object) sub(key string) *object {
	v := o.get(key)
	if v == nil {
		return nil
	}
	return o.r.obj(o.at(key), v)
}

// schema returns a member that must be a JSON object (a JSON Schema).
func (o *object) schema(key string) json.RawMessage {
	v := o.get(key)
	if v == nil {
		return nil
	}
	if v[0] != '{' {
		o.r.add(o.at(key), "must be an object (a JSON Schema)")
		return nil
	}
	return v
}

func (o *object) boolean(key string) *bool {
	v := o.get(key)
	if v == nil {
		return nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		o.r.add(o.at(key), "must be a boolean")
		return nil
	}
	return &b
}

func (o *object) number(key string) (float64, bool) {
	v := o.get(key)
	if v == nil {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		o.r.add(o.at(key), "must be a number")
		return 0, false
	}
	return f, true
}

// rest returns the members not read yet, nil when there are none.
func (o *object) rest() map[string]json.RawMessage {
	if o == nil {
		return nil
	}
	var out map[string]json.RawMessage
	for k, v := range o.m {
		if !o.used[k] {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[k] = v
		}
	}
	return out
}

// pointerToken escapes one JSON Pointer reference token (RFC 6901).
func pointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// marshal encodes v as compact JSON without HTML escaping; map keys come out
// sorted, so the output is deterministic.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// rawMap decodes a JSON object into its members (nil for anything else).
func rawMap(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	m := map[string]json.RawMessage{}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// doc is a JSON object being written.
type doc map[string]any

// setStr sets k when s is not empty.
func (d doc) setStr(k, s string) {
	if s != "" {
		d[k] = s
	}
}

// merge copies the members of m that d does not have.
func (d doc) merge(m map[string]json.RawMessage) {
	for k, v := range m {
		if _, ok := d[k]; !ok {
			d[k] = v
		}
	}
}

// finishCard turns a card object built by an import into an *adp.Card,
// reporting type problems with paths into the ADP card.
func finishCard(card doc) (*adp.Card, error) {
	b, err := marshal(card)
	if err != nil {
		return nil, fmt.Errorf("bridge: encoding the card: %w", err)
	}
	return adp.ParseCard(b)
}

// cardMap returns the card's JSON members.
func cardMap(c *adp.Card) (map[string]json.RawMessage, error) {
	b, err := c.MarshalJSON()
	if err != nil {
		return nil, err
	}
	m := rawMap(b)
	if m == nil {
		return nil, fmt.Errorf("%w: card does not encode as an object", ErrMalformed)
	}
	return m, nil
}

// tagSet collects distinct tags in first-seen order in linear time (a
// hostile document may repeat one tag many thousands of times).
type tagSet struct {
	list []string
	seen map[string]bool
}

// add imports tag (see importTag) and appends it unless seen or dropped.
func (s *tagSet) add(tag string) {
	if tag = importTag(tag); tag == "" || s.seen[tag] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[tag] = true
	s.list = append(s.list, tag)
}
