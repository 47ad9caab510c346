package node_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
)

// jsPeerDir holds peer.mjs, a stock js-libp2p GossipSub peer, and its
// pinned packages, installed by `npm ci --prefix scripts/js-libp2p`
// (.ci/run runs it).
var jsPeerDir = filepath.Join("..", "scripts", "js-libp2p")

// TestStockJSLibp2pPeer runs a stock js-libp2p 3.x peer with
// @libp2p/gossipsub 17.x at its defaults (scripts/js-libp2p/peer.mjs)
// beside a node, the outside party of docs/protocol.md §8.2: the node
// takes in the peer's card and the peer receives the node's; after
// several heartbeats of a stable connection each keeps the other in its
// mesh and the peer's score at the node has never been below zero; and
// the peer forwarding the node's own message back to it (as its router
// does when it gets the message from a third peer), or gossiping IHAVEs
// of its message cache, changes none of that.
func TestStockJSLibp2pPeer(t *testing.T) {
	sk := cardtest.Key(t, 0x6a)
	jsID, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	w := &routerWatch{p: jsID, asked: make(map[string]bool), heard: make(map[string]bool)}
	n := startNode(t, testNode{name: "go node", gossipOpts: []gossip.Option{gossip.PubSubOptions(
		pubsub.WithPeerScoreInspect(w.inspect, time.Second),
		pubsub.WithRawTracer(w),
	)}})
	card := cardtest.Card(t, 0x6a, `{"id": "ID", "name": "js-libp2p peer", "description": "A stock js-libp2p GossipSub peer.", "status": "active"}`)
	js := startJSPeer(t, sk, card.Raw(), addrOf(t, n))
	if js.ready() != jsID.String() {
		t.Fatalf("js peer is %s, want %s (the key given to it)", js.ready(), jsID)
	}

	// (a) The node takes in the peer's card through gossip.
	ctx := context.Background()
	polltest.Until(t, 30*time.Second, func() error {
		js.alive()
		if _, err := n.HeldCard(ctx, card.ID); err != nil {
			return fmt.Errorf("node does not hold the js peer's card: %w; js peer: %s", err, js.summary())
		}
		// Noted just after the card is stored.
		if a := n.Arrivals(card.ID); len(a) != 1 || a[0].Source != "gossip" {
			return fmt.Errorf("arrivals of the js peer's card: %+v, want one, by gossip", a)
		}
		return nil
	})

	// (b) The peer receives the node's own card, published by the node.
	polltest.Until(t, 30*time.Second, func() error {
		js.alive()
		if !js.received(n.PeerID(), n.AgentID()) {
			return fmt.Errorf("js peer has no message from %s with the node's card; js peer: %s", n.PeerID(), js.summary())
		}
		return nil
	})

	// (c) Several heartbeats (a second each, on both sides) of a stable
	// connection: the peer keeps the node in its mesh, the node keeps the
	// peer, and the peer's score never falls below zero.
	stable := func(what string, beats int) {
		t.Helper()
		m, s := js.meshReports(), w.inspections()
		polltest.Until(t, 60*time.Second, func() error {
			js.alive()
			if got := js.meshReports() - m; got < beats {
				return fmt.Errorf("%s: %d mesh reports from the js peer, want %d", what, got, beats)
			}
			if got := w.inspections() - s; got < beats {
				return fmt.Errorf("%s: %d score inspections at the node, want %d", what, got, beats)
			}
			return nil
		})
		if in, lacking := js.meshOfNode(); !in || lacking != 0 {
			t.Errorf("%s: the node was in the js peer's mesh: %v, reports lacking it since: %d; js peer: %s", what, in, lacking, js.summary())
		}
		st := w.state()
		if !st.grafted || st.pruned != 0 || st.dropped != 0 {
			t.Errorf("%s: the node grafted the js peer: %v, pruned it %d times, dropped its stream %d times", what, st.grafted, st.pruned, st.dropped)
		}
		if !st.scored || st.minScore < 0 {
			t.Errorf("%s: js peer's score at the node: last %v, lowest %v (seen %v), want >= 0", what, st.score, st.minScore, st.scored)
		}
		if !slices.Contains(n.Peers(), jsID) {
			t.Errorf("%s: the node is no longer connected to the js peer", what)
		}
		t.Logf("%s: js peer's score at the node %.3f (lowest %.3f), own messages it forwarded back %d; js peer: %s",
			what, st.score, st.minScore, st.selfOrigin, js.summary())
	}
	stable("stable connection", 5)
	if back := w.state().selfOrigin; back != 0 {
		t.Logf("the stock router forwarded the node's own message back %d times on its own", back)
	}

	// The peer forwards the node's own message back to it.
	js.send("forward")
	polltest.Until(t, 30*time.Second, func() error {
		js.alive()
		if w.state().selfOrigin == 0 {
			return fmt.Errorf("node has seen none of its own messages come back; js peer: %s", js.summary())
		}
		return nil
	})
	stable("after a forward back", 3)

	// The peer gossips: IHAVEs of its whole gossip window, with the IDs
	// its router computed, once a heartbeat, as many as it takes a
	// router that does not share its message-ID function to score the
	// IWANTs it answers as broken promises (more than 6) and the peer
	// below zero. Sharing one function, the node has seen nearly every
	// ID. It may ask for the newest, a publication that arrived just
	// before the IHAVE and is still being validated (go-libp2p-pubsub
	// counts a message seen once it has passed), but every ID it asks
	// for is then that of a message the peer sent it: with two
	// functions, none would be.
	const rounds = 10
	for i := range rounds {
		s := w.inspections()
		js.send("ihave")
		polltest.Until(t, 30*time.Second, func() error {
			js.alive()
			if js.ihaves() <= i {
				return fmt.Errorf("IHAVE %d not sent yet; js peer: %s", i+1, js.summary())
			}
			if w.inspections() == s {
				return fmt.Errorf("no score inspection since IHAVE %d", i+1)
			}
			return nil
		})
	}
	stable("after gossip", 3)
	polltest.Until(t, 30*time.Second, func() error {
		if unknown, asked := w.unknownIWants(); len(unknown) > 0 {
			return fmt.Errorf("the node asked the js peer for %d of %d message IDs it gossiped that name no message the peer sent it: the IDs are not the node's", len(unknown), asked)
		}
		return nil
	})
	_, asked := w.unknownIWants()
	t.Logf("the node asked for %d gossiped IDs, each that of a message the peer sent it", asked)
}

