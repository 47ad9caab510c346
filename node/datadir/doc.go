// Package datadir is a node's data directory: the names of the files in
// it, their modes, and the checks made on reading them.
//
//	identity.key   the node's Ed25519 key (libp2p's MarshalPrivateKey
//	               form), mode 0600; refused when readable by others
//	card.json      the signed own card, verified on reading and checked
//	               against identity.key
//	agentcard-id   the AgentCard agent_id, a ULID made once and kept
//	store/         the card store (package store, Badger)
//
// Other packages keep files there too, each naming its own: the API's
// base URL while it serves (httpapi.APIFile), the listen port kept across
// restarts and the known peers (peering.ListenFile, peering.KnownFile).
//
// Every function takes the directory's path; none keeps state. Files
// other processes may read mid-write (card.json, agentcard-id) are
// replaced atomically; identity.key is created once, exclusively, and
// synced before it is used.
package datadir
