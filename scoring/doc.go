// Package scoring ranks agents for a discovery request: the five-factor
// composite of ADP §5.1 with the evidence of the discovery profile
// (draft-xu §6.2, §8), answered from an in-memory inverted index.
//
// The package is pure: it imports no other adpnode package. Callers
// translate cards into Doc values, requests into Query values and this
// node's interaction records into Signals.
//
// # Factors
//
// Every factor is in [0, 1]; the score is sum(weight * factor) with
// DefaultWeights 0.30 tag, 0.25 semantic, 0.20 reputation, 0.15
// availability, 0.10 rating (ADP Table 11), configurable with WithWeights.
//
//   - tag: matched query tags / query tags (Table 11). Query tags are the
//     union of Query.Tags, RequiredTags and PreferredTags, so preferred tags
//     raise the factor of the agents that have them exactly as tags do, and
//     required tags (a hard filter) count as matched for every result.
//     Matching follows ADP §3.6.1: exact; prefix ("nlp/*" matches nlp and
//     every tag below it); parent (an agent declaring "nlp/translation"
//     matches a query for "nlp"). Both sides are normalized by a Taxonomy
//     first: case, separators, an alias table ("py" -> "python") and leaf
//     expansion ("python" -> "coding/python"). Hit.MatchedTags lists the
//     direct matches, Hit.ExpandedTags the alias, parent and prefix ones.
//   - semantic: max(context, example). context is BM25F (k1 1.2, b 0.75,
//     per-field length normalization) over name, skills, description,
//     tools (names and descriptions) and input-schema property names,
//     with DefaultFieldWeights; example is plain BM25 over each example on
//     its own, the best example counting (discovery profile §7.3). Each is
//     normalized against the query itself: a BM25 contribution is
//     idf(t) * tf/(k1+tf), so a sum is at most sum(idf) over the query
//     terms; the factor is y = sum/sum(idf) lifted by the curve
//     y*(1+c)/(y+c) with c = 0.25, which keeps every difference between
//     sums (no ties at a cap) while every query term present once in an
//     average example scores 0.81, twice in the context 0.89. The scale
//     does not depend on the corpus size.
//     The hit's Weights put the semantic weight on whichever of context
//     and example is larger, so the reported components add up.
//   - reputation: Laplace-smoothed success rate of this node's own calls,
//     plus a cold-start boost (0.2) for agents with fewer than 5 completed
//     tasks (ADP §5.2). Nothing a card says about itself is used.
//   - availability: 1 when the agent was seen within the availability
//     window (10 min), is not inactive or suspended and runs fewer tasks
//     than its max_concurrent_tasks; else 0. Agents at or above their
//     limit are excluded (ADP §5.3).
//   - rating: mean stars mapped to [0, 1], shrunk to 0.5 by two virtual
//     ratings.
//   - freshness: 1 just received, linearly down to 0 at expiry; weight 0
//     by default (Weights.Freshness), so it is evidence only.
//
// When a query has no tags the tag weight moves to the semantic factor,
// and the other way round; with neither, the relevance weights move to
// the other factors. Result.Weights and Hit.Weights report the weights
// actually used: Hit.Score == Hit.Components.Dot(Hit.Weights).
//
// # Filters
//
// Required and excluded tags (same matching rules), protocols (any of),
// MaxAge (time since indexing), expiry (expired records only with
// AllowStale), the load filter, and MinScore. A result must match at least
// one query tag or term unless the query has neither (a filter-only
// query), and its relevance (weighted tag and semantic factors) must be
// at least the relevance floor (default 0.3) times the best relevance
// among the agents that pass the filters: reputation, availability and
// rating reorder relevant agents but cannot make an irrelevant one
// relevant.
//
// # Signals
//
// Signals come either from a SignalFunc passed to Search, called for
// every candidate scored, or, better at scale, from SetSignals: the node
// pushes an agent's signals when they change. The index then knows the
// exact contribution of reputation, availability and rating for every
// agent without signals (most of them), which bounds their scores and
// lets pruning skip them.
//
// # Index
//
// Index keeps postings per text term (documents and examples) and per
// canonical tag including parent paths, as compact parallel uint32/uint16
// slices in document order, each term with a bound of what it can add
// to any document (its largest term frequency and shortest field per
// field). Search generates candidates from the postings of the query's
// tags and then its terms, rarest first; once the remaining terms cannot
// lift a document they alone reach to the relevance floor or to the k-th
// best score so far, it stops admitting documents and only completes the
// scores of those it holds (max-score pruning). The k-th score bound
// counts the final relevance of a few promising held documents (seeds),
// completed by binary search in the unread terms' postings, so that
// admission closes after fewer terms. Before the first term is read, a
// first bound comes the same way from the documents held by a tag match
// and the agents with signals among the rarest term's postings, so that
// even the rarest term's postings need not all be admitted. It then
// buckets the candidates by an upper bound of their score and scores
// them fully from the best bucket down, stopping when no remaining
// candidate can reach the k-th score.
// Naive is a full scan over a forward index with the same statistics,
// kept as a baseline and a test oracle.
//
// Lifecycle: New, then Upsert and Delete as cards arrive, change or are
// revoked; Expire drops records past their expiry; Search at any time.
// Index and Naive are safe for concurrent use and own no goroutines.
package scoring
