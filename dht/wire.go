package dht

import (
	"time"

	"github.com/libp2p/go-libp2p/core/protocol"
)

// Wire constants. Changing one splits the network.
const (
	// ProtocolPrefix is the kad-dht protocol prefix: the DHT speaks
	// /adp/kad/1.0.0.
	ProtocolPrefix protocol.ID = "/adp"

	// Namespace is the record namespace of Agent Cards; keys are
	// "/" + Namespace + "/" + string(peer id).
	Namespace = "adpcard"

	// SkillPrefix is prepended to a normalized skill tag before hashing it
	// into the provider key (TagCID).
	SkillPrefix = "adp-skill:"
)

// Local limits: they bound the work a card makes this node do.
const (
	// MaxTagLen bounds a normalized tag in octets; longer tags are not
	// announced.
	MaxTagLen = 128

	// MaxProvideKeys bounds the provider records announced for one card
	// (tags and parent paths together); each costs a DHT lookup.
	MaxProvideKeys = 64

	// MaxFindLimit bounds the providers FindByTag returns.
	MaxFindLimit = 1000

	// DefaultFindLimit is used when FindByTag is given a limit <= 0.
	DefaultFindLimit = 20

	// DefaultRepublishInterval is how often remembered cards are put again.
	// kad-dht drops values after 36 hours and provider records after 48.
	DefaultRepublishInterval = time.Hour

	// MinRepublishInterval bounds the RepublishInterval option from below.
	MinRepublishInterval = time.Second
	// MaxRepublishInterval bounds it from above: a round may leave a card
	// put shortly before it to the next, so records are up to one and a
	// half intervals old (18 h), well inside kad-dht's 36 h for values
	// and 48 h for provider records.
	MaxRepublishInterval = 12 * time.Hour

	// DefaultGetQuorum is how many answers GetCard waits for before it
	// settles on the newest card among them (the GetQuorum option changes
	// it). Cards are self-certifying and ordered by adp.Compare, so one
	// valid answer is never a forgery and a few suffice to find the newest
	// with high probability: PutCard stores a card on the 20 closest peers,
	// and kad-dht corrects the peers that answered with an older card.
	// kad-dht's own default, 16, waits for the slowest of 16 peers and
	// puts the p99 of a get at several times the p50.
	DefaultGetQuorum = 4

	// IncomingQueue bounds the cards put here by peers that wait for
	// verification and the OnCard sink; more are dropped (kad-dht still
	// stores them).
	IncomingQueue = 256
)
