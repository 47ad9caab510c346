// Package scoring is the ranking model for a discovery request: the
// five-factor composite of ADP §5.1 with the evidence of the discovery
// profile (draft-xu §6.2, §8). It holds the factors, weights, analyzer,
// filters and types (Doc, Query, Signals, Hit and its evidence), the
// options that build a Model, and Naive, the reference scorer that scans
// every document. The retrieval engine that answers the same queries
// from an inverted index with pruning lives in scoring/index; a change
// to a factor is made here, and TestIndexEqualsNaive (scoring/index)
// checks that the engine still returns exactly what Naive does.
//
// The package is pure: it imports no other adpnode package. Callers
// translate cards into Doc values, requests into Query values and this
// node's interaction records into Signals, and pass the tag vocabulary
// (Tags, implemented by adp/tag's Taxonomy) with WithTags.
//
// # Factors
//
// Every factor is in [0, 1]; the score is sum(weight * factor) with
// DefaultWeights 0.30 tag, 0.25 semantic, 0.20 reputation, 0.15
// Availability, 0.10 rating (ADP Table 11), configurable with WithWeights.
//
//   - tag: matched query tags / query tags (Table 11). Query tags are the
//     union of Query.Tags, RequiredTags and PreferredTags, so preferred tags
//     raise the factor of the agents that have them exactly as tags do, and
//     required tags (a hard filter) count as matched for every result.
//     Matching follows ADP §3.6.1: exact; prefix ("nlp/*" matches nlp and
//     every tag below it); parent (an agent declaring "nlp/translation"
//     matches a query for "nlp"). Both sides are normalized by the Tags
//     given with WithTags first (adp/tag: case, separators, an alias
//     table "py" -> "python" and leaf expansion "python" ->
//     "coding/python"); without WithTags a tag matches only the very same
//     string. Hit.MatchedTags lists the
//     direct matches, Hit.ExpandedTags the alias, parent and prefix ones.
//   - semantic: max(context, example). context is BM25F (k1 1.2, b 0.75,
//     per-field length normalization) over name, skills, description,
//     tools (names and descriptions) and input-schema text (SchemaText:
//     property names, titles, descriptions, enum values and examples at
//     any depth), each field weighing 1/sqrt(its mean length in the
//     directory) scaled to keep a card's mean length (FieldWeightsFor;
//     WithFieldWeights sets fixed ones): a field counts as a vector of
//     unit length on average, as in cosine normalization, so a word of
//     a 4-word name weighs 4 times a word of a 64-word description,
//     between one bag of words (1 time) and fields of equal mass (16).
//     Against the former hand-set weights (name 2.5, skills 2,
//     description 1, tools 1, schema 0.5), nDCG@10 goes from 0.298 to
//     0.302 on Gorilla Hugging Face, 0.343 to 0.347 on TorchHub and
//     0.573 to 0.582 on MetaTool. A field's length is normalised
//     against its geometric mean length over the cards that have it,
//     not its mean (LengthStats): the pivot stands for a typical card,
//     and lengths, which vary by ratios and are skewed, are typical at
//     the centre of their logarithms, while a few manuals of a thousand
//     words pull the mean up until every ordinary card reads as short
//     and a manual's scattered words outscore a short card's one
//     matching statement. On MetaTool (plugin descriptions of 2 to
//     1,276 words: mean 52 terms, geometric mean 23) nDCG@10 goes from
//     0.5847 to 0.6063; on the Gorilla sets, whose lengths vary little
//     (Hugging Face descriptions 28 and 24), from 0.3010 to 0.2989 and
//     0.3476 to 0.3462, within 1.5 standard errors of the per-query
//     differences. An example's length is normalised against the
//     examples' geometric mean alike. Plain BM25 gains alike (MetaTool 0.5665 to 0.5866,
//     Gorilla unchanged), so the bench's baseline keeps the mean
//     (WithMeanPivot). The median pivots the same (0.2989 / 0.3459 /
//     0.6067); field weights from the geometric means instead of the
//     means, which measure a field's mass, 0.2985 / 0.3462 / 0.6054;
//     lengths counted in distinct terms (pivoted unique normalization)
//     0.2984 / 0.3430 / 0.5754. Example is plain BM25 over
//     each passage on its own, the best passage counting (discovery
//     profile §7.3): every example, and every tool (name, description,
//     schema text) of a card with two tools or more, so that one right
//     tool among many is found. Each is
//     normalized against the query itself: a BM25 contribution is
//     IDF(t) * tf/(k1+tf), so a sum is at most sum(idf) over the query
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
//   - availability: what the node observes, never what the card says:
//     1 when the agent is connected or was heard from (a call answered,
//     a greeting, a re-broadcast of its card) within the availability
//     window (10 min; the node sets two re-broadcast intervals), is not
//     inactive or suspended and runs fewer tasks than its
//     max_concurrent_tasks; each call failed in a row since the last
//     success takes 1/3 off, and the third makes it 0 (an open circuit).
//     Agents at or above their limit are excluded (ADP §5.3).
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
// # Text
//
// Documents and queries go through one analyzer (analyze.go): NFKC,
// lower case, words split on anything but letters, digits and marks,
// character bigrams in scripts written without spaces (Han, Kana,
// Hangul, Thai, ...), English stopwords dropped (in a query also the
// words that only greet or ask politely, "hey", "hello", "kindly",
// "thx": WithConversationalWords; a card keeps them, as an agent may be
// named after one; "hi" stays, as it is also the language code of
// Hindi), Snowball English stemming, then the derivational pairs
// Snowball keeps apart joined
// (WithDerivation): a request names a task with a verb ("classify
// photos", "recognize speech") and a card its capability with a noun
// ("image classification", "speech recognition", "object detector"). On
// the Gorilla TorchHub set this alone lifts nDCG@10 from 0.310 to 0.343
// (Hugging Face 0.295 to 0.298, MetaTool unchanged). Within one field of
// a card a sentence said again in the same words (case, spacing and
// punctuation aside) is counted once, so a card that repeats its pitch
// gains no term frequency by it and a card that repeats its description
// by accident is not longer for it: on MetaTool, whose converted cards
// often repeat their plugin description, nDCG@10 goes from 0.5817 to
// 0.5842 (Gorilla Hugging Face 0.3015 to 0.3010, TorchHub 0.3471 to
// 0.3476). The rule gives this model no edge over plain BM25, which it
// lifts alike (MetaTool 0.5665 to 0.5698), so the bench's baseline keeps
// counting every sentence (WithRepeatedSentences). Dropping the
// greetings from queries (1,219 of MetaTool's 21,111 requests have one,
// often "Hey" or "Hi", which otherwise finds HeyGen through the part of
// its name) takes MetaTool from 0.5842 to 0.5847; the Gorilla sets,
// with 6 such requests among 1,094, do not move. A query is analysed
// up to MaxQueryBytes; when it has more than MaxQueryTerms distinct
// terms it is scored on the most informative ones (SelectTerms: terms
// some document has, highest idf first) and the result says so in a
// warning.
//
// Measured with `adpnode bench discover --baseline` in one run, nDCG@10
// of this model against a plain BM25 over one bag of all card text with
// Snowball stemming: Gorilla Hugging Face 0.299 against 0.281, Gorilla
// TorchHub 0.346 against 0.329, MetaTool 0.606 against 0.567. With no
// interaction records, as in these sets, reputation, availability and
// rating are the same for every agent: the order is the relevance order,
// and the relevance floor is the only other thing that acts. It costs
// 0.007 on TorchHub: on 4 of its 186 queries the labelled agent, 7th to
// 10th without the floor, shares only "image" (once "image" and
// "object") with the query and is under 0.3 of the best relevance, and
// the floor leaves 2 to 8 results. It is also why TorchHub's Recall@50
// is 0.763 against 0.893 without the floor (0.866 for the baseline,
// which returns every agent sharing a term); on the other sets it moves
// nDCG@10 by less than 0.0005.
//
// # Filters
//
// Required and excluded tags (same matching rules), protocols (any of),
// MaxAge (time since indexing), expiry (expired records only with
// AllowStale), the load filter, and MinScore. A result must match at least
// one query tag or term unless the query has neither (a filter-only
// query), and its relevance (weighted tag and semantic factors) must be
// at least the relevance floor times the best relevance among the
// agents that pass the filters: reputation, availability and rating
// reorder relevant agents but cannot make an irrelevant one relevant.
// The floor is Query.RelevanceFloor when the query sets it, else the
// model's (WithRelevanceFloor, default 0.3) divided by the query's
// aspects, its tags and the clauses of its text (Model.RelevanceFloor;
// a clause ends at a comma, semicolon, line break or sentence end, so
// each sentence of a task described step by step is an aspect): an
// agent that answers one aspect of a multi-skill query as well as the
// best result answers the whole is not cut. Result.RelevanceFloor
// reports the floor applied.
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
// # Engines
//
// Model (NewModel) is the options resolved: the engines score with its
// methods (Prepare turns a Query into a Plan; PseudoTF, Saturate,
// ContextScore and the other factor functions do the arithmetic) so that
// both add up the same contributions in the same order (SortTerms).
// Naive is a full scan over a forward index with the same statistics,
// kept as a baseline and a test oracle.
//
// Lifecycle: NewNaive, then Upsert and Delete as cards arrive, change or
// are revoked; Search at any time. Model and Naive are safe for
// concurrent use and own no goroutines.
package scoring
