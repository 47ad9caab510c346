package netview_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/arrivals"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/netview"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// fake is a node as the view sees it: a status, peers and arrivals.
type fake struct {
	httpapi.Service // not called
	st              nodeapi.Status
	peers           []nodeapi.PeerInfo
	arr             []nodeapi.Arrival
}

func (f *fake) Status() nodeapi.Status        { return f.st }
func (f *fake) PeerInfos() []nodeapi.PeerInfo { return f.peers }
func (f *fake) Arrivals(agents ...string) []nodeapi.Arrival {
	var out []nodeapi.Arrival
	for _, a := range f.arr {
		for _, id := range agents {
			if a.Agent == id {
				out = append(out, a)
			}
		}
	}
	return out
}

// ids returns the peer id and agent id of test key b.
func ids(t *testing.T, b byte) (string, string) {
	p, err := peer.IDFromPrivateKey(cardtest.Key(t, b))
	if err != nil {
		t.Fatal(err)
	}
	return p.String(), adp.AgentID(p)
}

func newFake(t *testing.T, b byte, name string, seq uint64) *fake {
	p, a := ids(t, b)
	return &fake{st: nodeapi.Status{AgentID: a, PeerID: p, Name: name, Seq: seq}}
}

func (f *fake) connect(others ...*fake) {
	for _, o := range others {
		f.peers = append(f.peers, nodeapi.PeerInfo{PeerID: o.st.PeerID, AgentID: o.st.AgentID, Conns: []string{nodeapi.ConnDirect}})
	}
}

// serve serves f's API on loopback and returns its base URL.
func serve(t *testing.T, f *fake) string {
	srv := httptest.NewServer(httpapi.NewHandler(f))
	t.Cleanup(srv.Close)
	f.st.APIURL = srv.URL
	return srv.URL
}

