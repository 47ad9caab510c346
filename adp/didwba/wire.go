package didwba

import "time"

// The DID method and the HTTP authentication scheme (ANP, "Cross-Platform
// Identity Authentication Based on did:wba Method and HTTP Protocol").
const (
	// Prefix starts every did:wba DID (did:wba method, 2.1).
	Prefix = "did:wba:"
	// Scheme is the auth-scheme of the Authorization header a client
	// authenticates with: DIDWba did="...", nonce="...", timestamp="...",
	// verification_method="...", signature="...".
	Scheme = "DIDWba"
	// BearerScheme carries the access token the service returns after a
	// DIDWba authentication, and the errors of WWW-Authenticate.
	BearerScheme = "Bearer"
	// WellKnownPath is the path of the DID document of a DID without path
	// segments; a DID with segments a:b resolves to /a/b/did.json.
	WellKnownPath = "/.well-known/did.json"
	// DocumentFile ends the path of every DID document.
	DocumentFile = "did.json"
	// DefaultFragment names the verification method of the node's key in
	// the documents this package builds (the draft's key-1).
	DefaultFragment = "key-1"
	// AgentDescriptionType is the service type of an ANP agent
	// description in a DID document.
	AgentDescriptionType = "AgentDescription"
	// AgentDescriptionFragment names that service (#ad).
	AgentDescriptionFragment = "ad"
)

// Header parameters of the DIDWba scheme. ParamVersion is not in the
// draft: the AgentConnect reference implementation sends v="1.1" and then
// signs "aud" in place of "service"; Verify accepts both forms.
const (
	ParamDID                = "did"
	ParamNonce              = "nonce"
	ParamTimestamp          = "timestamp"
	ParamVerificationMethod = "verification_method"
	ParamSignature          = "signature"
	ParamVersion            = "v"
)

// Error codes of the WWW-Authenticate error parameter (the draft's "Error
// Handling" list). Append only: clients branch on them.
const (
	CodeInvalidRequest            = "invalid_request"
	CodeInvalidNonce              = "invalid_nonce"
	CodeInvalidTimestamp          = "invalid_timestamp"
	CodeInvalidDID                = "invalid_did"
	CodeInvalidSignature          = "invalid_signature"
	CodeInvalidVerificationMethod = "invalid_verification_method"
	CodeInvalidAccessToken        = "invalid_access_token"
	CodeForbiddenDID              = "forbidden_did"
)

// Verification method types whose Ed25519 key this package reads. It
// writes Ed25519VerificationKey2020 with publicKeyMultibase, the type of
// the draft's example DID document.
const (
	TypeEd25519VerificationKey2020 = "Ed25519VerificationKey2020"
	TypeEd25519VerificationKey2018 = "Ed25519VerificationKey2018"
	TypeMultikey                   = "Multikey"
	TypeJSONWebKey2020             = "JsonWebKey2020"
)

// Limits and defaults.
const (
	// MaxDocumentSize bounds a fetched DID document.
	MaxDocumentSize = 64 << 10
	// MaxHeaderSize bounds an Authorization header ParseHeader reads.
	MaxHeaderSize = 4 << 10
	// MaxNonceLength bounds a nonce (the draft recommends 16 random
	// bytes; hex or base64 of those fit many times over).
	MaxNonceLength = 128
	// MaxDIDLength bounds a DID.
	MaxDIDLength = 2048
	// DefaultResolveTimeout bounds one DID document fetch.
	DefaultResolveTimeout = 10 * time.Second
	// DefaultCacheTTL is how long a resolved DID document (or a failed
	// resolution, for a tenth of it) is reused.
	DefaultCacheTTL = 5 * time.Minute
	// DefaultCacheSize bounds the resolver's cache, in documents (at
	// most MaxDocumentSize each: 16 MiB).
	DefaultCacheSize = 256
	// DefaultMaxResolving bounds concurrent DID document fetches.
	DefaultMaxResolving = 8
	// DefaultTimestampWindow is how far a DIDWba timestamp may be from
	// the service's clock, either way. The draft recommends one minute;
	// five tolerates the clock skew of hosts without NTP, and every
	// request is still single-use through the nonce cache.
	DefaultTimestampWindow = 5 * time.Minute
	// DefaultNonceCacheSize bounds the nonce replay cache (an entry is a
	// 32-octet digest and a time: a few MiB).
	DefaultNonceCacheSize = 1 << 16
	// DefaultTokenTTL is the lifetime of an access token.
	DefaultTokenTTL = 15 * time.Minute
	// MaxTokenSize bounds a Bearer token Verify reads.
	MaxTokenSize = 2048
)
