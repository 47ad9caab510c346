// Package index is the retrieval engine of the scoring model: an
// in-memory inverted index that answers scoring.Query values with the
// hits scoring.Naive would return, without scanning every document. What
// a factor is and how it is weighed is the business of package scoring;
// this package decides only which documents to score and when to stop.
//
// Index keeps postings per text term (documents and examples) and per
// canonical tag including parent paths, as compact parallel uint32/uint16
// slices in document order (an example posting carries its document
// number too, so that a scan never reads the per-example arrays at a far
// example number), each term with a bound of what it can add
// to any document (its largest term frequency and shortest field per
// field) and, for long postings, the same bound per block of documents
// (blocks.go). Search is a searcher (search.go) with one method per
// phase, each saying what its bound guarantees:
//
//   - resolveFilters, matchTags: the hard filters as numbers; tag matches
//     counted, so their tag factor is exact.
//   - planTerms: query terms rarest first with their bounds.
//   - seedTheta (pretheta.go, seed.go): a first lower bound of the k-th
//     best score from documents completed before any term is read: some
//     tag matches and documents sharing the rarest terms and, unless
//     those already keep every document not held out, every agent with
//     signals that a tag or term reaches (completeSignals reads the
//     postings for them alone; they are few and usually the best), which
//     the terms then skip; releaseSignals lets go of those whose exact
//     score is below it.
//   - releaseTags: tag matches that cannot reach it are let go.
//   - scoreTerms, with tighten, scanTerm and lookupTerm: terms read one at
//     a time; once the remaining terms cannot lift a document they alone
//     reach to the relevance floor or to the k-th best score, no new
//     document is admitted (max-score, per block: block-max) and a term
//     much longer than the held set is read by looking the held documents
//     up (lookup.go). Once it admits only agents with signals or none,
//     releaseHeld lets go of the held documents that cannot reach the k-th
//     score whatever the unread terms add in their block, so the later
//     terms and bucket see only the documents that still can.
//   - bucket, complete, finish: candidates bucketed by an upper bound of
//     their score and scored exactly from the best bucket down, stopping
//     when no remaining candidate can reach the k-th score.
//
// Lifecycle: New, then Upsert and Delete as cards arrive, change or are
// revoked; Expire drops records past their expiry; SetSignals pushes an
// agent's signals, which lets the index bound the score of every agent
// without signals exactly; Search at any time. An Index is safe for
// concurrent use and owns no goroutines.
package index
