package bridge

import (
	"fmt"
	"strings"

	"github.com/adpnode/adpnode/adp"
)

// ParseFormat returns the Format named by s (case-insensitive).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range Formats {
		if f == k {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w %q: want one of %s", ErrUnknownFormat, s, formatList())
}

func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Decode reads a document of format f into an ADP card. An ADP card is
// parsed with adp.ParseCard (its signature, if any, is kept but not
// checked); the other formats go through their From function.
func Decode(f Format, data []byte) (*adp.Card, error) {
	switch f {
	case FormatADP:
		if len(data) > MaxDocSize {
			return nil, fmt.Errorf("%w (got %d)", ErrTooLarge, len(data))
		}
		return adp.ParseCard(data)
	case FormatA2A:
		return FromA2A(data)
	case FormatMCP:
		return FromMCP(data)
	case FormatOASF:
		return FromOASF(data)
	case FormatAgentCard:
		return FromAgentCard(data)
	case FormatProfile:
		return FromProfile(data)
	case FormatOASFRecord:
		return FromOASFRecord(data)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownFormat, f)
}

// Encode writes a card in format f: the card's own encoding for FormatADP,
// else the format's To function.
func Encode(f Format, c *adp.Card) ([]byte, error) {
	switch f {
	case FormatADP:
		return c.MarshalJSON()
	case FormatA2A:
		return ToA2A(c)
	case FormatMCP:
		return ToMCP(c)
	case FormatOASF:
		return ToOASF(c)
	case FormatAgentCard:
		return ToAgentCard(c)
	case FormatProfile:
		return ToProfile(c)
	case FormatOASFRecord:
		return ToOASFRecord(c)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownFormat, f)
}

// Convert translates a document from one format to another through an ADP
// card: Encode(to, Decode(from, doc)). Converting from and to the same
// foreign format goes through ADP too, and so normalizes the document
// (members sorted, defaults written). The output is compact JSON.
func Convert(from, to Format, doc []byte) ([]byte, error) {
	c, err := Decode(from, doc)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", from, err)
	}
	out, err := Encode(to, c)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", to, err)
	}
	return out, nil
}