func TestTestnetView(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	self, b, c := newFake(t, 1, "self", 1), newFake(t, 2, "b", 2), newFake(t, 3, "c", 1)
	outsider := newFake(t, 4, "outsider", 1)
	self.connect(b)
	b.connect(self, c)
	c.connect(b, outsider)
	// b published seq 2 at t0; self heard it 50 ms later, c 120 ms later.
	b.arr = []nodeapi.Arrival{{Agent: b.st.AgentID, Seq: 2, At: at(0), Source: arrivals.SourceSelf}}
	self.arr = []nodeapi.Arrival{{Agent: b.st.AgentID, Seq: 2, At: at(50), Source: "gossip"},
		{Agent: self.st.AgentID, Seq: 1, At: at(-1000), Source: arrivals.SourceSelf}}
	c.arr = []nodeapi.Arrival{{Agent: b.st.AgentID, Seq: 2, At: at(120), Source: "dht"}}

	liar := newFake(t, 5, "liar", 1)
	liar.st.AgentID = outsider.st.AgentID // not the agent of its peer id
	twin := &fake{st: b.st}               // claims b's agent
	down := httptest.NewServer(nil)
	down.Close()

	file := filepath.Join(t.TempDir(), "peers.json")
	apis := []string{serve(t, self), serve(t, b), serve(t, c), serve(t, liar), serve(t, twin), down.URL}
	if err := netview.WritePeersFile(file, apis); err != nil {
		t.Fatal(err)
	}
	v := netview.New(self, netview.WithPeersFile(file), netview.WithTimeout(2*time.Second))
	nw, err := v.Network(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if nw.Scope != nodeapi.ScopeTestnet || len(nw.Nodes) != 6 {
		t.Fatalf("scope %s, %d nodes, want testnet and 6 (self, b, c, liar, twin, down): %+v", nw.Scope, len(nw.Nodes), nw.Nodes)
	}
	var read []string
	for i, n := range nw.Nodes {
		if n.Error == "" {
			read = append(read, n.Name)
		} else if i < 3 {
			t.Errorf("node %d (%s): %s", i, n.API, n.Error)
		}
	}
	if got := strings.Join(read, " "); got != "self b c" {
		t.Errorf("nodes read: %q, want \"self b c\" (the liar, the twin and the stopped node refused)", got)
	}
	if e := nw.Nodes[3].Error; !strings.Contains(e, "not the agent of its peer id") {
		t.Errorf("liar's error %q", e)
	}
	if e := nw.Nodes[4].Error; !strings.Contains(e, "as node 1 does") {
		t.Errorf("twin's error %q", e)
	}

	name := map[string]string{self.st.AgentID: "self", b.st.AgentID: "b", c.st.AgentID: "c", outsider.st.AgentID: "outsider"}
	var links []string
	for _, l := range nw.Links {
		var by []string
		for _, r := range l.ReportedBy {
			by = append(by, name[r])
		}
		pair := []string{name[l.A], name[l.B]}
		if pair[0] > pair[1] {
			pair[0], pair[1] = pair[1], pair[0]
		}
		links = append(links, fmt.Sprintf("%s-%s:%s", pair[0], pair[1], strings.Join(by, "+")))
	}
	want := map[string]bool{"b-self:b+self": true, "b-c:b+c": true, "c-outsider:c": true}
	if len(links) != len(want) {
		t.Fatalf("links %v, want %v", links, want)
	}
	for _, l := range links {
		if !want[l] {
			t.Errorf("link %s not expected (want %v)", l, want)
		}
	}

	if len(nw.Travel) != 3 {
		t.Fatalf("travel of %d cards, want 3 (one per node read)", len(nw.Travel))
	}
	tb := nw.Travel[1]
	if tb.Agent != b.st.AgentID || tb.Seq != 2 || tb.PublishedAt == nil || !tb.PublishedAt.Equal(at(0)) {
		t.Fatalf("b's card: %+v, want seq 2 published at t0", tb)
	}
	var after []string
	for _, a := range tb.Arrivals {
		after = append(after, fmt.Sprintf("%s@%v", name[a.Node], *a.AfterMS))
	}
	if got := strings.Join(after, " "); got != "self@50 b@0 c@120" {
		t.Errorf("b's card reached %q, want \"self@50 b@0 c@120\"", got)
	}
	if tc := nw.Travel[2]; tc.PublishedAt != nil || len(tc.Arrivals) != 0 {
		t.Errorf("c's card, of which nobody has a record: %+v", tc)
	}
}

func TestLocalView(t *testing.T) {
	self, b := newFake(t, 1, "self", 1), newFake(t, 2, "b", 1)
	self.connect(b)
	for _, opt := range []netview.Option{nil, netview.WithPeersFile(filepath.Join(t.TempDir(), "not-yet-written.json"))} {
		var opts []netview.Option
		if opt != nil {
			opts = append(opts, opt)
		}
		nw, err := netview.New(self, opts...).Network(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if nw.Scope != nodeapi.ScopeLocal || len(nw.Nodes) != 1 || len(nw.Links) != 1 || len(nw.Travel) != 0 {
			t.Fatalf("without a peers file: %+v, want the node, its one link and no travel", nw)
		}
	}
}

func TestPeersFileRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body string }{
		{"remote host", `{"apis": ["http://192.0.2.1:5001"]}`},
		{"https", `{"apis": ["https://127.0.0.1:5001"]}`},
		{"no port", `{"apis": ["http://127.0.0.1"]}`},
		{"path", `{"apis": ["http://127.0.0.1:5001/x"]}`},
		{"user", `{"apis": ["http://u@127.0.0.1:5001"]}`},
		{"unknown field", `{"apis": [], "more": 1}`},
		{"not JSON", `apis`},
		{"too many", `{"apis": [` + strings.Repeat(`"http://127.0.0.1:1",`, netview.MaxNodes) + `"http://127.0.0.1:1"]}`},
	} {
		path := filepath.Join(dir, "peers.json")
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := netview.ReadPeersFile(path); !errors.Is(err, netview.ErrPeersFile) {
			t.Errorf("%s: %v, want ErrPeersFile", tc.name, err)
		}
		_, err := netview.New(newFake(t, 1, "self", 1), netview.WithPeersFile(path)).Network(context.Background())
		if !errors.Is(err, netview.ErrPeersFile) {
			t.Errorf("%s: Network: %v, want ErrPeersFile", tc.name, err)
		}
	}
	if err := netview.WritePeersFile(filepath.Join(dir, "w.json"), []string{"http://example.com:80"}); !errors.Is(err, netview.ErrPeersFile) {
		t.Errorf("WritePeersFile of a remote address: %v, want ErrPeersFile", err)
	}
}