// routerWatch watches the node's GossipSub router for one peer: its
// score at every inspection, the node's grafts and prunes of it, the
// closing of the node's stream to it and the node's own messages it
// forwarded back. It is a pubsub.RawTracer.
type routerWatch struct {
	p peer.ID

	mu    sync.Mutex
	n     int // inspections
	st    watchState
	asked map[string]bool // message IDs the node asked the peer for
	heard map[string]bool // IDs (gossip.MessageID) of messages the peer sent the node
}

type watchState struct {
	scored          bool
	score, minScore float64
	grafted         bool
	pruned, dropped int
	selfOrigin      int
}

func (w *routerWatch) inspect(scores map[peer.ID]float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	s, ok := scores[w.p]
	if !ok {
		return
	}
	if !w.st.scored || s < w.st.minScore {
		w.st.minScore = s
	}
	w.st.scored, w.st.score = true, s
}

func (w *routerWatch) inspections() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

func (w *routerWatch) state() watchState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.st
}

// unknownIWants returns the IDs the node asked the peer for that name no
// message the peer sent it, and how many IDs it asked for.
func (w *routerWatch) unknownIWants() (unknown []string, asked int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id := range w.asked {
		if !w.heard[id] {
			unknown = append(unknown, id)
		}
	}
	return unknown, len(w.asked)
}

