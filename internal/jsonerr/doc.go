// Package jsonerr turns the errors of encoding/json into words a user of
// the API or the command line understands: the JSON Pointer of the value
// at fault and what was expected there ("want a string, got a number"),
// never a Go type or struct field name.
//
// Describe is pure and safe for concurrent use.
package jsonerr
