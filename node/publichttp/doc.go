// Package publichttp is the node's public face: a read-only HTTP server,
// apart from the loopback API of package node/httpapi, that web clients on
// other machines can read (adpnode run --public-http ADDR).
//
// It serves, to GET and HEAD only (any other method is 405 with
// Allow: GET, HEAD; the two exceptions are POST to the A2A endpoint when
// WithA2A mounts one, and POST to the AI Catalog search on a directory):
//
//   - the /.well-known documents of package node/wellknown (signed A2A
//     card, ADP card, AgentCard, ANP agent-descriptions and descriptions,
//     agent.json), with their caching headers (ETag, Cache-Control,
//     Last-Modified, 304);
//   - the web view of package node/webui in its read-only form at "/"
//     (no invoke, no event stream), and the few GET endpoints that page
//     reads, under [ViewPrefix]: status (without the API URL or the agent
//     process), peers (without their addresses), held cards, one held card
//     (never fetched from the network), and a local discovery whose query
//     is bounded query parameters ([MaxQueryBytes], [MaxListParams]).
//
// Nothing of the admin API is reachable: no /v1/*, no /mcp, no /metrics,
// no writes, no call that makes the node reach out to the network.
//
// Bounds, since anyone can connect: every request is charged to its source
// IP and to its network (IPv4 /24, IPv6 /48) by package internal/ratelimit
// (429 with Retry-After when refused; discovery has a stricter budget of
// its own, and at most [DefaultMaxSearches] discoveries run at once from
// all sources together, 503 with Retry-After past it); the server has read-header, read, write and idle timeouts, a
// header size limit ([MaxHeaderBytes]), a cap on open connections
// ([DefaultMaxConns]) and caps on those one source IP and one source
// network keep open ([DefaultMaxConnsPerIP], [DefaultMaxConnsPerNetwork];
// a connection past one is closed as it is accepted, so that one source
// cannot take every slot). Listings read one page of the held cards, never
// all of them. A source is the TCP peer, unless WithTrustedProxies names
// it as a reverse proxy: then it is the client the proxy names in
// X-Forwarded-For, and the proxy's connections are not capped per source. The Host header is not checked: the server is
// public, and the documents link to the configured public URL (WithURL)
// or, without one, to the Host the client asked for.
//
// Every answer carries X-Content-Type-Options: nosniff and
// Referrer-Policy: no-referrer. Documents and view endpoints carry
// Access-Control-Allow-Origin: *: they are public, read-only and never
// depend on credentials (the server sets and reads no cookie), so any web
// page may read them, which is what a card published for other agents is
// for; "*" also makes browsers send no credentials. Requests with custom
// headers would need a CORS preflight (OPTIONS), which the server does not
// answer: the documents are meant for simple GET requests.
//
// A Server is safe for concurrent use; Shutdown and Close end it (Close is
// idempotent) and wait for nothing the package started beyond net/http's
// own connection goroutines.
package publichttp
