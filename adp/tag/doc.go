// Package tag is the one definition of an ADP skill tag (ADP §3.6): its
// syntax, its canonical form, its parent paths and the taxonomy of
// standard tags and aliases. Card validation (adp), the provider keys of
// the DHT (dht) and the tag factor of ranking (scoring, through node) all
// use it, so a tag announced under one spelling is found and ranked
// under every spelling that normalizes alike.
//
// The pieces, from the wire inwards:
//
//   - [Check] is the syntax a card's skills and example tags must follow:
//     segments of letters, digits and "-", "_", ".", "+", "#" separated by
//     [Separator], at most [MaxLen] octets.
//   - [Clean] tidies any spelling, valid or not (queries are lenient):
//     lower case, spaces and underscores as hyphens, runs of separators
//     collapsed and trimmed. "Text_Analysis" cleans to "text-analysis".
//   - [Taxonomy.Normalize] cleans, follows the alias table and expands a
//     unique standard leaf to its full path: "py" and "Python" give
//     "coding/python". The result is the canonical form.
//   - [Paths] lists a canonical tag and each of its parents, most specific
//     first; [Covers] says whether a query tag is matched by an agent tag
//     (the same tag, or one below it).
//
// A [Taxonomy] is built once ([Default] or [New]) and is immutable and
// safe for concurrent use; every node of a network must use the same one,
// because the DHT announces and looks up tags under their canonical form.
// The package imports only the standard library.
package tag
