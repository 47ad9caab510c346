// Package agenturi parses, prints and normalizes agent:// and
// agent+<protocol>:// URIs as defined by the agent:// URI draft
// (draft-narvaneni-agent-uri, Section 4.2):
//
//	agent-uri = "agent" ["+" protocol] "://" authority ["/" path]
//	            [ "?" query ] [ "#" fragment ]
//	protocol  = 1*( ALPHA / DIGIT / "-" )
//	authority = [ userinfo "@" ] host [ ":" port ]     ; RFC 3986, 3.2
//	path      = path-abempty                            ; RFC 3986, 3.3
//	query     = *( pchar / "/" / "?" )                  ; RFC 3986, 3.4
//	fragment  = *( pchar / "/" / "?" )                  ; RFC 3986, 3.5
//
// The draft's own examples also use a Decentralized Identifier as the
// authority (agent://did:web:example.com/agent:researcher/...). RFC 3986
// cannot express that (a port is digits only), so the parser accepts a DID
// authority as a documented extension: an authority that starts with "did:"
// followed by something other than a port number is parsed with the DID
// Core syntax ("did:" method-name ":" method-specific-id) and is kept
// case-sensitive.
//
// ADP agent ids are agent:// URIs whose authority is a libp2p peer ID in
// base36 CIDv1 form (agent://k51qzi5uqu5d...), which survives the lower
// casing of the host that URI normalization performs. The base58 form
// (agent://12D3KooW...) parses too, but Normalize lower-cases it like any
// other host and so destroys it: callers that accept base58 ids convert
// them to base36 first (package adp does).
//
// # Main types
//
// URI is a parsed URI. Parse checks the syntax and bounds the input
// (MaxLength); String prints a URI back; Normalize applies the RFC 3986
// Section 6.2.2 syntax-based normalization (case, percent-encoding and
// dot segments). Parse followed by String followed by Parse gives back an
// equal URI. Errors wrap ErrSyntax or ErrTooLong and, as *SyntaxError,
// name the component and the byte offset of the problem.
//
// URI is a plain value; the package keeps no state and is safe for
// concurrent use.
package agenturi
