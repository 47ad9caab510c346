// Package discovery sits between the node and package scoring: it turns
// cards into scoring documents ([DocFromCard]) and adp.discover requests
// into scoring queries ([QueryFromRequest]), answers requests from the
// cards a node holds with evidence, freshness and the detail level's
// redaction ([Discovery], discovery profile §5.1, §6, §7.4, §8), and
// merges a local answer with the directories' answers of a network-scope
// discovery by reciprocal rank fusion, never comparing scores that are
// local to each service, keeping every service's provenance
// ([FromDirectory], [Merge]).
//
// Request defaults (limit, min_score, detail) are applied in one place,
// adp.DiscoverRequest.WithDefaults, which every entry point here calls.
//
// The package talks to no peer: the node asks directories and DHT
// providers and hands their answers in. A [Discovery] is safe for
// concurrent use, owns no goroutines and needs no Close.
//
// Subpackage bench measures the ranking on card files and synthetic
// corpora for the `adpnode bench discover` command.
package discovery
