// Package a2awire holds the wire constants of the A2A protocol that the
// node's A2A client (node/a2aclient) and server (node/a2aserver) share:
// protocol versions and the version header, JSON-RPC method names of
// A2A 1.0 and 0.3, protocol binding names, JSON-RPC error codes with the
// google.rpc.ErrorInfo reasons A2A 1.0 gives them, media types, task
// states, and the message members that name a tool.
//
// It is constants and two pure lookups; it has no state and imports no
// project package. Values are what peers expect on the wire: append only.
package a2awire
