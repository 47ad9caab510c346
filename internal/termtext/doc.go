// Package termtext keeps text that came from the network from acting on a
// terminal. Agent cards, discovery answers and error messages reach people
// through the command line; a control character in them could recolour
// or retitle the terminal, move the cursor or forge a table row, and a
// bidirectional override or an invisible format character could make one
// string look like another.
//
// The package has two halves, one classification behind both:
//
//   - Rule (Token, Line, Text) says which characters a field may hold. The
//     card validator (adp) refuses a card whose fields break their rule.
//   - Escape and EscapeJSON make whatever is left safe to print: text a
//     node already holds may predate the rule, and text from other sources
//     (error messages, discovery warnings) is never validated.
//
// The characters refused or escaped:
//
//   - control characters: C0 (U+0000 to U+001F), DEL (U+007F) and C1
//     (U+0080 to U+009F); Text allows newline and tab;
//   - format characters, Unicode category Cf: among them the bidirectional
//     embeddings and overrides (U+202A to U+202E) and isolates (U+2066 to
//     U+2069), the marks U+200E, U+200F and U+061C, the zero-width space
//     U+200B, the invisible operators U+2060 to U+2064, the byte order
//     mark U+FEFF, the soft hyphen U+00AD and the tag characters
//     (U+E0001, U+E0020 to U+E007F);
//   - the line and paragraph separators U+2028 and U+2029 (categories Zl
//     and Zp), which break lines as a newline does;
//   - bytes that are not UTF-8.
//
// The zero-width non-joiner and joiner (U+200C, U+200D) are format
// characters that Persian, the Indic scripts and emoji sequences need to
// be written correctly; they neither reorder nor hide text, so Line and
// Text allow them and Escape leaves them. Token, the rule of identifiers
// (ids, tool names, endpoint fields), refuses them too.
//
// The functions are pure and safe for concurrent use.
package termtext
