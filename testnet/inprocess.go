package testnet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node"
)

// DefaultInProcessListen is where in-process nodes listen: loopback TCP on
// a port picked by the system, as every host of the shared builder
// (internal/p2phost) does by default.
var DefaultInProcessListen = append([]string(nil), p2phost.DefaultListen...)

// Network is an in-process testnet: n node.Node instances in this process,
// on loopback TCP, with data directories on disk, built from the same
// bundled cards as a process testnet. Node 0 is the bootstrap peer, nodes
// 1..k are directory peers (WithDirectories). The HTTP API is off unless
// WithNodeConfig sets APIAddr. A Network is safe for concurrent use; Close
// closes every node and removes the data directories it created.
type Network struct {
	nodes   []*node.Node
	boot    []string // node 0's addresses, the others' bootstrap
	base    string
	ownBase bool
	cfg     config

	mu        sync.Mutex // guards nodes while they are built
	closeOnce sync.Once
	closeErr  error
}

// NewInProcess builds and starts n nodes: node 0 first, then the others,
// concurrently, bootstrapping from node 0. ctx bounds the start only. It
// does not wait for the cards to spread: call WaitPropagation. On failure
// it closes whatever it started.
func NewInProcess(ctx context.Context, n int, opts ...Option) (_ *Network, err error) {
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
	nw := &Network{cfg: cfg, base: cfg.baseDir, nodes: make([]*node.Node, n)}
	if nw.base == "" {
		if nw.base, err = os.MkdirTemp("", "adpnode-testnet-"); err != nil {
			return nil, fmt.Errorf("testnet: %w", err)
		}
		nw.ownBase = true
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, nw.Close())
		}
	}()
	cfg.logger.Debug("building in-process testnet", "nodes", n, "dir", nw.base)
	if cfg.progress != nil {
		cfg.progress(Progress{Phase: PhaseInit, Total: n})
	}
	start := time.Now()
	if nw.nodes[0], err = nw.build(0, nil); err != nil {
		return nil, err
	}
	if err := nw.nodes[0].Start(ctx); err != nil {
		return nil, fmt.Errorf("testnet: start node 0: %w", err)
	}
	boot := make([]string, 0, 2)
	for _, a := range nw.nodes[0].Addrs() {
		boot = append(boot, a.String())
	}
	nw.boot = boot
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 1; i < n; i++ {
		wg.Go(func() {
			nd, err := nw.build(i, boot)
			if err != nil {
				errs[i] = err
				return
			}
			nw.mu.Lock()
			nw.nodes[i] = nd
			nw.mu.Unlock()
			if err := nd.Start(ctx); err != nil {
				errs[i] = fmt.Errorf("testnet: start node %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := nw.writePeers(); err != nil {
		return nil, err
	}
	if cfg.progress != nil {
		cfg.progress(Progress{Phase: PhaseStart, Done: n, Total: n, Elapsed: time.Since(start)})
	}
	return nw, nil
}

// writePeers writes the peers file of the nodes that serve an API.
func (nw *Network) writePeers() error {
	apis := make([]string, 0, len(nw.nodes))
	for _, nd := range nw.Nodes() {
		if nd != nil && nd.APIURL() != "" {
			apis = append(apis, nd.APIURL())
		}
	}
	return writePeersFile(nw.base, apis)
}

// build initializes (once) and constructs node i.
func (nw *Network) build(i int, bootstrap []string) (*node.Node, error) {
	dataDir := filepath.Join(nw.base, NodeDirPrefix+strconv.Itoa(i))
	if _, err := os.Stat(filepath.Join(dataDir, "card.json")); err != nil {
		card, err := TemplateCard(i)
		if err != nil {
			return nil, err
		}
		if _, err := node.Init(dataDir, node.InitOptions{Card: card}); err != nil {
			return nil, fmt.Errorf("testnet: init node %d: %w", i, err)
		}
	}
	listen := nw.cfg.listen
	if len(listen) == 0 {
		listen = DefaultInProcessListen
	}
	cfg := node.Config{
		DataDir:     dataDir,
		Listen:      append([]string(nil), listen...),
		Bootstrap:   bootstrap,
		Directory:   i >= 1 && i <= nw.cfg.directories,
		DemoAgent:   true,
		SmallMemory: true,
		Logger:      nw.cfg.logger.With("node", i),
		// Read only by nodes whose API serves (WithNodeConfig sets
		// APIAddr).
		TestnetPeers: filepath.Join(nw.base, PeersFile),
	}
	if nw.cfg.nodeConfig != nil {
		nw.cfg.nodeConfig(i, &cfg)
	}
	nd, err := node.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("testnet: node %d: %w", i, err)
	}
	return nd, nil
}

// Stop closes node i and keeps its data directory, so that Restart can
// start it again; Node(i) is nil until then.
func (nw *Network) Stop(i int) error {
	nw.mu.Lock()
	nd := nw.nodes[i]
	nw.nodes[i] = nil
	nw.mu.Unlock()
	if nd == nil {
		return fmt.Errorf("%w: node %d is not running", ErrBadConfig, i)
	}
	if err := nd.Close(); err != nil {
		return fmt.Errorf("testnet: stop node %d: %w", i, err)
	}
	return nil
}

// Restart builds node i again on its data directory, with the bootstrap
// it had (none for node 0), and starts it. The node comes back with its
// identity, its cards and, where free, its listen ports.
func (nw *Network) Restart(ctx context.Context, i int) error {
	nw.mu.Lock()
	running := nw.nodes[i] != nil
	nw.mu.Unlock()
	if running {
		return fmt.Errorf("%w: node %d is running", ErrBadConfig, i)
	}
	var boot []string
	if i > 0 {
		boot = nw.boot
	}
	nd, err := nw.build(i, boot)
	if err != nil {
		return err
	}
	if err := nd.Start(ctx); err != nil {
		return errors.Join(fmt.Errorf("testnet: restart node %d: %w", i, err), nd.Close())
	}
	nw.mu.Lock()
	nw.nodes[i] = nd
	nw.mu.Unlock()
	return nw.writePeers() // its API may listen on another port now
}

// Len returns the node count.
func (nw *Network) Len() int { return len(nw.nodes) }

// Node returns node i, nil while it is stopped.
func (nw *Network) Node(i int) *node.Node {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.nodes[i]
}

// Nodes returns the nodes (a fresh slice).
func (nw *Network) Nodes() []*node.Node {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return append([]*node.Node(nil), nw.nodes...)
}

// Dir returns the directory holding the nodes' data directories.
func (nw *Network) Dir() string { return nw.base }

// WaitFor polls cond until it returns true or timeout passes (ErrTimeout).
func (nw *Network) WaitFor(cond func() bool, timeout time.Duration) error {
	return WaitFor(cond, timeout)
}

// WaitPropagation waits until every node holds at least as many cards as
// the network has nodes. On timeout the error names the nodes that lag.
func (nw *Network) WaitPropagation(timeout time.Duration) error {
	n := len(nw.nodes)
	err := WaitFor(func() bool {
		for _, nd := range nw.Nodes() {
			if nd == nil || nd.CardCount() < n {
				return false
			}
		}
		return true
	}, timeout)
	if err == nil {
		return nil
	}
	var late []string
	for i, nd := range nw.Nodes() {
		if nd == nil {
			late = append(late, fmt.Sprintf("node %d stopped", i))
		} else if c := nd.CardCount(); c < n {
			late = append(late, fmt.Sprintf("node %d holds %d/%d", i, c, n))
		}
	}
	return fmt.Errorf("%w: %v", err, late)
}

// Close closes every node, concurrently, and removes the data directories
// when NewInProcess created their parent. It is idempotent.
func (nw *Network) Close() error {
	nw.closeOnce.Do(func() {
		nodes := nw.Nodes()
		errs := make([]error, len(nodes))
		var wg sync.WaitGroup
		for i, nd := range nodes {
			if nd == nil {
				continue
			}
			wg.Go(func() {
				if err := nd.Close(); err != nil {
					errs[i] = fmt.Errorf("node %d: %w", i, err)
				}
			})
		}
		wg.Wait()
		if nw.ownBase {
			errs = append(errs, os.RemoveAll(nw.base))
		}
		nw.closeErr = errors.Join(errs...)
	})
	return nw.closeErr
}
