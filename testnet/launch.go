package testnet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adpnode/adpnode/node/httpapi"
)

// runArgs builds node i's `adpnode run` command line.
func (t *Testnet) runArgs(i int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.m.Nodes[i]
	args := []string{"run", "--data-dir", n.DataDir, "--api", "127.0.0.1:0", "--demo-agent",
		"--testnet-peers", filepath.Join(t.dir, PeersFile)}
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
	_ = os.Remove(httpapi.APIFile(n.DataDir))
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
	err = pollCond(ctx, t.cfg.startTimeout, func() bool {
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
