// Package jsonerr turns the errors of encoding/json into words a user of
// the API or the command line understands: the JSON Pointer of the value
// at fault and what was expected there ("want a string, got a number"),
// never a Go type or struct field name.
//
// AtEnd tells whether a body ends after its JSON value, which
// json.Decoder.More does not. Describe is pure and safe for concurrent
// use.
package jsonerr
