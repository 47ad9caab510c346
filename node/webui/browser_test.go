package webui_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/webui"
	"github.com/adpnode/adpnode/testnet"
)

func TestPageWeight(t *testing.T) {
	if n := webui.Size(); n <= 0 || n > 200<<10 {
		t.Fatalf("page weight %d bytes, want under 200 KB", n)
	}
}

// TestBrowser drives the web view of node 0 of a 5-node testnet in
// headless Chromium: the network page, a discovery, an invocation, a card
// that arrives while the page is open, and a card whose text is markup.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nw, err := testnet.NewInProcess(ctx, 5, testnet.WithDirectories(1),
		testnet.WithNodeConfig(func(i int, c *node.Config) { c.APIAddr = "127.0.0.1:0" }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := nw.Close(); err != nil {
			t.Errorf("close testnet: %v", err)
		}
	})
	if err := nw.WaitPropagation(time.Minute); err != nil {
		t.Fatal(err)
	}
	tab, con := browser(t, exe)
	shots := t.TempDir()
	base := nw.Node(0).APIURL()

	t.Run("network", func(t *testing.T) { networkPage(t, tab, nw, base, shots) })
	t.Run("discover", func(t *testing.T) { discoverPage(t, tab, base, shots) })
	t.Run("invoke", func(t *testing.T) { invokePage(t, tab, nw, base, shots) })
	t.Run("live and escaped", func(t *testing.T) { liveAndEscaped(t, tab, nw, base) })
	t.Run("graph follows a node leaving", func(t *testing.T) { nodeLeaves(t, tab, nw) })
	if errs := con.errors(); len(errs) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
}

func networkPage(t *testing.T, tab context.Context, nw *testnet.Network, base, shots string) {
	if err := run(tab, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(base+"/#network"),
		chromedp.WaitVisible(`body[data-ready="true"]`)); err != nil {
		t.Fatal(err)
	}
	type net struct {
		Scope                   string
		Cards, Agents, PeerRows int
		Edges                   [][]string
	}
	var want map[[2]string]bool
	got := eval(t, tab, "network page", `({
		scope: (document.querySelector('svg[data-scope]') || {dataset: {}}).dataset.scope || '',
		cards: document.querySelectorAll('#cards tbody tr[data-agent]').length,
		agents: document.querySelectorAll('svg g.node').length,
		edges: [...document.querySelectorAll('svg line.edge')].map(l => [l.dataset.a, l.dataset.b]),
		peerRows: document.querySelectorAll('tr[data-peer]').length})`, func(v net) error {
		// The connections every node reports, read again at each poll:
		// a connection may open or close while the page is read.
		want = connections(nw)
		peers := len(nw.Node(0).Peers())
		if v.Scope != "testnet" || v.Cards != 5 || v.Agents != 5 || v.PeerRows != peers || peers < 1 || len(v.Edges) != len(want) {
			return fmt.Errorf("got %s scope, %d cards, %d agents, %d edges, %d peer rows; want testnet, 5, 5, %d and %d",
				v.Scope, v.Cards, v.Agents, len(v.Edges), v.PeerRows, len(want), peers)
		}
		for _, e := range v.Edges {
			if !want[pair(e[0], e[1])] {
				return fmt.Errorf("edge %s — %s is not a connection any node reports", e[0], e[1])
			}
		}
		return nil
	})
	t.Logf("network page: %d agents, %d connections (%d of node 0)", got.Agents, len(got.Edges), got.PeerRows)
	var idsOnPage []string
	if err := run(tab, chromedp.Evaluate(`[...document.querySelectorAll('#cards tbody tr')].map(r => r.dataset.agent)`, &idsOnPage)); err != nil {
		t.Fatal(err)
	}
	for _, n := range nw.Nodes() {
		if !strings.Contains(strings.Join(idsOnPage, " "), n.AgentID()) {
			t.Errorf("agent %s not listed; page lists %v", n.AgentID(), idsOnPage)
		}
	}
	travelTable(t, tab, nw)
	shoot(t, tab, shots, "network")
}

// connections returns the connections the testnet's nodes report, one
// per pair of agents.
func connections(nw *testnet.Network) map[[2]string]bool {
	out := make(map[[2]string]bool)
	for _, n := range nw.Nodes() {
		if n == nil { // stopped
			continue
		}
		for _, p := range n.Peers() {
			out[pair(n.AgentID(), adp.AgentID(p))] = true
		}
	}
	return out
}

func pair(a, b string) [2]string { return [2]string{min(a, b), max(a, b)} }

