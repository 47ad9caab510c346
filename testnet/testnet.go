package testnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/adpnode/adpnode/adp"
)

// Testnet is a set of adpnode processes on 127.0.0.1 recorded in a
// directory (DIR/testnet.json). Up creates one and leaves its nodes
// running; Open finds it again from another process; Down stops it.
// A Testnet is safe for concurrent use.
type Testnet struct {
	dir string
	cfg config
	api *apiClient

	mu     sync.Mutex
	m      Manifest
	report UpReport
	start  time.Time // first node launched
}

// UpReport tells how long Up took.
type UpReport struct {
	// Nodes is the node count.
	Nodes int
	// Started is when the first node process was launched.
	Started time.Time
	// LastStarted is the time from Started to the launch of the last node.
	LastStarted time.Duration
	// Ready is the time from Started until every node answered on its API.
	Ready time.Duration
	// Propagated is the time from Started until every node held every
	// card.
	Propagated time.Duration
}

// Open loads the testnet recorded in dir, running or not.
func Open(dir string, opts ...Option) (*Testnet, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("testnet: %w", err)
	}
	m, err := readManifest(abs)
	if err != nil {
		return nil, err
	}
	return &Testnet{dir: abs, cfg: cfg, api: newAPIClient(), m: *m}, nil
}

// Close releases the idle HTTP connections to the nodes' APIs. It does not
// stop the nodes (Down does) and the Testnet stays usable.
func (t *Testnet) Close() error {
	t.api.close()
	return nil
}

// Dir returns the testnet's directory (absolute).
func (t *Testnet) Dir() string { return t.dir }

// Report returns the timings of Up (zero for a testnet found with Open).
func (t *Testnet) Report() UpReport {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.report
}

// Nodes returns a copy of the nodes' records.
func (t *Testnet) Nodes() []NodeInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]NodeInfo, len(t.m.Nodes))
	for i, n := range t.m.Nodes {
		n.Skills = append([]string(nil), n.Skills...)
		n.Args = append([]string(nil), n.Args...)
		n.Addrs = append([]string(nil), n.Addrs...)
		out[i] = n
	}
	return out
}

// Len returns the node count.
func (t *Testnet) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m.Nodes)
}

func (t *Testnet) node(i int) (NodeInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 || i >= len(t.m.Nodes) {
		return NodeInfo{}, fmt.Errorf("%w: %d (the testnet has nodes 0..%d)", ErrNoNode, i, len(t.m.Nodes)-1)
	}
	return t.m.Nodes[i], nil
}

// APIURL returns the HTTP API base URL of node i while it runs.
func (t *Testnet) APIURL(i int) (string, error) {
	n, err := t.node(i)
	if err != nil {
		return "", err
	}
	if !alive(n.PID, n.DataDir) {
		return "", fmt.Errorf("%w: node %d (process %d not running; log %s)", ErrNodeDown, i, n.PID, n.Log)
	}
	u := readAPIFile(n.DataDir)
	if u == "" {
		return "", fmt.Errorf("%w: node %d has not published its API address yet", ErrNodeDown, i)
	}
	return u, nil
}

// API sends an HTTP request to node i's API: method, path (with query, for
// example "/v1/discover?scope=network"), an optional JSON body, and decodes
// the JSON answer into out (a *json.RawMessage keeps it as it is). Error
// answers come back as *httpapi.Error, matching ErrAPI.
func (t *Testnet) API(ctx context.Context, i int, method, path string, body, out any) error {
	base, err := t.APIURL(i)
	if err != nil {
		return err
	}
	return t.api.do(ctx, base, method, path, body, out)
}

