package testnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
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
		hint := fmt.Errorf("the nodes were stopped; their logs are in %s", filepath.Join(abs, NodeDirPrefix+"*", LogFile))
		return nil, errors.Join(err, stopErr, hint)
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
