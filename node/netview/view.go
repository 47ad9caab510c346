package netview

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
)

const (
	// DefaultTimeout bounds the reads of one node.
	DefaultTimeout = 3 * time.Second
	// parallel bounds the nodes read at the same time.
	parallel = 8
	// minAge is how long an answer is served again to other callers.
	minAge = time.Second
	// maxPeers bounds the peers taken from one node's report (a node
	// keeps far fewer connections: node.DefaultConnHigh).
	maxPeers = 1024
)

// Self is the node that answers: what it reports of itself.
type Self interface {
	Status() nodeapi.Status
	PeerInfos() []nodeapi.PeerInfo
	Arrivals(agents ...string) []nodeapi.Arrival
}

// Option configures New.
type Option func(*View)

// WithPeersFile reads the testnet's nodes from the peers file at path
// (see WritePeersFile); without one, or while the file does not exist,
// the View reports the node alone (nodeapi.ScopeLocal).
func WithPeersFile(path string) Option { return func(v *View) { v.file = path } }

// WithTimeout sets the deadline of the reads of one node (default
// DefaultTimeout).
func WithTimeout(d time.Duration) Option {
	return func(v *View) {
		if d > 0 {
			v.timeout = d
		}
	}
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(v *View) { v.log = l } }

// View answers GET /v1/network for one node. It is safe for concurrent
// use.
type View struct {
	self    Self
	file    string
	timeout time.Duration
	log     *slog.Logger
	hc      *http.Client

	mu     sync.Mutex // one aggregation at a time
	last   *nodeapi.Network
	lastAt time.Time // when last was put together (monotonic)
}

// New returns the View of self.
func New(self Self, opts ...Option) *View {
	v := &View{self: self, timeout: DefaultTimeout, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(v)
	}
	// No proxy, no redirect: the file's loopback addresses and nothing
	// else. No idle connection outlives a read, so the View holds no
	// goroutine or socket between calls and needs no Close.
	v.hc = &http.Client{
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return v
}

// Network reads the nodes (the node alone without a peers file) and
// returns their links and, on a testnet, the travel of their cards.
func (v *View) Network(ctx context.Context) (*nodeapi.Network, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.last != nil && time.Since(v.lastAt) < minAge {
		return v.last, nil
	}
	apis, err := v.apis()
	if err != nil {
		return nil, err
	}
	r := v.read(ctx, apis)
	nw := &nodeapi.Network{Scope: nodeapi.ScopeLocal, At: time.Now().UTC(), Nodes: make([]nodeapi.NetworkNode, len(r))}
	if apis != nil {
		nw.Scope = nodeapi.ScopeTestnet
	}
	for i, rep := range r {
		nw.Nodes[i] = rep.node
	}
	nw.Links = links(r)
	nw.Travel = []nodeapi.CardTravel{}
	if nw.Scope == nodeapi.ScopeTestnet {
		nw.Travel = travel(r)
	}
	v.last, v.lastAt = nw, time.Now()
	return nw, nil
}

// apis returns the peers file's addresses but the node's own; nil
// without a file.
func (v *View) apis() ([]string, error) {
	if v.file == "" {
		return nil, nil
	}
	all, err := ReadPeersFile(v.file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	own := v.self.Status().APIURL
	out := make([]string, 0, len(all))
	for _, a := range all {
		if !sameAPI(a, own) {
			out = append(out, a)
		}
	}
	return out, nil
}

// report is what one node said.
type report struct {
	node     nodeapi.NetworkNode
	peers    []nodeapi.PeerInfo
	arrivals []nodeapi.Arrival
	client   *httpapi.Client // nil for the node itself
}

// read gathers the reports: the node's own first, then the others in
// file order. Phase one reads each status and peers; phase two, once the
// agents are known, each node's arrivals of their cards.
func (v *View) read(ctx context.Context, apis []string) []report {
	st := v.self.Status()
	r := make([]report, 1+len(apis))
	r[0] = report{node: nodeOf(st, ""), peers: v.self.PeerInfos()}
	v.each(ctx, r[1:], func(ctx context.Context, i int, rep *report) error {
		rep.node.API = apis[i]
		c, err := httpapi.NewClient(apis[i], v.hc)
		if err != nil {
			return err
		}
		rs, err := c.Status(ctx)
		if err != nil {
			return err
		}
		if err := checkStatus(rs); err != nil {
			return err
		}
		peers, err := c.Peers(ctx)
		if err != nil {
			return err
		}
		rep.node, rep.peers, rep.client = nodeOf(*rs, apis[i]), peers[:min(len(peers), maxPeers)], c
		return nil
	})
	dedupe(r)
	if len(apis) == 0 {
		return r
	}
	agents := make([]string, 0, len(r))
	for _, rep := range r {
		if rep.node.Error == "" {
			agents = append(agents, rep.node.AgentID)
		}
	}
	r[0].arrivals = v.self.Arrivals(agents...)
	v.each(ctx, r[1:], func(ctx context.Context, _ int, rep *report) error {
		if rep.client == nil {
			return nil // not read in phase one
		}
		a, err := rep.client.Arrivals(ctx, agents...)
		rep.arrivals = a
		return err
	})
	return r
}

// each runs fn on every report, at most parallel at a time, each bounded
// by the View's timeout; a failure is recorded as the node's error.
func (v *View) each(ctx context.Context, r []report, fn func(context.Context, int, *report) error) {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range r {
		if r[i].node.Error != "" {
			continue
		}
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				r[i].fail(ctx.Err())
				return
			}
			defer func() { <-sem }()
			cctx, cancel := context.WithTimeout(ctx, v.timeout)
			defer cancel()
			if err := fn(cctx, i, &r[i]); err != nil {
				v.log.Debug("netview: read node", "api", r[i].node.API, "err", err)
				r[i].fail(err)
			}
		})
	}
	wg.Wait()
}

// fail keeps only the address of a node that could not be read.
func (rep *report) fail(err error) {
	*rep = report{node: nodeapi.NetworkNode{API: rep.node.API, Error: err.Error()}}
}

func nodeOf(st nodeapi.Status, api string) nodeapi.NetworkNode {
	return nodeapi.NetworkNode{AgentID: st.AgentID, PeerID: st.PeerID, Name: st.Name, Directory: st.Directory,
		Seq: st.Seq, Peers: st.Peers, API: api}
}

// dedupe fails every node that claims an agent an earlier node claimed.
func dedupe(r []report) {
	seen := make(map[string]int, len(r))
	for i := range r {
		if r[i].node.Error != "" {
			continue
		}
		if j, ok := seen[r[i].node.AgentID]; ok {
			r[i].fail(fmt.Errorf("reports agent %s, as node %d does", r[i].node.AgentID, j))
			continue
		}
		seen[r[i].node.AgentID] = i
	}
}
