package testnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node"
)

// Up creates a testnet of n adpnode processes in dir and returns with them
// running:
//
//  1. refuses when a testnet already runs in dir, and when dir holds files
//     a testnet did not create;
//  2. copies the adpnode executable into dir/bin, so the nodes keep running
//     when the executable that started them disappears (go run);
//  3. initializes dir/node-I with a fresh key and the I-th bundled card;
//  4. starts node 0, the bootstrap peer, and waits for its API; then starts
//     the others with --bootstrap pointing at it (nodes 1..k are directory
//     peers), each in its own process group, logging to dir/node-I/node.log,
//     with its HTTP API on a free loopback port;
//  5. waits until every node holds every card.
//
// The process ids go to dir/testnet.json as soon as they are known, so Down
// can stop a testnet whose Up failed half way. When Up fails after starting
// processes it stops them and keeps dir (and the logs) for inspection.
func Up(ctx context.Context, dir string, n int, opts ...Option) (*Testnet, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > MaxNodes {
		return nil, fmt.Errorf("%w: %d nodes (want 1..%d)", ErrBadConfig, n, MaxNodes)
	}
	if cfg.directories > n-1 {
		return nil, fmt.Errorf("%w: %d directory peers need at least %d nodes", ErrBadConfig, cfg.directories, cfg.directories+1)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("testnet: %w", err)
	}
	if old, err := Open(abs); err == nil && old.Running() {
		return nil, fmt.Errorf("%w: %s (run `adpnode testnet down --dir %s` first)", ErrRunning, abs, dir)
	}
	// Open the executable before clearing the directory: it may be the
	// copy in DIR/bin that the clearing removes.
	exe, err := openExecutable(cfg.binary)
	if err != nil {
		return nil, err
	}
	defer exe.Close()
	if err := clearDir(abs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(abs, BinDir), 0o755); err != nil {
		return nil, fmt.Errorf("testnet: %w", err)
	}
	bin, err := installBinary(exe, filepath.Join(abs, BinDir))
	if err != nil {
		return nil, err
	}
	t := &Testnet{dir: abs, cfg: cfg, api: newAPIClient(),
		m: Manifest{Version: manifestVersion, CreatedAt: time.Now().UTC(), Binary: bin,
			Env: append(append([]string(nil), DefaultNodeEnv...), cfg.env...)}}
	if err := t.initNodes(n); err != nil {
		return nil, err
	}
	if err := t.save(); err != nil {
		return nil, err
	}
	if err := t.startAll(ctx); err != nil {
		stopErr := t.Down(context.WithoutCancel(ctx), true)
		return nil, errors.Join(err, stopErr)
	}
	return t, nil
}

// openExecutable opens path, or the running executable when path is "".
func openExecutable(path string) (*os.File, error) {
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("testnet: %w", err)
		}
		return f, nil
	}
	exe, err := os.Executable()
	if err == nil {
		if f, err := os.Open(exe); err == nil {
			return f, nil
		}
	}
	// The executable may have been removed since it started (a previous
	// testnet's DIR/bin/adpnode): Linux still serves it here.
	f, perr := os.Open("/proc/self/exe")
	if perr != nil {
		return nil, fmt.Errorf("testnet: open own executable: %w", errors.Join(err, perr))
	}
	return f, nil
}

// installBinary copies the executable in into binDir.
func installBinary(in *os.File, binDir string) (string, error) {
	dst := filepath.Join(binDir, "adpnode")
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return "", fmt.Errorf("testnet: %w", err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("testnet: install %s: %w", in.Name(), err)
	}
	return dst, nil
}

// initNodes creates the data directories with keys and signed cards.
func (t *Testnet) initNodes(n int) error {
	t.progress(Progress{Phase: PhaseInit, Total: n})
	for i := range n {
		card, err := TemplateCard(i)
		if err != nil {
			return err
		}
		dataDir := filepath.Join(t.dir, NodeDirPrefix+strconv.Itoa(i))
		id, err := node.Init(dataDir, node.InitOptions{Card: card})
		if err != nil {
			return fmt.Errorf("testnet: init node %d: %w", i, err)
		}
		info := NodeInfo{
			Index:     i,
			Name:      card.Name,
			AgentID:   id,
			Skills:    card.Skills,
			DataDir:   dataDir,
			Log:       filepath.Join(dataDir, LogFile),
			Bootstrap: i == 0,
			Directory: i >= 1 && i <= t.cfg.directories,
		}
		if pid, err := adp.PeerIDFromAgentID(id); err == nil {
			info.PeerID = pid.String()
		}
		t.m.Nodes = append(t.m.Nodes, info)
		t.progress(Progress{Phase: PhaseInit, Done: i + 1, Total: n})
	}
	return nil
}

