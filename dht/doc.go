// Package dht publishes and finds signed Agent Cards on a Kademlia DHT
// private to adpnode (go-libp2p-kad-dht with protocol prefix /adp, so the
// protocol is /adp/kad/1.0.0 and the node never joins the public IPFS DHT).
//
// # Records
//
// A card is stored as a value record under the key /adpcard/<peer id>
// ([Key]), where <peer id> is the binary multihash of the agent's peer ID,
// the form libp2p's own /pk and /ipns namespaces use. [Validator] is the
// namespace's record validator: Validate admits only a well-formed card no
// larger than adp.MaxCardSize, validly signed by the key its key names;
// Select keeps the card that supersedes the others under adp.Compare, then
// the greatest bytes, so every node picks the same one. Both are pure.
//
// Each skill tag of a card in its canonical form (the taxonomy of adp/tag,
// option [Taxonomy]: "Text_Analysis" gives "text-analysis", "py" gives
// "coding/python") and each of its parent paths (nlp/translation gives
// nlp/translation and nlp)
// is announced as a provider record for [TagCID]: a CIDv1 with the raw codec
// over the sha2-256 multihash of "adp-skill:" followed by the tag. FindByTag
// returns the agents that provide a tag, including those whose cards no
// gossip has brought. A provider record cannot be withdrawn: after a
// revocation (which announces no tags) or a card that drops a skill, the
// old records live until they expire (48 hours in kad-dht), so FindByTag
// may name agents that no longer offer the tag or are revoked. It is a
// hint: callers fetch and check the card (GetCard, then IsRevocation and
// the skills) before they use an agent.
//
// # Lifecycle
//
// [New] starts the DHT on a host the caller owns; [DHT.Bootstrap] connects
// to the bootstrap peers, waits for a non-empty routing table and refreshes
// it; kad-dht also refreshes it on its own (at start, every ten minutes
// and whenever it runs low) unless [NoAutoRefresh]. [DHT.PutCard] stores
// a card and its provider records at once and remembers it: kad-dht
// never republishes values, so a background loop re-puts every
// remembered card and announces its keys again on the republish
// interval, but for a card put (with every one of its provider keys)
// within half the interval before the round: the next round puts it, so
// its records are at most one and a half intervals old, within
// MaxRepublishInterval's bound far below their expiry. Between two rounds a newer card announces only the keys not
// announced since the last one (a new skill), not those still fresh,
// unless the routing table has more than doubled since they were (a node
// that announced at its start, knowing only its bootstrap peer, announces
// them again with its next card version, or at the next round). [DHT.GetCard]
// looks a card up by agent id. With an OnCard sink, every verified card
// the DHT obtains reaches the node: fetched ones, and those peers put here,
// which a bounded queue hands to a background verifier so kad-dht's request
// path never waits on a signature check; each reaches the sink once, and
// the sink need not verify it again. With [WithChecker] the validator
// kad-dht runs checks cards through the node's shared check, so a card the
// node verified on another path is not verified again here. [Validator]
// itself stays pure. [WithPutLimit] charges every record and provider
// record a peer puts here to a rate limit before kad-dht stores it; the
// Kademlia protocol has no BUSY answer, so a refused put is dropped (the
// request fails) and counted. [DHT.Stats] counts it all.
// [DHT.Close] stops the loops, waits for them and closes the DHT; it does
// not close the host. A DHT is safe for concurrent use.
//
// # Get quorum
//
// GetCard settles on the newest card among the first [DefaultGetQuorum]
// (4) answers, the local copy included, where kad-dht by default waits for
// 16. A card is self-certifying, so a single valid answer is never a
// forgery, and Select orders the answers by adp.Compare, so the only risk
// of a small quorum is missing a card put moments ago on a few of the 20
// closest peers; kad-dht then corrects the peers that answered with an
// older card, and the node's gossip normally brings such a card anyway.
// Waiting for 16 answers makes a get as slow as the 16th fastest peer:
// on a 100-node mocknet a get with quorum 16 takes about four times as
// long at the median as one with quorum 4, and its p99 is several times
// longer (BenchmarkDHTGetCard in package gossip).
// The GetQuorum option and the per-call Quorum change it.
package dht
