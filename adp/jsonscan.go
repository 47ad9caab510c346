package adp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

// member is one member of a JSON object as it appears in the input: the
// decoded key, the byte offsets where the member starts (its opening key
// quote) and ends (just after its value) and the raw value.
type member struct {
	key   string
	start int
	end   int
	value json.RawMessage
}

// scanner checks the structural rules encoding/json does not enforce on
// hostile input: the nesting depth, duplicate object keys (at every level,
// comparing decoded keys) and valid UTF-8. It collects the members of the
// top-level object on the way so that callers need not decode it twice.
//
// It runs after json.Valid, so it can assume well-formed JSON.
type scanner struct {
	data     []byte
	pos      int
	maxDepth int
	top      []member
	// skipOnly skips values without checking keys (the input was checked
	// before).
	skipOnly bool
}

// scanObject checks data and returns the members of its top-level value,
// which must be an object. maxDepth bounds the nesting of arrays and objects
// (the top-level object counts as depth 1).
func scanObject(data []byte, maxDepth int) ([]member, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%w: invalid UTF-8", ErrMalformed)
	}
	if !json.Valid(data) {
		// Report the position encoding/json finds.
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	s := scanner{data: data, maxDepth: maxDepth}
	s.skipSpace()
	if s.pos >= len(data) || data[s.pos] != '{' {
		return nil, fmt.Errorf("%w: top-level value must be an object", ErrMalformed)
	}
	if err := s.value(0, true); err != nil {
		return nil, err
	}
	return s.top, nil
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value skips one value starting at s.pos (after whitespace).
func (s *scanner) value(depth int, top bool) error {
	s.skipSpace()
	switch s.data[s.pos] {
	case '{':
		return s.object(depth+1, top)
	case '[':
		return s.array(depth + 1)
	case '"':
		_, _ = s.str()
		return nil
	default:
		// Number or literal: runs until a delimiter.
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			s.pos++
		}
		return nil
	}
}

// str skips a string and returns its raw contents (without quotes) and
// whether it contains escapes.
func (s *scanner) str() ([]byte, bool) {
	s.pos++ // opening quote
	start := s.pos
	escaped := false
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			s.pos += 2
			continue
		case '"':
			raw := s.data[start:s.pos]
			s.pos++
			return raw, escaped
		}
		s.pos++
	}
	return s.data[start:], escaped
}

func (s *scanner) tooDeep(depth int) error {
	if depth > s.maxDepth {
		return fmt.Errorf("%w: nesting deeper than %d at offset %d", ErrTooDeep, s.maxDepth, s.pos)
	}
	return nil
}

func (s *scanner) object(depth int, top bool) error {
	if err := s.tooDeep(depth); err != nil {
		return err
	}
	s.pos++ // '{'
	// Keys seen so far: raw (undecoded) bytes in a small stack array, or a
	// map for large objects. Escaped keys are decoded first so that "a"
	// and "\u0061" collide.
	var (
		buf  [16][]byte
		keys = buf[:0]
		seen map[string]struct{}
	)
	for {
		s.skipSpace()
		if s.data[s.pos] == '}' {
			s.pos++
			return nil
		}
		if s.data[s.pos] == ',' {
			s.pos++
			s.skipSpace()
		}
		start := s.pos
		key, escaped := s.str()
		if s.skipOnly {
			s.skipSpace()
			s.pos++ // ':'
			if err := s.value(depth, false); err != nil {
				return err
			}
			continue
		}
		if escaped {
			var k string
			if err := json.Unmarshal(s.data[start:s.pos], &k); err != nil {
				return fmt.Errorf("%w: %v", ErrMalformed, err)
			}
			key = []byte(k)
		}
		// Duplicate keys make parsers disagree on the value: reject them.
		dup := false
		if seen != nil {
			_, dup = seen[string(key)]
		} else {
			for _, k := range keys {
				if bytes.Equal(k, key) {
					dup = true
					break
				}
			}
		}
		if dup {
			return fmt.Errorf("%w: duplicate key %q at offset %d", ErrMalformed, key, start)
		}
		switch {
		case seen == nil && len(keys) < len(buf):
			keys = append(keys, key)
		case seen == nil:
			seen = make(map[string]struct{}, 2*len(buf))
			for _, k := range keys {
				seen[string(k)] = struct{}{}
			}
			fallthrough
		default:
			seen[string(key)] = struct{}{}
		}
		s.skipSpace()
		s.pos++ // ':'
		s.skipSpace()
		vstart := s.pos
		if err := s.value(depth, false); err != nil {
			return err
		}
		if top {
			s.top = append(s.top, member{key: string(key), start: start, end: s.pos, value: s.data[vstart:s.pos]})
		}
	}
}

func (s *scanner) array(depth int) error {
	if err := s.tooDeep(depth); err != nil {
		return err
	}
	s.pos++ // '['
	for {
		s.skipSpace()
		switch s.data[s.pos] {
		case ']':
			s.pos++
			return nil
		case ',':
			s.pos++
			continue
		}
		if err := s.value(depth, false); err != nil {
			return err
		}
	}
}

// jsonDepth returns the maximum nesting depth of a well-formed JSON value.
func jsonDepth(data []byte) int {
	depth, maxd := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
		case '{', '[':
			depth++
			if depth > maxd {
				maxd = depth
			}
		case '}', ']':
			depth--
		}
	}
	return maxd
}

// stringEnd returns the index of the quote that closes the JSON string
// whose opening quote is b[i], skipping escaped characters; len(b) or more
// when the string is not closed.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return i
}

// splitObject returns the members of a JSON object already checked by
// scanObject (well formed, no duplicate keys). Values alias raw.
func splitObject(raw []byte) ([]member, bool) {
	s := scanner{data: raw, maxDepth: math.MaxInt, skipOnly: true}
	s.skipSpace()
	if s.pos >= len(raw) || raw[s.pos] != '{' {
		return nil, false
	}
	s.pos++
	out := make([]member, 0, 8)
	for {
		s.skipSpace()
		if s.pos >= len(raw) {
			return nil, false
		}
		switch raw[s.pos] {
		case '}':
			return out, true
		case ',':
			s.pos++
			s.skipSpace()
		}
		start := s.pos
		rawKey, escaped := s.str()
		key := string(rawKey)
		if escaped {
			if err := json.Unmarshal(raw[start:s.pos], &key); err != nil {
				return nil, false
			}
		}
		s.skipSpace()
		s.pos++ // ':'
		s.skipSpace()
		vstart := s.pos
		if err := s.value(0, false); err != nil {
			return nil, false
		}
		out = append(out, member{key: key, start: start, end: s.pos, value: raw[vstart:s.pos]})
	}
}

// splitArray returns the elements of a JSON array already checked by
// scanObject. A present empty array yields a non-nil empty slice. Elements
// alias raw.
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	s := scanner{data: raw, maxDepth: math.MaxInt, skipOnly: true}
	s.skipSpace()
	if s.pos >= len(raw) || raw[s.pos] != '[' {
		return nil, false
	}
	s.pos++
	out := make([]json.RawMessage, 0, 4)
	for {
		s.skipSpace()
		if s.pos >= len(raw) {
			return nil, false
		}
		switch raw[s.pos] {
		case ']':
			return out, true
		case ',':
			s.pos++
			s.skipSpace()
		}
		vstart := s.pos
		if err := s.value(0, false); err != nil {
			return nil, false
		}
		out = append(out, raw[vstart:s.pos])
	}
}
