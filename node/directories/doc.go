// Package directories keeps the directory peers a node knows and keeps
// the node's card with them.
//
// A directory peer is a node that keeps every card it hears and serves
// discovery for the network; its card carries the skill Skill. A Book
// learns directories from the cards the node holds (Note, on every card
// the node keeps or indexes; Forget, when a card leaves the store) and
// from the DHT's providers of Skill (Find, which fetches the card of each
// provider not yet known, so that it too reaches Note). Run finds
// directories and advertises the node's card to each of them (Advertise,
// adp.advertise) at once and then every Interval, so that a node is
// found through every directory of its network without its owner asking.
//
// Any card can claim Skill, so the Book is bounded: it keeps MaxKnown
// directories, advertises Parallel at a time (a round of unreachable ones
// ends inside Interval), forgets one that fails MaxFailures rounds in a
// row, and past MaxKnown lets a new one in in place of the one that failed
// most, else of one that never answered an advertisement, else, at most
// once an Interval, of one drawn at random: a burst of fake directory
// cards replaces only what is unproven, and directories that answer
// (fakes among them) cannot keep the others out for good. Fakes that
// answer are cheap, so the Book also lists at most MaxPerNetwork
// directories of one source network (IPv4 /24, IPv6 /48; a directory's
// network is its direct connection's, looked at when its card is noted,
// when Known lists it and when it answers): the others are kept aside,
// advertised to but neither listed by Known nor asked by discovery, and
// make room first. Many identities on one network so hold at most
// MaxPerNetwork places among those the node asks. A directory greeted with the current card when it connected
// (package node/greeting) is not advertised to again in the round that
// follows.
//
// The node is reached through the Network interface. A Book is safe for
// concurrent use; Run returns when its context ends.
package directories
