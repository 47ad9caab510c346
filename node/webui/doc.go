// Package webui is the node's web view: plain HTML, CSS and JavaScript
// modules embedded in the binary, served by [Handler] at "/" (the page)
// and under [AssetPrefix] (its modules and style sheet). There is no build
// step and no external asset; the page works offline.
//
// The page reads the node's JSON API on the same origin (GET /v1/status,
// /v1/peers, /v1/cards, /v1/cards/{id}, POST /v1/discover, /v1/invoke)
// and follows GET /v1/events (server-sent events) to update without a
// reload. It has three views: Network (this node, its peers, a live
// graph of the connections, the cards held and their freshness), Discover
// (a ranked search whose results show each weighted score component) and
// Invoke (a form generated from a tool's input schema, streamed replies).
//
// Card text is peer-supplied: the scripts only ever set it as text
// (textContent), never as markup, and every response carries a Content
// Security Policy that allows only the page's own scripts.
//
// With the ReadOnly option (package node/publichttp, the public server)
// the page reads its API under another base, by GET only, and offers no
// Invoke view and no event stream; it learns this from a meta tag
// (ReadOnlyMeta) the handler adds to index.html.
//
// Handler is safe for concurrent use and owns no goroutines; package
// httpapi mounts it behind its Host and Origin guards.
package webui
