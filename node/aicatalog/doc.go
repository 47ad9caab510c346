// Package aicatalog serves a directory's discovery engine in the shape of
// the Agentic Resource Discovery draft (ARD v0.9, ards-project/ard-spec,
// built on the AI Catalog data model): the capability manifest at
// /.well-known/ai-catalog.json ([WellKnownPath], §4.1) and the registry's
// POST /search ([SearchPath], §7.2).
//
// The package is a translation and nothing else. [ParseSearchRequest]
// checks a search body (bounded, unknown members refused, every problem
// reported with the JSON Pointer of the value at fault, §7.1 and the
// draft's OpenAPI schema) and [SearchRequest.Discover] turns it into an
// adp.DiscoverRequest; [Results] turns the discovery answers of one or
// more [Source]s into ranked catalog entries with the draft's relevance
// score (0–100) and a source naming the card's provenance ([Origin]); the
// manifest lists the node's own agent and the registry entry
// (application/ai-registry+json) whose url is the search endpoint (§7).
//
// Results carry provenance in two places: source, which the draft types
// as a URI, is "adpnode:gossip", "adpnode:dht", "adpnode:advertise",
// "adpnode:self" or "adpnode:import" for cards signed by an adpnode key,
// and the URL the card was fetched from for a card registered from the
// web; metadata.adpnode holds the provenance word ("gossip"... or "web")
// and whether the card is signed by an adpnode key.
//
// [Handler] is the http.Handler of both routes over the narrow [Source]
// interface; it holds no state of its own and is safe for concurrent
// use. Rate limits are the mounting server's.
package aicatalog
