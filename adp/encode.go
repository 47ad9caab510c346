package adp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON encodes the card: known fields in a fixed order, then the
// unknown ones (Extra) by key, then the signature. Empty strings and nil
// slices and pointers are omitted; non-nil empty slices are written as [].
// Raw JSON values (schemas, extensions, Extra) are written compacted and
// must be valid JSON.
//
// The output is not canonical; signing canonicalizes it with JCS. The
// value receiver makes a Card held by value in another struct encode the
// same way.
func (c Card) MarshalJSON() ([]byte, error) {
	return c.appendJSON(make([]byte, 0, 1024), true)
}

func (c *Card) appendJSON(b []byte, withSig bool) ([]byte, error) {
	w := objWriter{b: append(b, '{')}
	w.str("id", c.ID)
	w.str("did", c.DID)
	w.str("name", c.Name)
	w.str("description", c.Description)
	w.str("version", c.Version)
	w.str("status", c.Status)
	w.strs("skills", c.Skills)
	if c.Tools != nil {
		w.array("tools", len(c.Tools), func(i int) { w.b = c.Tools[i].appendJSON(w.b, &w.err) })
	}
	if c.Endpoints != nil {
		w.array("endpoints", len(c.Endpoints), func(i int) { w.b = c.Endpoints[i].appendJSON(w.b, &w.err) })
	}
	if c.Constraints != nil {
		w.key("constraints")
		w.b = c.Constraints.appendJSON(w.b, &w.err)
	}
	if c.Examples != nil {
		w.array("examples", len(c.Examples), func(i int) { w.b = c.Examples[i].appendJSON(w.b, &w.err) })
	}
	if c.Metadata != nil {
		w.key("metadata")
		w.b = c.Metadata.appendJSON(w.b, &w.err)
	}
	if c.Extensions != nil {
		w.key("extensions")
		w.b = appendRawObject(w.b, c.Extensions, &w.err)
	}
	if c.Seq != nil {
		w.key("seq")
		w.b = strconv.AppendUint(w.b, *c.Seq, 10)
	}
	w.extra(c.Extra, cardFields)
	if withSig {
		w.str("signature", c.Signature)
	}
	w.b = append(w.b, '}')
	return w.b, w.err
}

// cardFields are the top-level names the Card type decodes itself; Extra
// entries under these names are not written (they would duplicate a key).
var cardFields = []string{"id", "did", "name", "description", "version", "status", "skills", "tools", "endpoints", "constraints", "examples", "metadata", "extensions", "seq", "signature"}

// MarshalJSON encodes the tool, its unknown fields included.
func (t Tool) MarshalJSON() ([]byte, error) {
	var err error
	b := t.appendJSON(nil, &err)
	return b, err
}

func (t *Tool) appendJSON(b []byte, err *error) []byte {
	w := objWriter{b: append(b, '{'), err: *err}
	w.str("name", t.Name)
	w.str("description", t.Description)
	w.raw("input_schema", t.InputSchema)
	w.raw("output_schema", t.OutputSchema)
	w.bool("streaming", t.Streaming)
	w.bool("idempotent", t.Idempotent)
	w.extra(t.Extra, []string{"name", "description", "input_schema", "output_schema", "streaming", "idempotent"})
	*err = w.err
	return append(w.b, '}')
}

// MarshalJSON encodes the endpoint, its unknown fields included.
func (e Endpoint) MarshalJSON() ([]byte, error) {
	var err error
	b := e.appendJSON(nil, &err)
	return b, err
}

func (e *Endpoint) appendJSON(b []byte, err *error) []byte {
	w := objWriter{b: append(b, '{'), err: *err}
	w.str("protocol", e.Protocol)
	w.str("uri", e.URI)
	w.strs("methods", e.Methods)
	w.str("auth", e.Auth)
	w.int("priority", e.Priority)
	w.extra(e.Extra, []string{"protocol", "uri", "methods", "auth", "priority"})
	*err = w.err
	return append(w.b, '}')
}

// MarshalJSON encodes the constraints, their unknown fields included.
func (c Constraints) MarshalJSON() ([]byte, error) {
	var err error
	b := c.appendJSON(nil, &err)
	return b, err
}

