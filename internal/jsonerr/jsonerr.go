package jsonerr

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// Describe explains a decoding error from encoding/json: path is the JSON
// Pointer of the value at fault ("" for the whole document) and msg says
// what was wrong in plain words.
func Describe(err error) (path, msg string) {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
	)
	switch {
	case errors.As(err, &te):
		path = Pointer(te.Field)
		want, got := Kind(te.Type), article(te.Value)
		if path == "" {
			return "", "the body must be " + want + ", not " + got
		}
		return path, "want " + want + ", got " + got
	case errors.As(err, &se):
		return "", "not valid JSON (syntax error at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "", "not valid JSON (it ends too early)"
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "/" + strings.Trim(f, `"`), "unknown field"
	}
	return "", "not valid JSON"
}

// Pointer turns encoding/json's dotted field path into a JSON Pointer.
func Pointer(field string) string {
	if field == "" {
		return ""
	}
	return "/" + strings.ReplaceAll(field, ".", "/")
}

// Kind names the JSON kind a Go type decodes from, with its article:
// "a string", "a number", "an object".
func Kind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "a JSON object"
	}
	return "a value"
}

// article names what encoding/json found ("number", "array", "number
// -1") with an article.
func article(v string) string {
	switch {
	case v == "":
		return "something else"
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	case v == "object":
		return "a JSON object"
	case strings.IndexByte("aeiou", v[0]) >= 0:
		return "an " + v
	case v == "bool":
		return "true or false"
	}
	return "a " + v
}

// AtEnd reports whether nothing but white space follows the value dec
// decoded last. Decoder.More is not that test: it reports false before
// a stray ']' or '}' as well, so a body such as `{"a":1} ]` would pass.
func AtEnd(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err == io.EOF
}
