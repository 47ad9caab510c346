package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/internal/cardtest"
)

// TestDirectoryPages: a directory holding 151 cards (its own and 150
// imported) lists each exactly once across the pages of GET /v1/cards and
// of the ANP collection, which puts the own card first, links each page
// to the next and has no link after the last.
func TestDirectoryPages(t *testing.T) {
	dir := startNode(t, testNode{name: "Directory", directory: true})
	ctx := context.Background()
	const imported = 150
	want := []string{dir.AgentID()}
	for i := range imported {
		c := cardtest.Signed(t, cardtest.Key(t, byte(i+1)), 1, fmt.Sprintf("agent %d", i), "test/pages")
		if stored, err := dir.ImportCard(ctx, c); err != nil || !stored {
			t.Fatalf("import %d: stored %v, %v", i, stored, err)
		}
		want = append(want, c.ID)
	}
	slices.Sort(want)

	// GET /v1/cards in pages of 40, then at the end and far past it.
	var listed []string
	offsets := []int{}
	for offset := 0; offset < len(want); offset += 40 {
		offsets = append(offsets, offset)
	}
	for _, offset := range append(offsets, len(want), 100_000) {
		code, body := api(t, dir, "GET", fmt.Sprintf("/v1/cards?offset=%d&limit=40", offset), "")
		var page struct {
			Count int `json:"count"`
			Cards []struct {
				ID string `json:"id"`
			} `json:"cards"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil || code != 200 {
			t.Fatalf("offset %d: %d %v %s", offset, code, err, body)
		}
		if n := max(0, min(40, len(want)-offset)); page.Count != len(want) || len(page.Cards) != n {
			t.Fatalf("offset %d: count %d with %d cards, want %d with %d", offset, page.Count, len(page.Cards), len(want), n)
		}
		for _, c := range page.Cards {
			listed = append(listed, c.ID)
		}
	}
	if !slices.Equal(listed, want) {
		t.Fatalf("the pages of /v1/cards list %d ids, not the %d held in id order", len(listed), len(want))
	}

	// The ANP collection: 100 a page, the own card first.
	var described []string
	for page := 1; page <= 3; page++ {
		code, body := api(t, dir, "GET", fmt.Sprintf("/.well-known/agent-descriptions?page=%d", page), "")
		var coll struct {
			Next  string `json:"next"`
			Items []struct {
				ID string `json:"@id"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(body), &coll); err != nil || code != 200 {
			t.Fatalf("page %d: %d %v %s", page, code, err, body)
		}
		wantItems, wantNext := []int{100, 51, 0}[page-1], page == 1
		if len(coll.Items) != wantItems || (coll.Next != "") != wantNext {
			t.Fatalf("page %d: %d items, next %q; want %d items, a next link %v", page, len(coll.Items), coll.Next, wantItems, wantNext)
		}
		if wantNext && !strings.HasSuffix(coll.Next, fmt.Sprintf("?page=%d", page+1)) {
			t.Fatalf("page %d links to %q", page, coll.Next)
		}
		for _, it := range coll.Items {
			// .../agents/<key>/ad.json
			parts := strings.Split(it.ID, "/")
			described = append(described, "agent://"+parts[len(parts)-2])
		}
	}
	if len(described) == 0 || described[0] != dir.AgentID() {
		t.Fatalf("the collection does not start with the own card: %v", described[:min(1, len(described))])
	}
	rest := slices.Clone(described[1:])
	if !slices.IsSorted(rest) {
		t.Fatal("the held cards are not listed in id order")
	}
	slices.Sort(described)
	if !slices.Equal(described, want) {
		t.Fatalf("the collection lists %d ids, not the %d held", len(described), len(want))
	}
}
