// Package netview puts together what a node knows of the network's
// connections and of how cards spread (GET /v1/network).
//
// No peer tells another whom it is connected to, and this package adds no
// protocol that would: a node reports its own connections only
// (nodeapi.ScopeLocal). On a testnet, whose nodes all run on one machine,
// the operator that started them knows more: it writes the local API
// addresses of every node to a peers file ([WritePeersFile]; package
// testnet does, and `adpnode run --testnet-peers FILE` reads it), and a
// [View] given that file reads every node's GET /v1/status, /v1/peers
// and /v1/arrivals through the typed client of package node/httpapi
// (nodeapi.ScopeTestnet). The file is the only source of addresses: the
// view never follows an address a peer reported, and it accepts loopback
// http URLs only, so it reaches nothing beyond the machine.
//
// What the nodes report is their word, checked where it can be:
//
//  1. each node's status must name an agent id derived from its peer id,
//     and one agent appears once (a second node claiming it is an error);
//  2. a link is kept with the ends that report it (nodeapi.Link); one
//     both ends report is confirmed, one a single end reports is shown
//     as that end's word;
//  3. every read is bounded: at most MaxNodes nodes, a deadline per node
//     (WithTimeout, DefaultTimeout), at most `parallel` reads at a time,
//     answers bounded by the client (httpapi.MaxReply) and at most
//     maxPeers peers a node, and one aggregation at a time, an answer
//     younger than minAge served again to concurrent pages.
//
// The travel of a card version (nodeapi.CardTravel) is each node's first
// arrival of it (package node/arrivals) minus the owner's record of when
// it published it. The nodes of a testnet share one clock, which is what
// makes the difference meaningful; across machines it would not be.
//
// A View is safe for concurrent use and owns no goroutines beyond those
// of a running Network call.
package netview
