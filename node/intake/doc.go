// Package intake is the one way a card from the network enters a node.
//
// A card reaches a node by gossip, by the DHT (a get, or a put from a
// peer), by adp.advertise from its owner, by adp.describe from its owner,
// from a directory or a bootstrap peer (federated discovery, the start-up
// sync) or by an import. Whatever the path, it goes through the same
// steps in the same order:
//
//  1. size: at most adp.MaxCardSize octets;
//  2. parse (adp.ParseCard);
//  3. owner: when the path authenticates who delivered the card (the
//     gossip publisher, the adp.advertise caller, the DHT record key), the
//     card's id must name it;
//  4. validate (adp's rules);
//  5. verify the signature, skipped for encodings that passed before;
//  6. compare with the held card (adp.Compare) and store it when it
//     supersedes it, with its source and origin as provenance; the very
//     same bytes again only renew the held card's freshness.
//
// Steps 1 to 5 are an adp.Checker that the node shares with the paths
// that check a card before handing it over (the gossip validator, which
// must decide Accept or Reject before a message is relayed, the DHT's
// record validator and adp.advertise): [Intake.Checker]. Those paths hand
// the card they checked to [Intake.Keep], which runs step 6; the others
// hand its bytes to [Intake.Admit], which runs every step. So a card heard
// on three paths is verified once ([Stats].Verifications).
//
// The store's change feed then carries the card to the discovery index:
// the intake writes the store only.
//
// An Intake is safe for concurrent use and owns no goroutines.
package intake
