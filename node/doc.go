// Package node is adpnode's composition root: it wires one agent's node
// out of the other packages and runs it.
//
// A [Node] owns a libp2p host (TCP and QUIC, Noise, yamux, fixed resource
// limits raised for the invocation protocol, a connection manager), the
// Badger card store (package store), the DHT (package dht), the GossipSub
// card topic (package gossip), the invocation layer (package aitp), the
// local discovery index (package node/discovery, over package
// scoring), the ADP methods
// (adp.describe, adp.advertise, adp.discover, served by package adp's
// Service with the store as card sink and the local index as
// discoverer), the tool handlers of the
// agent beside the node, and the HTTP API (package node/httpapi).
//
// # Data directory
//
// [Init] creates Config.DataDir with identity.key (the libp2p Ed25519 key,
// mode 0600) and card.json (the signed card). [New] adds store/ (Badger),
// agentcard-id and, while the API serves, api (its base URL, for example
// http://127.0.0.1:5001; httpapi.APIFile), removed on a clean shutdown.
// Package node/datadir names these files and checks them on reading.
//
// # Lifecycle
//
// [New] validates the [Config], loads the identity and card, opens the
// store and builds every component: the discovery index and its feed
// (package node/indexfeed) before any path that hands the node cards, and
// the greeting's subscription to peer identification (package
// node/greeting) before the DHT dials its bootstrap peers; when it fails
// it closes what it built.
// [Node.Start] brings the card in line with the configuration (directory
// skill, demo tools: a signed update), stores it, replays the store into
// the discovery index and follows its change feed, serves the HTTP API,
// connects to the bootstrap peers, bootstraps the DHT and announces the
// card (the join schedule, package node/join): to every peer identified
// as speaking AITP (adp.advertise, at once, including the peers
// identified before Start: the greeting), on the gossip topic
// (when it has peers, again about 0.5 s after the first one, then every
// GossipInterval and whenever a card sync finds a peer without it), in the
// DHT, and to the directory peers it finds (every minute). About 0.5 and
// 2 s after its first peer it also pulls the cards its bootstrap peers
// hold (adp.discover with no criteria, at most 100, each verified). The
// card carries the node's listen addresses as endpoints of protocol
// libp2p, so any node holding it can dial the agent, and follows them
// when they change. Every version of the own card (an edit, PUT
// /v1/card, the MCP server's new tools, new addresses) is made by one
// keeper (package node/owncard): signed with the next seq, written to
// card.json, stored, served and published. From Start on,
// package node/peering keeps the node on the network: bootstrap peers are
// redialled with backoff for as long as it runs, the peers it met
// (DataDir/peers.json) while it has few connections, mDNS finds local
// peers when Config.MDNS is set, and the listen ports of the first run
// (DataDir/listen.json) are reused for every listen address with port 0.
// A call that libp2p's dial backoff refuses, or whose dial fails on every
// address, looks the peer up in the DHT and is tried again. [Node.Close]
// shuts down in order — the MCP and A2A servers, the public server, HTTP
// API, background loops, the index feed, card sync, peering, gossip, DHT,
// invocation layer, host, store — waits for every goroutine the node
// started, and is idempotent.
//
// Outbound calls ([Node.Invoke], [Node.InvokeStream]) go through package
// node/invoke: the routes the agent's held card offers (AITP, or A2A over
// HTTP), re-dials of a peer whose addresses changed, and every failure in
// the node's terms ([ErrUnreachable] or the agent's AITP status). They
// update the interaction records (calls, failures, latency, last seen) that rank
// agents by reputation; they are written off the call path. Ratings
// ([Node.Rate]) are kept per rater. Package node/indexfeed keeps the
// discovery index in step: it replays the store into the index at Start
// and follows the store's change feed, and it pushes an agent's ranking
// signals whenever one changes (a call record written, a rating, a call
// starting or ending, a connection to the agent's peer opening or
// closing, a greeting or an owner's re-broadcast of its card); a search
// never reads the store. Availability is observed, never guessed
// (node/liveness): an agent is available while connected or heard from
// within two re-broadcast intervals, and loses it with failed calls in a
// row; Config.Clock injects the time. Cards leave the index
// through the store's change feed: on revocation, and when the store's
// sweeper removes a card past its expiry plus the grace period. The node
// does not call discovery.Discovery.Expire at the card's expiry: a stale card
// stays rankable for requests with the allow_stale constraint (freshness
// 0, marked stale) until the store forgets it. An owner's gossip re-broadcast of a
// card already held renews that card's freshness; [Node.LookupCard]
// fetches a missing or stale card again from the DHT, then from its owner.
//
// # Cards from other agents
//
// Every card from outside enters through one intake (package
// node/intake): gossip, the DHT (gets and peers' puts), adp.advertise,
// adp.describe, directories, the start-up sync from the bootstrap peers
// and imports. It runs the same steps in the same order — size, parse,
// owner, validation, signature (skipped for encodings verified before),
// comparison with the held card, store with the source as provenance —
// and shares its check with the gossip validator, the DHT's record
// validator and adp.advertise, so a card heard on several paths is
// verified once. The store's change feed is the discovery index's only
// writer: an owner's re-broadcast of the card already held is a Refreshed
// change that moves the card's times in the index without analysing it
// again. A federated search waits for the feed to index the cards it
// stored before ranking locally.
//
// # Directory peers
//
// With Config.Directory the node keeps every card it hears (no eviction),
// carries the skill [DirectorySkill] on its card so that other nodes find
// it through gossip or the DHT, and receives their cards by adp.advertise.
// A discovery with scope "network" asks the known directory peers and the
// DHT's tag providers and merges their answers with the local ranking by
// reciprocal rank fusion (scores are local to each service), listing in
// each result the sources that returned it (origin_service, received_at,
// rank and score, "dht" for a card found through the DHT). The node
// does the asking over AITP; package node/discovery checks the
// directories' results and merges (discovery.FromDirectory,
// discovery.Merge).
//
// # The agent beside the node
//
// Calls from other agents to the tools on the card (package
// node/toolserver) are served by the built-in demo agent (Config.DemoAgent, package node/demoagent) or by
// the agent beside the node: its HTTP server (Config.AgentURL, package
// node/httpagent: a JSON POST to <url>/<tool>, the HTTP status mapped to
// an AITP status) or an MCP server (Config.AgentMCPCommand or
// AgentMCPURL, package node/mcpagent, whose tools become the card's).
// A tool with no agent behind it answers NOT_FOUND.
//
// # HTTP API
//
// Package node/httpapi serves the API, with the MCP server of package
// node/mcpserver (over httpapi.NewLocal of the node) at /mcp and the A2A
// server of package node/a2aserver (over the node's CallTool, which
// serves an AITP request of the own agent in-process with the handler
// that answers peers) at /a2a, the URL the served A2A card names; the
// node closes both servers first when it closes. The API also serves
// the AI Catalog manifest and search of package node/aicatalog over the
// node's local discovery; a directory adds its web registrations
// (package node/webreg, whose POST route is on the local API only) and
// serves the catalog on the public server too (catalog.go, public.go). The node passes itself as its
// httpapi.Service, and its methods return the sentinel errors of package
// node/nodeapi (re-exported here as [ErrClosed] and [ErrUnreachable]),
// never an HTTP status. The API listens on a loopback address only,
// refuses requests whose Host is not a loopback name (DNS rebinding) and
// cross-site browser requests, requires JSON request bodies of at most
// httpapi.MaxAPIBody bytes, and answers
// errors in the discovery profile's error model {"code", "message",
// "path"} with the matching HTTP status. Routes: GET and PUT /v1/card, GET
// /v1/cards, GET /v1/cards/{id}, POST /v1/discover?scope=local|network,
// POST /v1/describe, POST /v1/invoke, POST /v1/ratings, POST
// /v1/advertise, GET /v1/peers, GET /v1/status, GET /v1/arrivals, GET
// /v1/network, GET /v1/events, GET /metrics, GET /healthz, the /.well-known documents and the web view
// (package node/webui) at /. GET /v1/events streams [Node.Events] (package
// node/events): the store's change feed and the host's connectedness
// events merged, with a resync event for a subscriber that fell behind.
//
// GET /v1/arrivals lists the first arrival of each card version the
// intake stored and of each own card the node published (package
// node/arrivals, fed by intake.OnStored and the own card's keeper); GET
// /v1/network is package node/netview over the node, which reads the
// other nodes of a testnet from Config.TestnetPeers.
//
// While the API serves, its base URL is in the data directory's api file
// (httpapi.APIFile).
//
// # did:wba
//
// With Config.DIDWbaDomain the agent has a did:wba DID (package
// adp/didwba): the card's did field, a DID document served on the API at
// the DID's path ([Node.DIDDocument], for any other server that must
// serve it too), and [Node.ANPClient], an HTTP client that authenticates
// as the DID. [Node.DIDWbaAuthenticator] guards public endpoints with
// DIDWba authentication, and [Node.DomainVerified] checks that a
// did:wba card's DID document lists its key (GET /v1/cards/{id}). DID
// documents are fetched only from public addresses unless
// Config.A2AAllowPrivate, as A2A endpoints are (internal/netguard).
//
// Metrics go to a Prometheus registry of the node's own (package
// node/metrics), never a global one, so any number of nodes can share a
// process. The rates peers get are package node/limits.
package node
