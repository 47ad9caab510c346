// Package webui is the node's web view: plain HTML, CSS and JavaScript
// modules embedded in the binary, served by [Handler] at "/" (the page)
// and under [AssetPrefix] (its modules and style sheet). There is no build
// step and no external asset; the page works offline.
//
// The page reads the node's JSON API on the same origin (GET /v1/status,
// /v1/peers, /v1/cards, /v1/cards/{id}, /v1/network, POST /v1/discover,
// /v1/invoke) and follows GET /v1/events (server-sent events) to update
// without a reload. It has three views: Network (this node, its peers, a
// live graph of the connections, the cards held and their freshness),
// Discover (a ranked search whose results show each weighted score
// component) and Invoke (a form generated from a tool's input schema,
// streamed replies).
//
// The graph draws GET /v1/network (package node/netview): elsewhere
// than on a testnet, this node and its own connections, which the page
// says in words (no peer tells another whom it is connected to); on a
// testnet, every node on a circle and every link the nodes report, a
// link only one end reports dotted, and a table of how long each node's
// card took from its publication to each node. The node's events tell
// of its own peers and cards only, so on a testnet the page also reads
// /v1/network again every 5 seconds. Without /v1/network (an API that
// does not serve it) the page draws this node's connections from
// /v1/peers.
//
// Card text is peer-supplied: the scripts only ever set it as text
// (textContent), never as markup, and every response carries a Content
// Security Policy that allows only the page's own scripts.
//
// With the ReadOnly option (package node/publichttp, the public server)
// the page reads its API under another base, by GET only (never
// /v1/network, which the public server does not serve), and offers no
// Invoke view and no event stream; it learns this from a meta tag
// (ReadOnlyMeta) the handler adds to index.html.
//
// Handler is safe for concurrent use and owns no goroutines; package
// httpapi mounts it behind its Host and Origin guards.
package webui