// Discover runs a discovery on node i; scope is "local" or "network" ("":
// the node's default).
func (t *Testnet) Discover(ctx context.Context, i int, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error) {
	path := "/v1/discover"
	if scope != "" {
		path += "?scope=" + url.QueryEscape(scope)
	}
	var resp adp.DiscoverResponse
	if err := t.API(ctx, i, http.MethodPost, path, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// NodeState is what Status found about one node.
type NodeState struct {
	NodeInfo
	// Up is true while the node's process runs.
	Up bool
	// Status is the node's GET /v1/status, nil when it did not answer.
	Status *NodeStatus
	// RSS is the process's resident set size in bytes (0 when unknown).
	RSS int64
	// PSS is the proportional set size in bytes: RSS with the pages the
	// nodes share (the executable) divided among them (0 when unknown).
	PSS int64
	// Err says why Status is nil.
	Err error
}

// Status asks every node for its state, concurrently, each within a short
// deadline.
func (t *Testnet) Status(ctx context.Context) []NodeState {
	nodes := t.Nodes()
	out := make([]NodeState, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() {
			st := NodeState{NodeInfo: n, Up: alive(n.PID, n.DataDir)}
			if !st.Up {
				st.Err = fmt.Errorf("%w: process %d not running", ErrNodeDown, n.PID)
				out[i] = st
				return
			}
			st.RSS, st.PSS = rssBytes(n.PID), pssBytes(n.PID)
			base := readAPIFile(n.DataDir)
			if base == "" {
				st.Err = fmt.Errorf("%w: no API address published yet", ErrNodeDown)
				out[i] = st
				return
			}
			st.API = base
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			st.Status, st.Err = t.api.status(cctx, base)
			out[i] = st
		})
	}
	wg.Wait()
	return out
}

// Running reports whether any node process of the testnet runs.
func (t *Testnet) Running() bool {
	for _, n := range t.Nodes() {
		if alive(n.PID, n.DataDir) {
			return true
		}
	}
	return false
}

// StopNode stops node i: SIGTERM, then SIGKILL after the stop timeout.
func (t *Testnet) StopNode(ctx context.Context, i int) error {
	n, err := t.node(i)
	if err != nil {
		return err
	}
	return stop(ctx, n.PID, n.DataDir, t.cfg.stopTimeout)
}

// StartNode starts node i again after StopNode (or a crash), on the same
// listen addresses as before, and waits until its API answers.
func (t *Testnet) StartNode(ctx context.Context, i int) error {
	n, err := t.node(i)
	if err != nil {
		return err
	}
	if alive(n.PID, n.DataDir) {
		return fmt.Errorf("%w: node %d already runs as process %d", ErrRunning, i, n.PID)
	}
	if err := t.launch(i); err != nil {
		return err
	}
	_, err = t.waitReady(ctx, i)
	return errors.Join(err, t.save())
}

// Down stops every node (SIGTERM, then SIGKILL after the stop timeout) and,
// unless keep, removes the testnet's directory. It refuses to remove a
// directory holding files the testnet did not create.
func (t *Testnet) Down(ctx context.Context, keep bool) error {
	defer t.api.close()
	nodes := t.Nodes()
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() {
			if err := stop(ctx, n.PID, n.DataDir, t.cfg.stopTimeout); err != nil {
				errs[i] = fmt.Errorf("node %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if keep {
		return nil
	}
	if err := clearDir(t.dir); err != nil {
		return err
	}
	if err := os.Remove(t.dir); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("testnet: %w", err)
	}
	return nil
}

// save writes the manifest and the peers file.
func (t *Testnet) save() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := writeManifest(t.dir, &t.m); err != nil {
		return err
	}
	apis := make([]string, 0, len(t.m.Nodes))
	for _, n := range t.m.Nodes {
		if n.API != "" {
			apis = append(apis, n.API)
		}
	}
	return writePeersFile(t.dir, apis)
}

// logTail returns the last lines of a node's log for error messages.
func logTail(path string, max int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(-max, io.SeekEnd)
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	return "\n--- " + path + " (tail) ---\n" + s
}

// marshalArgs is used to show a node's command line in errors.
func marshalArgs(args []string) string {
	b, _ := json.Marshal(args)
	return string(b)
}

// progress reports p to the WithProgress function, if any.
func (t *Testnet) progress(p Progress) {
	if t.cfg.progress != nil {
		t.cfg.progress(p)
	}
}
