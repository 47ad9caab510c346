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
// The functions read no clock, file or network of their own and the
// package keeps no state. Shape and Next change the card they are given
// (First and NeedsUpdate work on copies), so a card must not be shared
// with another goroutine while they run.
package owncard
