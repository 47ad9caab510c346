package node_test

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
)

// errorModel is the discovery profile's error model.
type errorModel struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path"`
}

func decodeError(t *testing.T, body string) errorModel {
	t.Helper()
	var e errorModel
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("not the error model: %q (%v)", body, err)
	}
	return e
}

func TestAPI(t *testing.T) {
	n := startNode(t, testNode{name: "API test", skills: []string{"test/api"}, demo: true})

	t.Run("status", func(t *testing.T) {
		code, body := api(t, n, "GET", "/v1/status", "")
		if code != 200 {
			t.Fatalf("status %d %s", code, body)
		}
		var st node.Status
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatal(err)
		}
		if st.AgentID != n.AgentID() || st.PeerID != n.PeerID().String() || st.Name != "API test" || st.Cards != 1 || len(st.Addrs) == 0 {
			t.Fatalf("status %+v", st)
		}
		if !strings.HasSuffix(st.Addrs[0], "/p2p/"+st.PeerID) {
			t.Fatalf("address %s does not end in /p2p/<peer id>", st.Addrs[0])
		}
	})

	t.Run("card get and put", func(t *testing.T) {
		code, body := api(t, n, "GET", "/v1/card", "")
		if code != 200 {
			t.Fatalf("GET card %d", code)
		}
		c, err := adp.DecodeVerified([]byte(body))
		if err != nil || c.ID != n.AgentID() {
			t.Fatalf("GET card: %v", err)
		}
		c.Description = "now with a new description"
		c.Signature = ""
		raw, _ := json.Marshal(c)
		code, body = api(t, n, "PUT", "/v1/card", string(raw))
		if code != 200 {
			t.Fatalf("PUT card %d %s", code, body)
		}
		put, err := adp.DecodeVerified([]byte(body))
		if err != nil || put.Description != c.Description || *put.Seq != *c.Seq+1 {
			t.Fatalf("PUT reply: %v, seq %v", err, put.Seq)
		}
		if n.Card().Description != c.Description {
			t.Fatal("node card not updated")
		}
		// What the node runs stays on the card: a PUT without the demo tools
		// and addresses gets them back.
		code, body = api(t, n, "PUT", "/v1/card", `{"name":"API test","skills":["test/api"]}`)
		if code != 200 {
			t.Fatalf("PUT minimal card: %d %s", code, body)
		}
		if got := n.Card(); got.Description != "" || len(got.Tools) != len(demoagent.Tools()) || len(got.Endpoints) == 0 {
			t.Fatalf("after PUT: name %q, %d tools, endpoints %v", got.Name, len(got.Tools), got.Endpoints)
		}
		// Validation problems come back with their JSON path.
		code, body = api(t, n, "PUT", "/v1/card", `{"name":"x","skills":["Not A Tag!"]}`)
		if e := decodeError(t, body); code != 400 || e.Code != "invalid_request" || e.Path != "/skills/0" {
			t.Fatalf("invalid card: %d %+v", code, e)
		}
		// Another agent's id is a conflict.
		code, body = api(t, n, "PUT", "/v1/card", `{"id":"agent://12D3KooWGRUVh2uyk6KRrG6ZqYqY4ExvEmAtS2oFgDo4jwx6GCB5","name":"x"}`)
		if e := decodeError(t, body); code != 409 || e.Path != "/id" {
			t.Fatalf("foreign id: %d %+v", code, e)
		}
	})

	t.Run("cards", func(t *testing.T) {
		code, body := api(t, n, "GET", "/v1/cards", "")
		var out struct {
			Count int `json:"count"`
			Cards []struct {
				ID     string `json:"id"`
				Source string `json:"source"`
			} `json:"cards"`
		}
		if err := json.Unmarshal([]byte(body), &out); err != nil || code != 200 || out.Count != 1 || out.Cards[0].ID != n.AgentID() || out.Cards[0].Source != "self" {
			t.Fatalf("cards %d %s", code, body)
		}
		if code, _ := api(t, n, "GET", "/v1/cards?offset=1", ""); code != 200 {
			t.Fatalf("offset: %d", code)
		}
		if code, body := api(t, n, "GET", "/v1/cards?limit=0", ""); code != 400 {
			t.Fatalf("limit 0: %d %s", code, body)
		}
		code, _ = api(t, n, "GET", "/v1/cards/"+n.AgentID(), "")
		if code != 200 {
			t.Fatalf("own card by id: %d", code)
		}
		code, body = api(t, n, "GET", "/v1/cards/agent://nonsense", "")
		if e := decodeError(t, body); code != 400 || e.Code != "invalid_request" {
			t.Fatalf("bad id: %d %+v", code, e)
		}
	})

	t.Run("empty discover body", func(t *testing.T) {
		req, _ := http.NewRequest("POST", n.APIURL()+"/v1/discover", nil)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("empty discover: %d", resp.StatusCode)
		}
	})

	t.Run("well-known and metrics", func(t *testing.T) {
		code, body := api(t, n, "GET", "/.well-known/adp-card.json", "")
		if _, err := adp.DecodeVerified([]byte(body)); code != 200 || err != nil {
			t.Fatalf("adp-card.json: %d %v", code, err)
		}
		for path, want := range map[string]string{
			"/.well-known/agent-card.json":    `"name":"API test"`,
			"/.well-known/agentcard":          `"name":"API test"`,
			"/.well-known/agent.json":         n.AgentID(),
			"/.well-known/agent-descriptions": `"CollectionPage"`,
		} {
			code, body := api(t, n, "GET", path, "")
			if code != 200 || !strings.Contains(body, want) {
				t.Errorf("%s: %d, want %s in %s", path, code, want, body)
			}
		}
		resp, err := http.Get(n.APIURL() + "/.well-known/agentcard")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/agentcard+json" || params["charset"] != "utf-8" {
			t.Errorf("agentcard Content-Type %q", resp.Header.Get("Content-Type"))
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=3600" {
			t.Errorf("agentcard Cache-Control %q, want the draft's max-age=3600", cc)
		}
		req, _ := http.NewRequest("GET", n.APIURL()+"/.well-known/agent-card.json", nil)
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		if resp, err = http.DefaultClient.Do(req); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("ETag") == "" || resp.Header.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("A2A card with another document's ETag: %d, ETag %q, Cache-Control %q", resp.StatusCode, resp.Header.Get("ETag"), resp.Header.Get("Cache-Control"))
		}
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		if resp, err = http.DefaultClient.Do(req); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("A2A card with its own ETag: %d, want 304", resp.StatusCode)
		}
		code, body = api(t, n, "GET", "/.well-known/agent-descriptions?page=0", "")
		if code != 400 {
			t.Errorf("page 0: %d %s", code, body)
		}
		var coll struct {
			Items []struct {
				ID string `json:"@id"`
			} `json:"items"`
		}
		_, body = api(t, n, "GET", "/.well-known/agent-descriptions", "")
		if err := json.Unmarshal([]byte(body), &coll); err != nil || len(coll.Items) != 1 {
			t.Fatalf("collection: %v %s", err, body)
		}
		path := strings.TrimPrefix(coll.Items[0].ID, n.APIURL())
		if code, body = api(t, n, "GET", path, ""); code != 200 || !strings.Contains(body, "ad:AgentDescription") {
			t.Errorf("ANP description %s: %d %s", path, code, body)
		}
		code, body = api(t, n, "GET", "/metrics", "")
		for _, m := range []string{"adpnode_peers", "adpnode_cards 1", "adpnode_discover_seconds", "go_goroutines"} {
			if !strings.Contains(body, m) {
				t.Errorf("metrics lack %q", m)
			}
		}
		if code != 200 {
			t.Fatalf("metrics: %d", code)
		}
	})
}