// heardFrom notes the ID of a message the peer sent the node, whatever
// became of it.
func (w *routerWatch) heardFrom(m *pubsub.Message) {
	if m.ReceivedFrom != w.p {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.heard[gossip.MessageID(m.Message)] = true
}

func (w *routerWatch) count(p peer.ID, f func(*watchState)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p == w.p {
		f(&w.st)
	}
}

func (w *routerWatch) Graft(p peer.ID, topic string) {
	w.count(p, func(s *watchState) { s.grafted = true })
}
func (w *routerWatch) Prune(p peer.ID, topic string) { w.count(p, func(s *watchState) { s.pruned++ }) }
func (w *routerWatch) OnClosedOutboundStream(p peer.ID) {
	w.count(p, func(s *watchState) { s.dropped++ })
}
func (w *routerWatch) RejectMessage(m *pubsub.Message, reason string) {
	w.heardFrom(m)
	if reason == pubsub.RejectSelfOrigin {
		w.count(m.ReceivedFrom, func(s *watchState) { s.selfOrigin++ })
	}
}
func (*routerWatch) OnNewOutboundStream(peer.ID, protocol.ID) {}
func (*routerWatch) Join(string)                              {}
func (*routerWatch) Leave(string)                             {}
func (w *routerWatch) ValidateMessage(m *pubsub.Message)      { w.heardFrom(m) }
func (w *routerWatch) DeliverMessage(m *pubsub.Message)       { w.heardFrom(m) }
func (w *routerWatch) DuplicateMessage(m *pubsub.Message)     { w.heardFrom(m) }
func (*routerWatch) ThrottlePeer(peer.ID)                     {}
func (*routerWatch) RecvRPC(*pubsub.RPC)                      {}
func (w *routerWatch) SendRPC(rpc *pubsub.RPC, p peer.ID) {
	if p != w.p {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, iw := range rpc.GetControl().GetIwant() {
		for _, id := range iw.GetMessageIDs() {
			w.asked[id] = true
		}
	}
}
func (*routerWatch) DropRPC(*pubsub.RPC, peer.ID)         {}
func (*routerWatch) UndeliverableMessage(*pubsub.Message) {}

// jsPeer is a running peer.mjs: what it printed, its stdin for commands
// and its stderr, shown when the test fails.
type jsPeer struct {
	t       *testing.T
	stdin   io.WriteCloser
	stderr  *lockedBuffer
	done    chan struct{} // closed when the process has exited
	exitErr error         // set before done is closed
	node    string        // the node's peer id

	mu        sync.Mutex
	self      string
	msgs      []jsEvent // "message" events
	meshes    int       // "mesh" events
	inMesh    bool      // the node was in the mesh of a report
	lacking   int       // reports since then without the node
	published int
	forwarded int
	ihave     int // IHAVEs sent
}

// jsEvent is one line peer.mjs printed.
type jsEvent struct {
	Event string   `json:"event"`
	Peer  string   `json:"peer"`
	From  string   `json:"from"`
	ID    string   `json:"id"`
	Mesh  []string `json:"mesh"`
}

// startJSPeer runs peer.mjs with key sk, publishing card, dialling
// nodeAddr (ending in /p2p/<id>), and waits for its ready line. Cleanup
// closes its stdin, which stops it, and kills it if it does not exit.
// Without node or the installed packages the test is skipped, except
// under CI=true, where it fails.
func startJSPeer(t *testing.T, sk crypto.PrivKey, card []byte, nodeAddr string) *jsPeer {
	t.Helper()
	nodeBin := nodeWithPackage(t, jsPeerDir, "@libp2p/gossipsub")
	key, err := crypto.MarshalPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	cardFile := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(cardFile, card, 0o600); err != nil {
		t.Fatal(err)
	}
	node, err := peer.AddrInfoFromString(nodeAddr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodeBin, "peer.mjs", base64.StdEncoding.EncodeToString(key), cardFile, nodeAddr)
	cmd.Dir = jsPeerDir
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &jsPeer{t: t, stdin: stdin, stderr: stderr, node: node.ID.String(), done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.record(sc.Bytes(), ready)
		}
		io.Copy(io.Discard, stdout)
		p.exitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-p.done:
			if p.exitErr != nil {
				t.Errorf("js peer did not exit cleanly: %v", p.exitErr)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-p.done
			t.Errorf("js peer did not exit within 10s of its stdin closing: killed")
		}
		if t.Failed() {
			t.Logf("js peer's stderr:\n%s", stderr)
		}
	})
	select {
	case <-ready:
	case <-p.done:
		t.Fatalf("js peer exited before it was ready: %v\n%s", p.exitErr, stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("js peer was not ready within 60s\n%s", stderr)
	}
	return p
}

func (p *jsPeer) record(line []byte, ready chan struct{}) {
	var e jsEvent
	if err := json.Unmarshal(line, &e); err != nil {
		p.t.Logf("js peer printed %q: %v", line, err)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Event {
	case "ready":
		p.self = e.Peer
		close(ready)
	case "message":
		p.msgs = append(p.msgs, e)
	case "mesh":
		p.meshes++
		switch {
		case slices.Contains(e.Mesh, p.node):
			p.inMesh = true
		case p.inMesh:
			p.lacking++
		}
	case "published":
		p.published++
	case "forwarded":
		p.forwarded++
	case "ihave":
		p.ihave++
	}
}

// alive fails the test if the peer has exited.
func (p *jsPeer) alive() {
	p.t.Helper()
	select {
	case <-p.done:
		p.t.Fatalf("js peer exited: %v\n%s", p.exitErr, p.stderr)
	default:
	}
}

func (p *jsPeer) ready() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.self
}

// received reports whether the peer got a message published by from
// carrying the card of agentID.
func (p *jsPeer) received(from peer.ID, agentID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.ContainsFunc(p.msgs, func(e jsEvent) bool {
		return e.From == from.String() && e.ID == agentID
	})
}

// ihaves returns how many IHAVEs the peer has sent the node.
func (p *jsPeer) ihaves() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ihave
}

func (p *jsPeer) meshReports() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.meshes
}

// meshOfNode reports whether the node was in the mesh of one of the
// peer's reports, and how many reports lacked it after the first that had
// it.
func (p *jsPeer) meshOfNode() (in bool, lacking int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inMesh, p.lacking
}

func (p *jsPeer) summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%d messages received, %d publications, %d mesh reports (node in mesh: %v, reports lacking it since: %d), %d forwards back",
		len(p.msgs), p.published, p.meshes, p.inMesh, p.lacking, p.forwarded)
}

// send writes a command line to the peer's stdin.
func (p *jsPeer) send(cmd string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, cmd+"\n"); err != nil {
		p.t.Fatalf("js peer: %s: %v", cmd, err)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
