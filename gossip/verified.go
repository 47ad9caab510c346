package gossip

// maxVerified bounds the card encodings remembered as verified: a
// re-broadcast of an unchanged card (the common message on the topic)
// then costs a parse, not a signature verification, at every node it
// crosses (see internal/digestset).
const maxVerified = 4096