// TestAPICardByIDForms: GET /v1/cards/{id} answers every form of an agent
// id at once, without the redirect of the router's path cleaning.
func TestAPICardByIDForms(t *testing.T) {
	n := startNode(t, testNode{name: "forms"})
	id := n.AgentID()
	bare := strings.TrimPrefix(id, "agent://")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range []struct {
		name, path string
		code       int
	}{
		{"agent uri", id, 200},
		{"path-escaped", url.PathEscape(id), 200},
		{"query-escaped", url.QueryEscape(id), 200},
		{"folded slashes", "agent:/" + bare, 200},
		{"bare base36", bare, 200},
		{"base58 peer id", n.PeerID().String(), 200},
		{"bad escape", "agent%zz", 400},
		{"not an id", "agent://nonsense", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", n.APIURL()+"/v1/cards/x", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.RawPath, req.URL.Path = "", "" // send the path exactly as written
			req.URL.Opaque = "//" + req.URL.Host + "/v1/cards/" + tt.path
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.code {
				t.Fatalf("GET /v1/cards/%s: %d %s", tt.path, resp.StatusCode, body)
			}
			if tt.code != 200 {
				return
			}
			var rec struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(body, &rec); err != nil || rec.ID != id {
				t.Fatalf("GET /v1/cards/%s: id %q, want %q (%v): %s", tt.path, rec.ID, id, err, body)
			}
		})
	}
	resp, err := client.Post(n.APIURL()+"/v1/cards/"+id, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
		t.Fatalf("POST /v1/cards/{id}: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}