// startAll starts node 0, then the others, then waits for propagation.
func (t *Testnet) startAll(ctx context.Context) error {
	n := t.Len()
	t.mu.Lock()
	t.start = time.Now()
	t.report = UpReport{Nodes: n, Started: t.start}
	t.mu.Unlock()

	if err := t.launch(0); err != nil {
		return err
	}
	if err := t.save(); err != nil {
		return err
	}
	if _, err := t.waitReady(ctx, 0); err != nil {
		return err
	}
	t.progress(Progress{Phase: PhaseStart, Done: 1, Total: n, Elapsed: time.Since(t.start)})
	for i := 1; i < n; i++ {
		if err := t.launch(i); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.report.LastStarted = time.Since(t.start)
	t.mu.Unlock()
	if err := t.save(); err != nil {
		return err
	}

	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		ready = 1
		errs  = make([]error, n)
	)
	for i := 1; i < n; i++ {
		wg.Go(func() {
			_, errs[i] = t.waitReady(ctx, i)
			mu.Lock()
			defer mu.Unlock()
			ready++
			t.progress(Progress{Phase: PhaseStart, Done: ready, Total: n, Elapsed: time.Since(t.start)})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	t.mu.Lock()
	t.report.Ready = time.Since(t.start)
	t.mu.Unlock()
	if err := t.save(); err != nil {
		return err
	}
	d, err := t.WaitPropagation(ctx, t.cfg.timeout)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.report.Propagated = d
	t.mu.Unlock()
	return nil
}

// runArgs builds node i's `adpnode run` command line.
func (t *Testnet) runArgs(i int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.m.Nodes[i]
	args := []string{"run", "--data-dir", n.DataDir, "--api", "127.0.0.1:0", "--demo-agent"}
	listen := t.cfg.listen
	if len(listen) == 0 {
		listen = DefaultListen
	}
	if len(n.Addrs) > 0 {
		// A restart listens where the node listened before, so the
		// addresses its peers hold stay right.
		listen = nil
		for _, a := range n.Addrs {
			if j := strings.Index(a, "/p2p/"); j > 0 {
				a = a[:j]
			}
			listen = append(listen, a)
		}
	}
	for _, a := range listen {
		args = append(args, "--listen", a)
	}
	if boot := t.bootstrapFor(i); boot != "" {
		args = append(args, "--bootstrap", boot)
	}
	if n.Directory {
		args = append(args, "--directory")
	}
	return append(args, t.cfg.args...)
}

// bootstrapFor returns the bootstrap address for node i: node 0's, or,
// when node i restarts after the first start (node 0 itself, say), the
// address of a node that runs now, so the restarted node finds the network
// again. It returns "" for node 0's first start. t.mu must be held.
func (t *Testnet) bootstrapFor(i int) string {
	if i > 0 && len(t.m.Nodes[0].Addrs) > 0 && (len(t.m.Nodes[i].Addrs) == 0 || alive(t.m.Nodes[0].PID, t.m.Nodes[0].DataDir)) {
		return bootstrapAddr(t.m.Nodes[0].Addrs)
	}
	if len(t.m.Nodes[i].Addrs) == 0 {
		return ""
	}
	for j, n := range t.m.Nodes {
		if j != i && len(n.Addrs) > 0 && alive(n.PID, n.DataDir) {
			return bootstrapAddr(n.Addrs)
		}
	}
	return ""
}

// bootstrapAddr picks the address others dial: TCP first, for a
// deterministic first connection.
func bootstrapAddr(addrs []string) string {
	for _, a := range addrs {
		if strings.Contains(a, "/tcp/") && !strings.Contains(a, "/ws") {
			return a
		}
	}
	return addrs[0]
}

// launch starts node i's process and records its pid.
func (t *Testnet) launch(i int) error {
	args := t.runArgs(i)
	t.mu.Lock()
	n := t.m.Nodes[i]
	bin, env := t.m.Binary, t.m.Env
	t.mu.Unlock()
	// A node killed hard leaves its api file behind; never read a stale one.
	_ = os.Remove(filepath.Join(n.DataDir, apiFileName))
	pid, err := launch(bin, args, env, n.Log)
	if err != nil {
		return fmt.Errorf("node %d: %w", i, err)
	}
	t.cfg.logger.Debug("node launched", "node", i, "pid", pid, "args", marshalArgs(args))
	t.mu.Lock()
	t.m.Nodes[i].PID = pid
	t.m.Nodes[i].Args = args
	t.mu.Unlock()
	return nil
}

// waitReady waits until node i answers on its API with its own agent id,
// then records its API URL and listen addresses.
func (t *Testnet) waitReady(ctx context.Context, i int) (*NodeStatus, error) {
	n, err := t.node(i)
	if err != nil {
		return nil, err
	}
	var (
		st      *NodeStatus
		lastErr error
		died    bool
	)
	err = poll(ctx, t.cfg.startTimeout, func() bool {
		if !alive(n.PID, n.DataDir) {
			died = true
			return true
		}
		base := readAPIFile(n.DataDir)
		if base == "" {
			lastErr = errors.New("no API address published yet")
			return false
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		s, err := t.api.status(cctx, base)
		if err != nil {
			lastErr = err
			return false
		}
		if s.AgentID != n.AgentID {
			lastErr = fmt.Errorf("API answers as %s, want %s", s.AgentID, n.AgentID)
			return false
		}
		st = s
		t.mu.Lock()
		t.m.Nodes[i].API = base
		t.m.Nodes[i].Addrs = append([]string(nil), s.Addrs...)
		if s.PeerID != "" {
			t.m.Nodes[i].PeerID = s.PeerID
		}
		t.mu.Unlock()
		return true
	})
	switch {
	case died:
		return nil, fmt.Errorf("%w: node %d (process %d) exited during start%s", ErrNodeDown, i, n.PID, logTail(n.Log, 2048))
	case err != nil:
		return nil, fmt.Errorf("node %d did not come up: %w (last: %v)%s", i, err, lastErr, logTail(n.Log, 2048))
	}
	return st, nil
}

// WaitPropagation polls every node until each holds at least as many cards
// as the testnet has nodes, or timeout passes. It returns the time since
// the first node was started (since the call for a testnet found with
// Open). On timeout the error names every node that lags and what it lacks.
func (t *Testnet) WaitPropagation(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	t.mu.Lock()
	start := t.start
	t.mu.Unlock()
	if start.IsZero() {
		start = time.Now()
	}
	nodes := t.Nodes()
	n := len(nodes)
	held := make([]int, n)
	done := make([]bool, n)
	lastErr := make([]error, n)
	var finished time.Time
	check := func() bool {
		var wg sync.WaitGroup
		for i, nd := range nodes {
			if done[i] {
				continue
			}
			wg.Go(func() {
				base := readAPIFile(nd.DataDir)
				if base == "" {
					lastErr[i] = fmt.Errorf("%w: no API address", ErrNodeDown)
					return
				}
				cctx, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				st, err := t.api.status(cctx, base)
				if err != nil {
					lastErr[i] = err
					return
				}
				lastErr[i] = nil
				held[i] = st.Cards
				done[i] = st.Cards >= n
			})
		}
		wg.Wait()
		now := time.Now()
		complete, cards := 0, 0
		for i := range n {
			cards += min(held[i], n)
			if done[i] {
				complete++
			}
		}
		t.progress(Progress{Phase: PhasePropagate, Done: complete, Total: n, Cards: cards, Elapsed: now.Sub(start)})
		if complete == n {
			finished = now
			return true
		}
		return false
	}
	deadline := time.Now().Add(timeout)
	for !check() {
		if time.Now().After(deadline) {
			return 0, t.laggards(ctx, nodes, held, lastErr, timeout)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(statusPoll):
		}
	}
	return finished.Sub(start), nil
}

// laggards builds the propagation timeout error: every node that lacks
// cards, with the names of the cards it lacks when it can tell.
func (t *Testnet) laggards(ctx context.Context, nodes []NodeInfo, held []int, lastErr []error, timeout time.Duration) error {
	n := len(nodes)
	var b strings.Builder
	late := 0
	for i, nd := range nodes {
		if held[i] >= n {
			continue
		}
		late++
		fmt.Fprintf(&b, "\n  node %d (%s): ", i, nd.Name)
		if lastErr[i] != nil {
			fmt.Fprintf(&b, "%v; log %s", lastErr[i], nd.Log)
			continue
		}
		fmt.Fprintf(&b, "holds %d/%d cards", held[i], n)
		if missing := t.missing(ctx, i, nodes); len(missing) > 0 {
			fmt.Fprintf(&b, ", lacks %s", strings.Join(missing, ", "))
		}
	}
	return fmt.Errorf("%w: after %v, %d of %d nodes do not hold every card:%s", ErrTimeout, timeout, late, n, b.String())
}

// missing lists the names of the testnet's cards node i does not hold.
func (t *Testnet) missing(ctx context.Context, i int, nodes []NodeInfo) []string {
	ids, err := t.heldIDs(ctx, i)
	if err != nil {
		return nil
	}
	var out []string
	for j, nd := range nodes {
		if !ids[nd.AgentID] {
			out = append(out, fmt.Sprintf("node %d (%s)", j, nd.Name))
		}
	}
	sort.Strings(out)
	return out
}