func (c *Constraints) appendJSON(b []byte, err *error) []byte {
	w := objWriter{b: append(b, '{'), err: *err}
	w.int("max_concurrent_tasks", c.MaxConcurrentTasks)
	w.int("max_input_tokens", c.MaxInputTokens)
	w.strs("supported_languages", c.SupportedLanguages)
	w.str("rate_limit", c.RateLimit)
	w.extra(c.Extra, []string{"max_concurrent_tasks", "max_input_tokens", "supported_languages", "rate_limit"})
	*err = w.err
	return append(w.b, '}')
}

// MarshalJSON encodes the metadata, its unknown fields included.
func (m Metadata) MarshalJSON() ([]byte, error) {
	var err error
	b := m.appendJSON(nil, &err)
	return b, err
}

func (m *Metadata) appendJSON(b []byte, err *error) []byte {
	w := objWriter{b: append(b, '{'), err: *err}
	w.str("created_at", m.CreatedAt)
	w.str("updated_at", m.UpdatedAt)
	if m.TTL != nil {
		w.key("ttl")
		w.b = strconv.AppendInt(w.b, *m.TTL, 10)
	}
	w.extra(m.Extra, []string{"created_at", "updated_at", "ttl"})
	*err = w.err
	return append(w.b, '}')
}

// MarshalJSON encodes the example, its unknown fields included.
func (e Example) MarshalJSON() ([]byte, error) {
	var err error
	b := e.appendJSON(nil, &err)
	return b, err
}

func (e *Example) appendJSON(b []byte, err *error) []byte {
	w := objWriter{b: append(b, '{'), err: *err}
	w.str("id", e.ID)
	w.str("text", e.Text)
	w.strs("tags", e.Tags)
	w.extra(e.Extra, []string{"id", "text", "tags"})
	*err = w.err
	return append(w.b, '}')
}

// objWriter appends the members of one JSON object.
type objWriter struct {
	b   []byte
	n   int
	err error
}

func (w *objWriter) key(k string) {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = appendString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *objWriter) str(k, v string) {
	if v == "" {
		return
	}
	w.key(k)
	w.b = appendString(w.b, v)
}

func (w *objWriter) strs(k string, v []string) {
	if v == nil {
		return
	}
	w.array(k, len(v), func(i int) { w.b = appendString(w.b, v[i]) })
}

// array writes the member k, an array of n elements that elem appends in
// turn (elem(i) appends the element i).
func (w *objWriter) array(k string, n int, elem func(i int)) {
	w.key(k)
	w.b = append(w.b, '[')
	for i := range n {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		elem(i)
	}
	w.b = append(w.b, ']')
}

func (w *objWriter) bool(k string, v *bool) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = strconv.AppendBool(w.b, *v)
}

func (w *objWriter) int(k string, v *int) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(*v), 10)
}

func (w *objWriter) raw(k string, v json.RawMessage) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = appendRaw(w.b, v, k, &w.err)
}

// extra writes unknown members in key order, skipping names the type
// encodes itself.
func (w *objWriter) extra(m map[string]json.RawMessage, known []string) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.key(k)
		w.b = appendRaw(w.b, m[k], k, &w.err)
	}
}

func appendRawObject(b []byte, m map[string]json.RawMessage, err *error) []byte {
	w := objWriter{b: append(b, '{'), err: *err}
	w.extra(m, nil)
	*err = w.err
	return append(w.b, '}')
}

// appendRaw appends a raw JSON value compacted; invalid JSON records an
// error (the first one wins) and writes null to keep the output well formed.
func appendRaw(b []byte, v json.RawMessage, name string, err *error) []byte {
	var buf bytes.Buffer
	if e := json.Compact(&buf, v); e != nil || len(v) == 0 {
		if *err == nil {
			*err = fmt.Errorf("adp: field %q holds invalid JSON: %v", name, e)
		}
		return append(b, "null"...)
	}
	return append(b, buf.Bytes()...)
}

// appendString appends s as a JSON string. Unlike encoding/json it does not
// escape <, > and &; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