// travelTable checks that the travel table has, for each node's current
// card, an arrival time at every node: 0 at its owner, which published
// it, and a positive time elsewhere.
func travelTable(t *testing.T, tab context.Context, nw *testnet.Network) {
	type cell struct {
		Node string
		MS   *float64
	}
	for _, owner := range nw.Nodes() {
		id, seq := owner.AgentID(), *owner.Card().Seq
		sel := fmt.Sprintf(`#travel tr[data-agent=%q][data-seq="%d"] td`, id, seq)
		cells := eval(t, tab, "travel of "+owner.Card().Name, `[...document.querySelectorAll(`+strconv.Quote(sel)+`)].map(td => ({
			node: td.dataset.node, ms: td.dataset.ms === undefined ? null : Number(td.dataset.ms)}))`, func(cs []cell) error {
			n := 0
			for _, c := range cs {
				if c.MS != nil {
					n++
				}
			}
			if len(cs) != nw.Len() || n != nw.Len() {
				return fmt.Errorf("%d of %d cells with a time, want one per node (%d)", n, len(cs), nw.Len())
			}
			return nil
		})
		for _, c := range cells {
			if (c.Node == id) != (*c.MS == 0) || *c.MS < 0 {
				t.Errorf("card of %s at node %s: %v ms, want 0 at its owner and more than 0 elsewhere", id, c.Node, *c.MS)
			}
		}
	}
}

func discoverPage(t *testing.T, tab context.Context, base, shots string) {
	if err := run(tab, view("discover"),
		chromedp.WaitVisible(`input[name="query"]`),
		chromedp.SendKeys(`input[name="query"]`, "translate text into another language"),
		chromedp.SetValue(`input[name="min"]`, "0"),
		chromedp.Click(`form.search button[type="submit"]`)); err != nil {
		t.Fatal(err)
	}
	type result struct {
		Score, Sum, Stack float64
		Factors           int
	}
	res := eval(t, tab, "discover results", `[...document.querySelectorAll('li.result')].map(li => ({
		score: Number(li.dataset.score),
		sum: [...li.querySelectorAll('tr.factor')].reduce((s, r) => s + Number(r.dataset.contrib), 0),
		stack: [...li.querySelectorAll('.stack .seg')].reduce((s, e) => s + parseFloat(e.style.width) / 100, 0),
		factors: li.querySelectorAll('tr.factor').length}))`, func(rs []result) error {
		if len(rs) < 2 {
			return fmt.Errorf("%d results, want at least 2", len(rs))
		}
		return nil
	})
	for i, r := range res {
		if r.Factors != 7 || abs(r.Sum-r.Score) > 1e-9 || abs(r.Stack-r.Score) > 1e-4 {
			t.Errorf("result %d: score %v, components add up to %v, bars to %v (%d factors)", i+1, r.Score, r.Sum, r.Stack, r.Factors)
		}
		if i > 0 && r.Score > res[i-1].Score {
			t.Errorf("result %d scores %v, above result %d (%v)", i+1, r.Score, i, res[i-1].Score)
		}
	}
	var marks int
	if err := run(tab, chromedp.Evaluate(`document.querySelectorAll('li.result mark').length`, &marks)); err != nil || marks == 0 {
		t.Errorf("no query word highlighted in the results (%v)", err)
	}
	shoot(t, tab, shots, "discover")
}

func invokePage(t *testing.T, tab context.Context, nw *testnet.Network, base, shots string) {
	target := nw.Node(2).AgentID()
	if err := run(tab, view("invoke/"+url.PathEscape(target))); err != nil {
		t.Fatal(err)
	}
	var opts []string
	if err := run(tab, chromedp.WaitReady(`#inv-tool option`), chromedp.Evaluate(`[...document.querySelectorAll('#inv-tool option')].map(o => o.value)`, &opts)); err != nil {
		t.Fatal(err)
	}
	t.Logf("tools %v", opts)
	if err := run(tab, chromedp.SetValue(`#inv-tool`, demoagent.WordCount)); err != nil {
		t.Fatal(err)
	}
	if err := run(tab, chromedp.Evaluate(`document.querySelector('#inv-tool').dispatchEvent(new Event('change'))`, nil)); err != nil {
		t.Fatal(err)
	}
	if err := run(tab, chromedp.WaitVisible(`#f-text`), chromedp.SendKeys(`#f-text`, "one two three"),
		chromedp.Click(`form.invoke button[type="submit"]`)); err != nil {
		t.Fatal(err)
	}
	eval(t, tab, "wordcount reply", `(document.querySelector('#inv-result') || {}).textContent || ''`, func(s string) error {
		if !strings.Contains(s, `"words": 3`) {
			return fmt.Errorf("reply %q has no \"words\": 3", s)
		}
		return nil
	})
	shoot(t, tab, shots, "invoke")
	if err := run(tab, chromedp.SetValue(`#inv-tool`, demoagent.Reverse),
		chromedp.Evaluate(`document.querySelector('#inv-tool').dispatchEvent(new Event('change'))`, nil),
		chromedp.WaitVisible(`#f-text`), chromedp.SendKeys(`#f-text`, "alpha beta gamma"),
		chromedp.Click(`form.invoke button[type="submit"]`)); err != nil {
		t.Fatal(err)
	}
	eval(t, tab, "streamed reply", `[...document.querySelectorAll('#inv-chunks li')].map(li => li.textContent)`, func(cs []string) error {
		if len(cs) < 2 {
			return fmt.Errorf("%d chunks %q, want one per word", len(cs), cs)
		}
		return nil
	})
}

