package node

import (
	"strconv"
	"testing"

	"github.com/adpnode/adpnode/aitp"
)

func TestMethodLabels(t *testing.T) {
	var l methodLabels
	if got := l.label("made-up", false); got != aitp.OtherLabel {
		t.Fatalf("unknown method labelled %q", got)
	}
	for i := range maxMethodLabels {
		m := "tool-" + strconv.Itoa(i)
		if got := l.label(m, true); got != m {
			t.Fatalf("known method %d labelled %q", i, got)
		}
	}
	if got := l.label("one-too-many", true); got != aitp.OtherLabel {
		t.Fatalf("method past the bound labelled %q", got)
	}
	if got := l.label("tool-0", true); got != "tool-0" {
		t.Fatalf("method labelled before the bound now %q", got)
	}
}
