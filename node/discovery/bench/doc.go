// Package bench measures discovery ranking for `adpnode bench discover`.
//
// On files: [LoadCards] indexes a card file (one card JSON per line,
// unsigned cards allowed) through discovery.DocFromCard for the full
// ranker, [LoadBaseline] indexes it for the plain BM25 baseline (one
// stemmed bag of all card text, the text factor alone), [Corpus.Rank]
// ranks a queries file (JSON lines {"id", "request"}) through
// discovery.QueryFromRequest and writes a TREC run, and [Evaluate]
// scores the run against relevance judgements (nDCG@10, Recall@10,
// Recall@50).
//
// On a synthetic corpus: [NewSynthetic] generates a deterministic corpus,
// [Synthetic.Build] indexes it and measures upserts and memory,
// [Synthetic.MeasureIndex] measures discover latency per query family and
// [Synthetic.CompareNaive] measures a naive scan over the same corpus and
// how often its top 10 agrees with the index's.
//
// Results are returned as values; the caller prints them. Nothing here is
// safe for concurrent use: a benchmark runs on one goroutine, locked to
// its thread while it measures.
package bench
