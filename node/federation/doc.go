// Package federation answers a network-scope discovery (POST
// /v1/discover?scope=network): beyond the cards a node holds, it asks the
// directory peers the node knows and the DHT's providers of the request's
// tags, keeps what they return that is new here, and merges the answers
// with the node's own ranking by reciprocal rank fusion
// (discovery.Merge), never comparing the services' scores.
//
// # A search
//
// Search.Discover runs one request in three phases, each a method of
// its own:
//
//  1. gather: at once, and within Timeout, every known directory
//     (at most discovery.MaxDirectoriesAsked) is asked for full signed
//     cards, whose results are verified (discovery.FromDirectory); and
//     the DHT providers of the request's tags (discovery.ProviderTags, at
//     most MaxTagProviders a tag) whose card is not held are asked for it
//     (adp.describe; at most MaxProviderFetches, FetchConcurrency at
//     once), lookups and fetches within TagLookupTimeout. A directory
//     that does not answer becomes a warning of the answer; a provider
//     that does not, a Debug line.
//  2. keep: the directories' cards that are new here enter the store
//     through the node's intake, and the search waits until the index
//     holds them, so that the local ranking sees them too.
//  3. merge: the local ranking and the directories' results are merged;
//     each result lists the services that returned it.
//
// The node is reached through the Network interface; the package talks
// to peers only through it. A Search is safe for concurrent use and owns
// no goroutine beyond a running Discover.
package federation
