// Package demoagent is the built-in demo agent (`adpnode init
// --demo-tools`, `adpnode run --demo-agent`): three tools served
// in-process, so that a testnet or a first try has something to discover
// and call without an agent program of its own.
//
//	echo        replies with its JSON input
//	wordcount   {"text"} -> {"words", "lines", "chars"}
//	reverse     {"text"} -> {"text"} reversed; with a streamed reply, one
//	            chunk a word, the last word first
//
// Tools gives their card entries, with input and output schemas; Call
// serves one call. A text over MaxText bytes, or a body that is not the
// tool's input, answers INVALID_REQUEST with the JSON path of the
// problem. The package keeps no state and is safe for concurrent use.
package demoagent
