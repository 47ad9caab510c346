// Package didwba implements the did:wba DID method and the DIDWba HTTP
// authentication of the Agent Network Protocol (ANP draft, "Cross-Platform
// Identity Authentication Based on did:wba Method and HTTP Protocol"; the
// did:wba method specification): an agent proves to a service on another
// platform that it controls a DID whose document its own web domain
// serves.
//
// # Identifiers and documents
//
// FromDomain turns a domain as an operator writes it (example.com,
// example.com:8443/agents/alice) into an ID; its String is the DID
// (did:wba:example.com%3A8443:agents:alice) and DocumentURL the https URL
// the DID resolves to (https://example.com:8443/agents/alice/did.json, or
// /.well-known/did.json without a path). Parse reads a DID. NewDocument
// builds the DID document of an Ed25519 key: an Ed25519VerificationKey2020
// method (#key-1, publicKeyMultibase) listed under authentication, and an
// AgentDescription service pointing to the agent's ANP description.
// DocumentHandler serves it. Documents read from others may also use
// Ed25519VerificationKey2018, Multikey or JsonWebKey2020 (OKP) keys.
//
// A Resolver fetches documents over HTTPS, with a bounded size, a
// timeout, a bounded number of concurrent fetches and a bounded cache,
// and checks that the document's id is the DID. Its own client connects
// only to the addresses internal/netguard allows, checked after name
// resolution: never link-local or cloud metadata addresses, loopback and
// private ones only with WithPrivateAddresses; it uses no proxy and
// follows no redirect out of the DID's origin. WithHTTPClient replaces
// it (tests). Resolver.VerifyKey is the "domain-verified" check of a
// card whose did is a did:wba DID: its document resolves and lists the
// card's key.
//
// # Authentication
//
// The client side is a Signer: Header makes the value of the Authorization
// header,
//
//	DIDWba did="...", nonce="...", timestamp="...", verification_method="key-1", signature="..."
//
// whose signature is Ed25519 over SHA-256 of the JCS form of {nonce,
// timestamp, service, did}, in base64url. A Transport (NewClient) adds it
// to each request and then uses the access token the service returns.
//
// The service side is an Authenticator: Authenticate runs the draft's
// verification (timestamp window, nonce replay cache, DID document,
// authentication key, signature) and issues an access token, a JWT signed
// with EdDSA by the service's key; Middleware wraps an http.Handler, puts
// the token in the response's Authorization header and refuses other
// requests with 401 and the draft's WWW-Authenticate error codes
// (invalid_request, invalid_nonce, invalid_timestamp, invalid_did,
// invalid_signature, invalid_verification_method, invalid_access_token;
// forbidden_did with 403). Code maps the package's sentinel errors to
// those codes.
//
// The AgentConnect reference implementation adds a v="1.1" parameter and
// then signs the domain as "aud"; Authenticate accepts that form too. The
// later revisions of the method (e1_ key fingerprints in path DIDs,
// document proofs, RFC 9421 message signatures) are not implemented.
//
// # An agent's identity
//
// Identity puts the pieces together for one agent: its DID and DID
// document when it has a domain (NewIdentity), the Signer of its
// outbound requests (Identity.Client), the Authenticator of its own
// endpoints, and one Resolver shared by that Authenticator and
// Identity.CheckKey, the domain check of another agent's key with a
// verdict for people (Verified, Pending, or UnverifiedPrefix and why).
//
// Every type is safe for concurrent use and owns no goroutine; nothing
// needs closing.
package didwba
