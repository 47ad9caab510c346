package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/store"
)

type discoverReply struct {
	Results []struct {
		ID            string          `json:"id"`
		Name          string          `json:"name"`
		Score         float64         `json:"score"`
		MatchedTags   []string        `json:"matched_tags"`
		AgentCard     json.RawMessage `json:"agent_card"`
		OriginService string          `json:"origin_service"`
		ReceivedAt    string          `json:"received_at"`
	} `json:"results"`
}

func discoverAPI(t testing.TB, n *node.Node, scope, body string) discoverReply {
	t.Helper()
	code, out := api(t, n, "POST", "/v1/discover?scope="+scope, body)
	if code != 200 {
		t.Fatalf("discover %s: %d %s", body, code, out)
	}
	var r discoverReply
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r discoverReply) ids() []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, x.ID)
	}
	return out
}

func (r discoverReply) has(id string) bool {
	for _, x := range r.Results {
		if x.ID == id {
			return true
		}
	}
	return false
}

// TestThreeNodes: cards spread by gossip; discovery by tag and by text;
// describe, invoke (demo agent and an HTTP agent) and rate through the API.
func TestThreeNodes(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/translate":
			var in struct{ Text string }
			json.NewDecoder(r.Body).Decode(&in)
			fmt.Fprintf(w, `{"translated":%q}`, strings.ToUpper(in.Text))
		case "/stream":
			w.Header().Set("Content-Type", "application/x-ndjson")
			fmt.Fprint(w, "{\"part\":1}\n{\"part\":2}\n")
		default:
			http.Error(w, `{"code":"not_found","message":"no such tool"}`, 404)
		}
	}))
	defer agent.Close()

	boot := startNode(t, testNode{name: "Bootstrap", skills: []string{"infra/bootstrap"}})
	bootAddr := []string{addrOf(t, boot)}
	tr := startNode(t, testNode{
		name: "Polyglot translator", description: "Translates documents between French, German and English",
		skills:    []string{"nlp/translation"},
		tools:     []adp.Tool{{Name: "translate", Description: "Translate text"}, {Name: "stream", Description: "Streams parts"}},
		agentURL:  agent.URL,
		bootstrap: bootAddr,
	})
	demo := startNode(t, testNode{name: "Text toolbox", description: "Counts words and reverses strings", skills: []string{"text/analysis"},
		demo: true, bootstrap: bootAddr})
	nodes := []*node.Node{boot, tr, demo}

	waitAllCards(t, nodes)

	// Discovery by tag and by text, on a node that holds the cards (the
	// index follows the store through its change feed, so poll).
	firstIs(t, demo, `{"tags":["nlp/translation"]}`, tr.AgentID())
	firstIs(t, boot, `{"query":"translate a German document"}`, tr.AgentID())
	firstIs(t, boot, `{"query":"count the words of my essay"}`, demo.AgentID())

	// Describe through the API: the full signed card, or some fields.
	code, body := api(t, boot, "POST", "/v1/describe", fmt.Sprintf(`{"agent":%q}`, tr.AgentID()))
	if c, err := adp.DecodeVerified([]byte(body)); code != 200 || err != nil || c.ID != tr.AgentID() {
		t.Fatalf("describe: %d %v %s", code, err, body)
	}
	code, body = api(t, boot, "POST", "/v1/describe", fmt.Sprintf(`{"agent":%q,"fields":["skills"]}`, tr.AgentID()))
	if code != 200 || !strings.Contains(body, "nlp/translation") || strings.Contains(body, "signature") {
		t.Fatalf("describe fields: %d %s", code, body)
	}

	// Invoke: the demo agent in-process, the HTTP agent by forwarding.
	code, body = api(t, boot, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"wordcount","body":{"text":"a b c"}}`, demo.AgentID()))
	if code != 200 || !strings.Contains(body, `"words":3`) {
		t.Fatalf("invoke wordcount: %d %s", code, body)
	}
	code, body = api(t, boot, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"translate","body":{"text":"bonjour"}}`, tr.AgentID()))
	if code != 200 || !strings.Contains(body, `"translated":"BONJOUR"`) {
		t.Fatalf("invoke translate: %d %s", code, body)
	}
	code, body = api(t, boot, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"stream","stream":true}`, tr.AgentID()))
	if code != 200 || body != "{\"part\":1}\n{\"part\":2}\n" {
		t.Fatalf("invoke stream: %d %q", code, body)
	}
	code, body = api(t, boot, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"reverse","stream":true,"body":{"text":"ab cd"}}`, demo.AgentID()))
	if code != 200 || body != "{\"text\":\"dc\"}\n{\"text\":\"ba\"}\n" {
		t.Fatalf("invoke demo stream: %d %q", code, body)
	}
	// A tool that is not on the card: NOT_FOUND, as 404 with the error model.
	code, body = api(t, boot, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"echo"}`, tr.AgentID()))
	if e := decodeError(t, body); code != 404 || e.Code != "not_found" {
		t.Fatalf("tool not on card: %d %+v", code, e)
	}
	// A tool on the card with no agent behind it: NOT_FOUND too.
	if err := boot.UpdateCard(context.Background(), func(c *adp.Card) { c.Tools = []adp.Tool{{Name: "ghost"}} }); err != nil {
		t.Fatal(err)
	}
	code, body = api(t, tr, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"ghost"}`, boot.AgentID()))
	if e := decodeError(t, body); code != 404 || !strings.Contains(e.Message, "no agent serves") {
		t.Fatalf("tool without an agent: %d %+v", code, e)
	}
	// A bad request to the demo agent keeps its JSON path.
	code, body = api(t, boot, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"wordcount","body":{}}`, demo.AgentID()))
	if e := decodeError(t, body); code != 400 || e.Path != "/text" {
		t.Fatalf("invalid tool input: %d %+v", code, e)
	}

	// Interaction records: the successful calls count, ratings are kept.
	polltest.For(t, 10*time.Second, "the calls in the interaction records", func() bool {
		st, err := boot.Stats(context.Background(), demo.AgentID())
		return err == nil && st.Calls >= 2 && st.Successes >= 2
	})
	code, body = api(t, boot, "POST", "/v1/ratings", fmt.Sprintf(`{"agent":%q,"stars":5}`, demo.AgentID()))
	if code != 200 || !strings.Contains(body, `"rating_count":1`) {
		t.Fatalf("rate: %d %s", code, body)
	}
	code, body = api(t, boot, "POST", "/v1/ratings", fmt.Sprintf(`{"agent":%q,"stars":6}`, demo.AgentID()))
	if e := decodeError(t, body); code != 400 || e.Path != "/stars" {
		t.Fatalf("rate 6: %d %+v", code, e)
	}

	// Metrics: calls by method and status, served tool calls, gossip.
	_, metrics := api(t, boot, "GET", "/metrics", "")
	for _, want := range []string{`adpnode_calls_total{method="wordcount",status="OK"}`, `adpnode_calls_total{method="other",status="NOT_FOUND"}`, `adpnode_peers 2`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("boot's metrics lack %s", want)
		}
	}
	_, metrics = api(t, demo, "GET", "/metrics", "")
	if !strings.Contains(metrics, `adpnode_tool_calls_served_total{method="wordcount",status="OK"}`) {
		t.Errorf("demo's metrics lack its served calls")
	}

	// A card update reaches the others.
	if err := demo.UpdateCard(context.Background(), func(c *adp.Card) { c.Skills = append(c.Skills, "text/reversal") }); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 20*time.Second, "the updated card everywhere", func() bool {
		for _, n := range []*node.Node{boot, tr} {
			rec, err := n.LookupCard(context.Background(), demo.AgentID())
			if err != nil || len(rec.Card.Skills) != 2 {
				return false
			}
		}
		return true
	})
	polltest.For(t, 10*time.Second, "the updated card in the index", func() bool {
		return discoverAPI(t, tr, "local", `{"tags":["text/reversal"]}`).has(demo.AgentID())
	})
}

// waitAllCards waits until every node holds every node's card, and names
// the missing ones when it times out.
func waitAllCards(t *testing.T, nodes []*node.Node) {
	t.Helper()
	polltest.Until(t, 20*time.Second, func() error {
		var missing []string
		for i, n := range nodes {
			held := map[string]bool{}
			recs, _ := n.Cards(context.Background())
			for _, r := range recs {
				held[r.Card.ID] = true
			}
			for j, m := range nodes {
				if !held[m.AgentID()] {
					missing = append(missing, fmt.Sprintf("node %d lacks card %d", i, j))
				}
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("cards missing: %v", missing)
		}
		return nil
	})
}

// firstIs polls a local discovery on n until want ranks first.
func firstIs(t *testing.T, n *node.Node, body, want string) {
	t.Helper()
	polltest.Until(t, 10*time.Second, func() error {
		last := discoverAPI(t, n, "local", body)
		if len(last.Results) > 0 && last.Results[0].ID == want {
			return nil
		}
		return fmt.Errorf("discover %s: %v, want %s first", body, last.ids(), want)
	})
}

// TestInvokeByCardAddresses: the card carries the node's listen addresses,
// so a node can call an agent whose addresses it has forgotten (or never
// had, when the card came from a directory).
func TestInvokeByCardAddresses(t *testing.T) {
	a := startNode(t, testNode{name: "a", demo: true})
	b := startNode(t, testNode{name: "b", bootstrap: []string{addrOf(t, a)}})
	var eps []string
	for _, e := range a.Card().Endpoints {
		if e.Protocol == node.EndpointLibp2p {
			eps = append(eps, e.URI)
		}
	}
	if len(eps) == 0 || eps[0] != addrOf(t, a) {
		t.Fatalf("card endpoints %v, want the listen addresses %v", eps, a.Addrs())
	}
	// Forget a: no connection, no addresses. (A fresh association: the
	// first call goes out on a new stream.)
	forgetPeer(t, a, b)
	if _, err := b.Invoke(context.Background(), a.AgentID(), demoagent.Echo, []byte(`{"x":1}`)); err != nil {
		t.Fatalf("invoke after forgetting the addresses: %v", err)
	}
}

// TestGossipRebroadcastRefreshesFreshness: an owner's re-broadcast of an
// unchanged card renews the receivers' copy (received time and expiry),
// so a card whose owner keeps announcing it never goes stale.
func TestGossipRebroadcastRefreshesFreshness(t *testing.T) {
	a := startNode(t, testNode{name: "announcer", gossipInterval: 200 * time.Millisecond})
	b := startNode(t, testNode{name: "listener", bootstrap: []string{addrOf(t, a)}})
	ctx := context.Background()
	held := func() *store.Record {
		rec, err := b.LookupCard(ctx, a.AgentID())
		if err != nil {
			return nil
		}
		return rec
	}
	polltest.For(t, 20*time.Second, "b to hold a's card", func() bool { return held() != nil })
	first := held()
	polltest.For(t, 20*time.Second, "a re-broadcast to renew b's copy", func() bool {
		rec := held()
		return rec != nil && rec.ExpiresAt.After(first.ExpiresAt) && rec.ReceivedAt.After(first.ReceivedAt)
	})
	if rec := held(); rec.Source != first.Source || rec.Origin != first.Origin || *rec.Card.Seq != *first.Card.Seq {
		t.Fatalf("refresh changed the record: %+v, was %+v", rec, first)
	}
}
