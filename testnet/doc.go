// Package testnet runs local adpnode networks: as separate processes for
// people (`adpnode testnet ...`) and in one process for Go tests.
//
// # Bundled agents
//
// The package embeds a set of realistic Agent Card templates (agents/*.json):
// translators, OCR, speech, forecasting, code review, search, design,
// deployment... with skills under ADP's eight categories (nlp, vision,
// audio, analytical, coding, retrieval, creative, ops), tools with input and
// output schemas, examples, constraints and a TTL. Every template also lists
// the demo agent's tools (echo, wordcount, reverse), which every testnet
// node serves, so invocation works out of the box. Templates carry no id or
// signature: each node's Init signs its card with the node's own key.
// [Templates] lists them; [TemplateCard] returns the card of node i.
//
// # Process testnets
//
// [Up] creates a testnet of N processes in a directory and returns with them
// running. It copies the adpnode executable into DIR/bin, initializes
// DIR/node-I, starts node 0 (the bootstrap peer) and then the others, each
// in its own process group with its log in DIR/node-I/node.log and its HTTP
// API on a free loopback port, records everything in DIR/testnet.json, and
// waits until every node holds every card. [Open] finds the testnet again
// from another process; [Testnet.Status], [Testnet.Discover] and
// [Testnet.API] talk to the nodes' HTTP APIs; [Testnet.StopNode] and
// [Testnet.StartNode] restart one node on its old addresses; [Testnet.Down]
// stops every node (SIGTERM, then SIGKILL) and removes the directory.
// Process ids are only signalled while their command line still names the
// node's data directory, so a recycled pid is never touched. Nodes listen
// on loopback TCP only ([DefaultListen]), run with [DefaultNodeEnv] and do
// not inherit the caller's ADPNODE_* variables.
//
// # In-process networks
//
// [NewInProcess] builds N node.Node instances in the calling process on
// loopback TCP with the same cards, for tests of anything above the node;
// [Network.WaitPropagation] and [WaitFor] poll instead of sleeping;
// [Network.Stop] and [Network.Restart] stop a node and start it again on
// its data directory (churn tests); [Network.Close] closes every node and
// waits for their goroutines.
//
// # The whole testnet in every node's web view
//
// Both kinds of testnet write [PeersFile] in their directory: the local
// API addresses of the running nodes (package node/netview), rewritten
// when a node comes back, and give its path to every node
// (`--testnet-peers`, node.Config.TestnetPeers). A node's GET /v1/network,
// and so its web view, then shows every node's connections and how long
// each card took to reach each node. The in-process testnet writes it for
// the nodes that serve an API (WithNodeConfig setting APIAddr).
//
// The package never imports testing.
package testnet
