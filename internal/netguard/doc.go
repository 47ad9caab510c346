// Package netguard decides which addresses the node connects to when it
// fetches a URL a peer named (an A2A endpoint on a card, the domain of a
// did:wba DID): a card from the network must not make the node call into
// its own machine, its network or a cloud metadata service.
//
// Check is the policy. Always refused: unspecified, multicast and
// link-local addresses (169.254.0.0/16, fe80::/10, where cloud metadata
// services answer) and the metadata addresses outside that range
// (fd00:ec2::254); unless private addresses are allowed, also loopback
// and private ones (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7).
// IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
//
// NewDialer returns a net.Dialer whose Control hook applies Check to the
// address of every connection after name resolution, so that a host name
// (or a DNS answer that changes between two lookups) cannot lead the
// connection to a refused address. NewTransport is an HTTP transport over
// that dialer and no proxy (a proxy's address would be checked instead of
// the target's).
//
// A refusal is an *AddrError, which wraps ErrRefused. The package keeps
// no state; everything in it is safe for concurrent use.
package netguard
