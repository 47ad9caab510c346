// Package owncard makes and keeps a node's own Agent Card:
//
//   - First: the first card of a new identity (`adpnode init`), from a
//     template, with its id, did:key, an AITP endpoint when it has no
//     endpoint list,
//     version, status, created_at and updated_at, seq 1, validated and
//     signed.
//   - Next: each following version (an owner's edit, PUT /v1/card, a new
//     tool list from the agent): the agent's id, in its canonical form (an
//     edit naming another agent's id is ErrOtherID), seq one more than the held card's, updated_at now,
//     created_at kept, validated and signed.
//   - Shape: what the running node puts on the card whatever its owner
//     writes (Setup): the did (the did:wba DID, or the key's did:key when
//     a did:wba DID was dropped), the directory skill of a directory
//     peer, the demo tools when the node serves them, and one libp2p
//     endpoint for each of the node's listen addresses. NeedsUpdate says
//     whether a card differs from its shape, so that a node whose
//     addresses changed signs a new version.
//
// These functions read no clock, file or network of their own and keep
// no state. Shape and Next change the card they are given (First and
// NeedsUpdate work on copies), so a card must not be shared with another
// goroutine while they run.
//
// A Keeper holds a running node's card and makes its versions one at a
// time with them: Update (an edit), Replace (a whole new content), Reshape
// (what the node runs changed) and FollowAddrs (Reshape each time the
// host's addresses settle). Each version is written (card.json) and kept
// (the node's store) before Card returns it, then handed to Changed (the
// node serves its tools and publishes it); a version that fails to be
// written or kept is dropped and the held card stays. A Keeper has no
// goroutine of its own: FollowAddrs runs on its caller's until its
// context ends.
package owncard
