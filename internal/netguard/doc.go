// Package netguard is the address policy of every outbound HTTP request
// the node makes on behalf of a remote party: the A2A client calling an
// endpoint named in a card, and a directory fetching a card it was asked
// to register.
//
// A URL must be http or https, have a host and carry no user information
// ([CheckURL]); the addresses it reaches are checked when the connection
// is made, after name resolution ([Control], a net.Dialer hook), so a
// host name cannot point the node at a refused address. Link-local
// (where cloud metadata services live), metadata, multicast and
// unspecified addresses are always refused; loopback and private ones
// unless the caller allows them.
//
// Every refusal is an [*AddrError], which wraps [ErrRefused]. The package
// holds no state and is safe for concurrent use.
package netguard