func liveAndEscaped(t *testing.T, tab context.Context, nw *testnet.Network, base string) {
	if err := run(tab, view("network"), chromedp.WaitVisible(`#cards tbody tr`),
		chromedp.Evaluate(`window.__notReloaded = true`, nil)); err != nil {
		t.Fatal(err)
	}
	const (
		name = `<img src=x data-injected onerror="window.__pwned='img'">Late <b data-injected>arrival</b>`
		desc = `<script data-injected>window.__pwned='script'</script> published while the page is open`
	)
	n := nw.Node(3)
	c := n.Card().Clone()
	c.Name, c.Description = name, desc
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	if _, err := n.SetCard(ctx, c); err != nil {
		t.Fatal(err)
	}
	eval(t, tab, "card arrived without reload", `[...document.querySelectorAll('#cards tbody tr')].map(r => r.textContent).join('\n')`, func(s string) error {
		if !strings.Contains(s, name) {
			return fmt.Errorf("no row shows %q yet", name)
		}
		return nil
	})
	if err := run(tab, chromedp.Click(`#cards tr[data-agent="`+n.AgentID()+`"] button`),
		chromedp.WaitVisible(`#card-dialog [data-signature]`)); err != nil {
		t.Fatal(err)
	}
	type page struct {
		NotReloaded bool
		Pwned       any
		Injected    int
		Title       string
		Signature   string
		Doc         string
	}
	got := eval(t, tab, "escaped card", `({
		notReloaded: window.__notReloaded === true,
		pwned: window.__pwned === undefined ? null : window.__pwned,
		injected: document.querySelectorAll('[data-injected], img, main script, dialog script').length,
		title: document.querySelector('#card-title').textContent,
		signature: document.querySelector('[data-signature]').dataset.signature,
		doc: document.querySelector('#card-body pre').textContent})`, func(p page) error {
		if !strings.Contains(p.Doc, "published while") {
			return fmt.Errorf("card document not shown yet: %q", p.Doc)
		}
		return nil
	})
	if !got.NotReloaded || got.Pwned != nil || got.Injected != 0 || got.Title != name || got.Signature != "valid" {
		t.Fatalf("after the card with markup: %+v", got)
	}
	if err := run(tab, chromedp.Click(`#card-dialog button[data-format="a2a"]`)); err != nil {
		t.Fatal(err)
	}
	eval(t, tab, "A2A form", `document.querySelector('#card-body pre').textContent`, func(s string) error {
		if !strings.Contains(s, `"protocolVersion"`) && !strings.Contains(s, `"skills"`) {
			return fmt.Errorf("not an A2A card: %.200q", s)
		}
		return nil
	})
}

// nodeLeaves stops node 4 while the network page is open: without a
// reload, the graph loses it and its connections, and names it among the
// nodes that could not be read.
func nodeLeaves(t *testing.T, tab context.Context, nw *testnet.Network) {
	if err := run(tab, view("network"), chromedp.WaitVisible(`svg g.node`),
		chromedp.Evaluate(`window.__notReloaded = true`, nil)); err != nil {
		t.Fatal(err)
	}
	gone := nw.Node(4).AgentID()
	if err := nw.Stop(4); err != nil {
		t.Fatal(err)
	}
	type graph struct {
		NotReloaded   bool
		Agents, Down  int
		Edges         [][]string
		GoneConnected bool
	}
	eval(t, tab, "graph after node 4 left", `({
		notReloaded: window.__notReloaded === true,
		agents: document.querySelectorAll('svg g.node').length,
		down: document.querySelectorAll('#h-graph ~ ul.error li').length,
		edges: [...document.querySelectorAll('svg line.edge')].map(l => [l.dataset.a, l.dataset.b]),
		goneConnected: !!document.querySelector('svg g.node[data-agent=`+strconv.Quote(gone)+`]')})`, func(g graph) error {
		want := connections(nw)
		if !g.NotReloaded || g.Agents != 4 || g.Down != 1 || g.GoneConnected || len(g.Edges) != len(want) {
			return fmt.Errorf("got %+v; want no reload, 4 agents, 1 node not read, node 4 gone and %d connections", g, len(want))
		}
		return nil
	})
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
