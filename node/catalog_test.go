package node_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/apitest"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/webreg"
)

// TestWebCatalog: a directory registers an A2A card from a URL, its AI
// Catalog search (local API and public server) finds it with provenance
// web beside the adpnode cards it holds, and the web card never enters
// the card store of the directory or of a peer that syncs from it.
func TestWebCatalog(t *testing.T) {
	c := cardtest.Card(t, 9, `{"id": "ID", "name": "Fjord Flights", "description": "Books flights to Norway.",
	  "skills": ["travel/booking"], "tools": [{"name": "book_flight"}], "endpoints": [{"protocol": "https", "uri": "https://fjord.example/a2a"}]}`)
	a2a, err := bridge.ToA2A(c)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := bridge.SignA2A(a2a, cardtest.Key(t, 9))
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(signed)
	}))
	defer web.Close()

	dir := startNode(t, testNode{name: "Directory", directory: true, publicHTTP: true, a2aAllowPrivate: true})
	peerNode := startNode(t, testNode{name: "traveller", skills: []string{"travel/planning"}, bootstrap: []string{addrOf(t, dir)}})

	status, body := api(t, dir, http.MethodPost, webreg.RegisterPath, `{"url":"`+web.URL+`/card.json"}`)
	var reg webreg.Registration
	if err := json.Unmarshal([]byte(body), &reg); status != http.StatusCreated || err != nil || !reg.Signed || reg.Provenance != "web" {
		t.Fatalf("register: %d %s", status, body)
	}
	if status, body := api(t, dir, http.MethodPost, webreg.RegisterPath, `{"url":"http://169.254.169.254/latest"}`); status != http.StatusBadRequest || !strings.Contains(body, "link-local") {
		t.Errorf("metadata address: %d %s", status, body)
	}

	// Wait until the peer's card reached the directory: the network works.
	polltest.For(t, 20*time.Second, "the directory holds the peer's card", func() bool { return dir.CardCount() >= 2 })

	search := func(base string) aicatalog.SearchResponse {
		t.Helper()
		status, body := apitest.Do(t, base, http.MethodPost, aicatalog.SearchPath, `{"query":{"text":"book a flight to Norway travel"},"pageSize":20}`)
		var resp aicatalog.SearchResponse
		if err := json.Unmarshal([]byte(body), &resp); status != http.StatusOK || err != nil {
			t.Fatalf("search at %s: %d %s", base, status, body)
		}
		return resp
	}
	for _, base := range []string{dir.APIURL(), dir.PublicURL()} {
		resp := search(base)
		var sawWeb bool
		for _, r := range resp.Results {
			meta := r.Metadata["adpnode"].(map[string]any)
			switch meta["provenance"] {
			case "web":
				sawWeb = true
				if r.URL != web.URL+"/card.json" || r.Source != r.URL || meta["signed"] != false || r.Score < 0 || r.Score > 100 {
					t.Errorf("%s: web result %+v", base, r)
				}
			default:
				if meta["signed"] != true || !strings.HasPrefix(r.Source, aicatalog.SourcePrefix) || r.Type != aicatalog.MediaADPCard {
					t.Errorf("%s: adpnode result %+v", base, r)
				}
			}
		}
		if !sawWeb {
			t.Errorf("%s: the web card is not found: %+v", base, resp.Results)
		}
	}
	// A node that is not a directory answers the search on its API, from
	// its own cards, and takes no registrations.
	for _, r := range search(peerNode.APIURL()).Results {
		if r.Metadata["adpnode"].(map[string]any)["provenance"] == "web" {
			t.Errorf("a plain node found a web card: %+v", r)
		}
	}
	if status, _ := api(t, peerNode, http.MethodPost, webreg.RegisterPath, `{"url":"`+web.URL+`"}`); status == http.StatusCreated {
		t.Errorf("a plain node took a web registration")
	}
	if status, body := apitest.Do(t, dir.PublicURL(), http.MethodGet, aicatalog.WellKnownPath, ""); status != http.StatusOK || !strings.Contains(body, aicatalog.MediaRegistry) {
		t.Errorf("public manifest: %d %s", status, body)
	}
	if status, _ := apitest.Do(t, dir.PublicURL(), http.MethodPost, webreg.RegisterPath, `{"url":"`+web.URL+`"}`); status != http.StatusMethodNotAllowed {
		t.Errorf("registration on the public server: %d, want 405", status)
	}

	// The web card's agent id is the JWS key's; neither node holds a card
	// of it (it would have had to pass the intake, gossip or the DHT).
	pid, err := peer.IDFromPrivateKey(cardtest.Key(t, 9))
	if err != nil {
		t.Fatal(err)
	}
	id := adp.AgentID(pid)
	if reg.KeyID != id {
		t.Errorf("key id %q, want %q", reg.KeyID, id)
	}
	polltest.For(t, 20*time.Second, "the peer holds the directory's card", func() bool { return peerNode.CardCount() >= 2 })
	for _, n := range []interface {
		CardCount() int
		APIURL() string
	}{dir, peerNode} {
		if status, body := apitest.Do(t, n.APIURL(), http.MethodGet, "/v1/cards", ""); status != http.StatusOK || strings.Contains(body, "Fjord") || strings.Contains(body, id) {
			t.Errorf("%s holds the web card: %d %s", n.APIURL(), status, body)
		}
	}
}
