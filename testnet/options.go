package testnet

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/adpnode/adpnode/node"
)

// Defaults of a testnet.
const (
	// MaxNodes bounds the node count of one testnet.
	MaxNodes = 200
	// DefaultTimeout bounds the wait for full card propagation.
	DefaultTimeout = 60 * time.Second
	// DefaultStartTimeout bounds the wait for one node process to answer on
	// its API after it was launched.
	DefaultStartTimeout = 30 * time.Second
	// DefaultStopTimeout is how long Down waits after SIGTERM before it
	// sends SIGKILL.
	DefaultStopTimeout = 10 * time.Second
	// statusPoll is how often propagation is checked on each node.
	statusPoll = 50 * time.Millisecond
)

type config struct {
	directories  int
	binary       string
	timeout      time.Duration
	startTimeout time.Duration
	stopTimeout  time.Duration
	progress     func(Progress)
	env          []string
	args         []string
	listen       []string
	logger       *slog.Logger
	nodeConfig   func(i int, cfg *node.Config)
	baseDir      string
}

func newConfig(opts []Option) (config, error) {
	c := config{
		timeout:      DefaultTimeout,
		startTimeout: DefaultStartTimeout,
		stopTimeout:  DefaultStopTimeout,
		logger:       slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Option configures Up and NewInProcess. Options that only make sense for
// one of them say so and are ignored by the other.
type Option func(*config) error

// WithDirectories makes nodes 1..k directory peers (default 0).
func WithDirectories(k int) Option {
	return func(c *config) error {
		if k < 0 {
			return fmt.Errorf("%w: %d directories", ErrBadConfig, k)
		}
		c.directories = k
		return nil
	}
}

// WithBinary sets the adpnode executable that Up copies into DIR/bin and
// runs (default: the running executable). Up only.
func WithBinary(path string) Option {
	return func(c *config) error { c.binary = path; return nil }
}

// WithTimeout bounds the wait until every node holds every card (default
// DefaultTimeout).
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: timeout %v", ErrBadConfig, d)
		}
		c.timeout = d
		return nil
	}
}

// WithStartTimeout bounds the wait for each node to come up (default
// DefaultStartTimeout).
func WithStartTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: start timeout %v", ErrBadConfig, d)
		}
		c.startTimeout = d
		return nil
	}
}

// WithStopTimeout sets how long a stop waits after SIGTERM before SIGKILL
// (default DefaultStopTimeout). Up only.
func WithStopTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: stop timeout %v", ErrBadConfig, d)
		}
		c.stopTimeout = d
		return nil
	}
}

// WithProgress receives progress reports while Up and NewInProcess wait.
// The function is called from the waiting goroutine and must not block.
func WithProgress(f func(Progress)) Option {
	return func(c *config) error { c.progress = f; return nil }
}

// WithEnv adds KEY=VALUE pairs to every node process's environment, for
// example GOMEMLIMIT or GOGC. Up only.
func WithEnv(kv ...string) Option {
	return func(c *config) error {
		for _, x := range kv {
			if k, _, ok := strings.Cut(x, "="); !ok || k == "" {
				return fmt.Errorf("%w: environment entry %q is not KEY=VALUE", ErrBadConfig, x)
			}
		}
		c.env = append(c.env, kv...)
		return nil
	}
}

// WithNodeArgs adds arguments to every `adpnode run` command line. Up only.
func WithNodeArgs(args ...string) Option {
	return func(c *config) error { c.args = append(c.args, args...); return nil }
}

// DefaultListen is where the nodes of a process testnet listen unless
// WithListen says otherwise: loopback TCP on a port picked by the system.
// QUIC is left out: on loopback it buys nothing and costs each node about
// 10 MB of resident memory and part of its start-up CPU (measured with 20
// nodes; see the README).
var DefaultListen = []string{"/ip4/127.0.0.1/tcp/0"}

// DefaultNodeEnv is added to every node process's environment before the
// WithEnv pairs (a later pair for the same key wins).
//
// GOMAXPROCS=1: a testnet runs many small nodes on few cores; one P per
// node cuts scheduler and collector threads. Measured with 20 nodes on 2
// cores (load average 45 to 60 from other builds), seven runs each: median
// full propagation 2.6 s against 3.0 s, mean RSS 50 MB against 55 MB.
//
// ADPNODE_SMALL_MEMORY asks the node for small Badger memtables and caches
// (node.Config.SmallMemory). Measured with 20 nodes under a minute of
// discovery and invocation load: Badger's default buffers, allocated but
// mostly untouched, inflate the Go heap to about 110 MB, so the collector
// waits for about as much garbage again, and the mean RSS grew from 48 MB
// to 125 MB; with small buffers it stayed at 52 MB. A node that does not
// read the variable ignores it.
//
// GOGC=50: the collector runs when the heap has grown by half its live
// size instead of all of it. A testnet node holds about 10 MB of live heap
// (docs/operations.md), so the default let 10 MB of garbage sit in each of
// the 20 processes. Measured with 20 nodes on 2 cores (load average 11 to
// 18 from other builds), three runs each, 20 s after up: mean RSS 58.7 to
// 59.8 MB against 54.0 to 54.2 MB, the largest node 61.5 to 62.1 MB against
// 55.0 to 55.7 MB, mean PSS 27.2 to 28.5 MB against 22.7 to 23.0 MB. The
// price is collector CPU: four paired runs (load 12 to 18) had the 20
// nodes use 9.05 s of CPU on average until full propagation against 8.58
// s (5% more) and reach it in 3.7 to 4.7 s against 3.4 to 5.1 s; their
// CPU in the 10 s after it grew by 6 to 11%.
var DefaultNodeEnv = []string{"GOMAXPROCS=1", "ADPNODE_SMALL_MEMORY=1", "GOGC=50"}

// WithListen sets the libp2p listen multiaddrs of every node (default
// DefaultListen for processes, DefaultInProcessListen in process).
func WithListen(addrs ...string) Option {
	return func(c *config) error { c.listen = append([]string(nil), addrs...); return nil }
}

// WithLogger receives the testnet's own logs (default: discarded). In
// process, the nodes log there too.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l != nil {
			c.logger = l
		}
		return nil
	}
}

// WithNodeConfig lets the caller adjust each node's configuration before it
// is built. NewInProcess only.
func WithNodeConfig(f func(i int, cfg *node.Config)) Option {
	return func(c *config) error { c.nodeConfig = f; return nil }
}

// WithBaseDir puts the nodes' data directories under dir (for example a
// test's t.TempDir()) instead of a fresh temporary directory that Close
// removes. NewInProcess only.
func WithBaseDir(dir string) Option {
	return func(c *config) error { c.baseDir = dir; return nil }
}

// Phase is a stage of bringing a testnet up.
type Phase string

// Phases reported through WithProgress.
const (
	PhaseInit      Phase = "init"      // creating keys and signed cards
	PhaseStart     Phase = "start"     // launching nodes and waiting for their APIs
	PhasePropagate Phase = "propagate" // waiting until every node holds every card
)

// Progress is a report while a testnet comes up.
type Progress struct {
	Phase Phase
	// Done of Total nodes have finished the phase (for PhasePropagate: hold
	// every card).
	Done, Total int
	// Cards is the number of cards held over all nodes, out of Total*Total
	// (PhasePropagate only).
	Cards int
	// Elapsed is the time since the first node was started (0 before).
	Elapsed time.Duration
}
