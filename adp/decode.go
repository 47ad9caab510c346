package adp

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a document: where (a JSON Pointer, RFC
// 6901, such as "/tools/0/name"; "" for the whole document) and what.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ValidationError lists every problem found in a document. It matches
// ErrInvalid under errors.Is.
type ValidationError struct {
	Problems []Problem
}

// Error joins the problems as "path: message" lines.
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		path := p.Path
		if path == "" {
			path = "/"
		}
		b.WriteString(path)
		b.WriteString(": ")
		b.WriteString(p.Message)
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// sortProblems orders problems by path so that reports are deterministic
// (nested objects are decoded through maps).
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901 3).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// decoder converts raw JSON values of an already scanned document into Go
// values, recording a Problem for each value of the wrong type.
type decoder struct {
	probs []Problem
}

func (d *decoder) add(path, msg string) {
	d.probs = append(d.probs, Problem{Path: path, Message: msg})
}

func (d *decoder) err() error {
	if len(d.probs) == 0 {
		return nil
	}
	sortProblems(d.probs)
	return &ValidationError{Problems: d.probs}
}

func (d *decoder) str(path string, raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		d.add(path, "must be a string")
		return ""
	}
	// Fast path: no escapes (the input is already known to be valid UTF-8).
	inner := raw[1 : len(raw)-1]
	if !containsByte(inner, '\\') {
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		d.add(path, "must be a string")
		return ""
	}
	return s
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func (d *decoder) strs(path string, raw json.RawMessage) []string {
	elems, ok := d.array(path, raw)
	if !ok {
		return nil
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = d.str(path+"/"+strconv.Itoa(i), e)
	}
	return out
}

func (d *decoder) bool(path string, raw json.RawMessage) *bool {
	var b bool
	switch string(raw) {
	case "true":
		b = true
	case "false":
	default:
		d.add(path, "must be a boolean")
		return nil
	}
	return &b
}

// int decodes an integer written without fraction or exponent in [lo, hi].
func (d *decoder) int(path string, raw json.RawMessage, lo, hi int64) (int64, bool) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
			d.add(path, "must be an integer between "+strconv.FormatInt(lo, 10)+" and "+strconv.FormatInt(hi, 10))
		} else {
			d.add(path, "must be an integer")
		}
		return 0, false
	}
	if n < lo || n > hi {
		d.add(path, "must be an integer between "+strconv.FormatInt(lo, 10)+" and "+strconv.FormatInt(hi, 10))
		return 0, false
	}
	return n, true
}

// array returns the raw elements of a JSON array. A present empty array
// yields a non-nil empty slice.
func (d *decoder) array(path string, raw json.RawMessage) ([]json.RawMessage, bool) {
	elems, ok := splitArray(raw)
	if !ok {
		d.add(path, "must be an array")
		return nil, false
	}
	return elems, true
}

// object returns the raw members of a JSON object (keys are unique: the
// scanner rejected duplicates).
func (d *decoder) object(path string, raw json.RawMessage) (map[string]json.RawMessage, bool) {
	members, ok := d.members(path, raw)
	if !ok {
		return nil, false
	}
	obj := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		obj[m.key] = m.value
	}
	return obj, true
}

// members returns the members of a JSON object in document order.
func (d *decoder) members(path string, raw json.RawMessage) ([]member, bool) {
	members, ok := splitObject(raw)
	if !ok {
		d.add(path, "must be an object")
		return nil, false
	}
	return members, true
}

// schema accepts a JSON Schema, which ADP 3.4 requires to be an object.
func (d *decoder) schema(path string, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		d.add(path, "must be an object (a JSON Schema)")
		return nil
	}
	return raw
}
