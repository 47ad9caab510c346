package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/testnet"
)

// defaultTestnetDir is where `adpnode testnet` keeps its testnet unless
// --dir says otherwise (git-ignored).
const defaultTestnetDir = ".testnet"

func newTestnetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testnet",
		Short: "Run a local testnet of adpnode processes on 127.0.0.1",
		Long: `Run a local testnet: N adpnode processes on 127.0.0.1, each with a distinct
agent card from a bundled set, one bootstrap peer and optional directory peers.

  adpnode testnet up -n 5          start 5 nodes and wait until every node holds every card
  adpnode testnet status           per node: up or down, cards held, peers, memory
  adpnode testnet discover --tags vision/ocr
  adpnode testnet down             stop every node and remove the testnet directory`,
	}
	var dir string
	cmd.PersistentFlags().StringVar(&dir, "dir", defaultTestnetDir, "testnet directory")
	cmd.AddCommand(
		newTestnetUpCmd(&dir),
		newTestnetStatusCmd(&dir),
		newTestnetDiscoverCmd(&dir),
		newTestnetRestartCmd(&dir),
		newTestnetDownCmd(&dir),
	)
	return cmd
}

func newTestnetUpCmd(dir *string) *cobra.Command {
	var (
		n, dirs               int
		timeout, startTO      time.Duration
		env, nodeArgs, listen []string
		quiet                 bool
	)
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a testnet and return with its nodes running",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := []testnet.Option{
				testnet.WithDirectories(dirs),
				testnet.WithTimeout(timeout),
				testnet.WithStartTimeout(startTO),
				testnet.WithEnv(env...),
				testnet.WithNodeArgs(nodeArgs...),
			}
			if len(listen) > 0 {
				opts = append(opts, testnet.WithListen(listen...))
			}
			if !quiet {
				opts = append(opts, testnet.WithProgress(tnProgressPrinter(cmd.ErrOrStderr())))
			}
			tn, err := testnet.Up(ctx, *dir, n, opts...)
			if !quiet {
				fmt.Fprintln(cmd.ErrOrStderr())
			}
			if err != nil {
				return err
			}
			defer tn.Close()
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				return writeJSONLine(cmd.OutOrStdout(), tnUpJSONOf(tn))
			}
			return tnPrintUp(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), tn, *dir)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&n, "nodes", "n", 5, fmt.Sprintf("number of nodes (1..%d)", testnet.MaxNodes))
	f.IntVar(&dirs, "directories", 0, "number of directory peers (nodes 1..K)")
	f.DurationVar(&timeout, "timeout", testnet.DefaultTimeout, "how long to wait until every node holds every card")
	f.DurationVar(&startTO, "start-timeout", testnet.DefaultStartTimeout, "how long to wait for each node's API")
	f.StringArrayVar(&env, "node-env", nil, "KEY=VALUE added to every node's environment (repeatable), e.g. GOGC=50")
	f.StringArrayVar(&nodeArgs, "node-arg", nil, "argument added to every node's adpnode run command line (repeatable)")
	f.StringArrayVar(&listen, "listen", nil, "libp2p listen multiaddr of every node (repeatable; default "+strings.Join(testnet.DefaultListen, " ")+")")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

// tnProgressPrinter renders progress on w: one line rewritten in place on
// a terminal; otherwise a line when a phase starts or ends and at most one a
// second in between.
func tnProgressPrinter(w io.Writer) func(testnet.Progress) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	var (
		mu        sync.Mutex
		lastPhase testnet.Phase
		lastLine  time.Time
	)
	return func(p testnet.Progress) {
		mu.Lock()
		defer mu.Unlock()
		var line string
		switch p.Phase {
		case testnet.PhaseInit:
			line = fmt.Sprintf("init:      %d/%d keys and signed cards", p.Done, p.Total)
		case testnet.PhaseStart:
			line = fmt.Sprintf("start:     %d/%d nodes answering (%s)", p.Done, p.Total, tnRound(p.Elapsed))
		case testnet.PhasePropagate:
			line = fmt.Sprintf("propagate: %d/%d nodes hold every card, %d/%d cards (%s)",
				p.Done, p.Total, p.Cards, p.Total*p.Total, tnRound(p.Elapsed))
		}
		now := time.Now()
		newPhase := p.Phase != lastPhase
		switch {
		case tty && newPhase && lastPhase != "":
			fmt.Fprintf(w, "\n%s", line)
		case tty:
			fmt.Fprintf(w, "\r\033[K%s", line)
		case newPhase || p.Done == p.Total || now.Sub(lastLine) >= time.Second:
			fmt.Fprintln(w, line)
			lastLine = now
		}
		lastPhase = p.Phase
	}
}

func tnRound(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}

// printUp prints the summary of a fresh testnet: timings, the node table
// and one sample discovery.
func tnPrintUp(ctx context.Context, w, errw io.Writer, tn *testnet.Testnet, dir string) error {
	r := tn.Report()
	nodes := tn.Nodes()
	fmt.Fprintf(w, "testnet of %d nodes running in %s\n", r.Nodes, tn.Dir())
	fmt.Fprintf(w, "full propagation: every node holds all %d cards %s after the first node started (last node started at %s, all APIs up at %s)\n\n",
		r.Nodes, tnRound(r.Propagated), tnRound(r.LastStarted), tnRound(r.Ready))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tROLE\tNAME\tSKILLS\tAPI\tAGENT")
	for _, n := range nodes {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", n.Index, tnRole(n), termtext.Escape(n.Name), termtext.Escape(strings.Join(n.Skills, ",")), termtext.Escape(n.API), termtext.Escape(n.AgentID))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// One discovery to show the network works end to end: ask node 0 for
	// the first skill of the last node's card.
	last := nodes[len(nodes)-1]
	if len(last.Skills) > 0 {
		req := &adp.DiscoverRequest{Tags: []string{last.Skills[0]}, Limit: 5}
		fmt.Fprintf(w, "\nsample discovery on node 0 (scope network): tags=%s\n", termtext.Escape(last.Skills[0]))
		resp, err := tn.Discover(ctx, 0, req, "network")
		if err != nil {
			return fmt.Errorf("sample discovery: %w", err)
		}
		tnPrintResults(w, errw, resp)
	}
	flag := ""
	if dir != defaultTestnetDir {
		flag = " --dir " + dir
	}
	if nodes[0].API != "" {
		fmt.Fprintf(w, "\nweb view of node 0: %s\n", termtext.Escape(viewURL(nodes[0].API)))
	}
	fmt.Fprintf(w, "\nnext: adpnode testnet status%s | adpnode testnet discover%s --query 'translate a contract' | adpnode testnet down%s\n", flag, flag, flag)
	return nil
}

// tnUpJSON is the --json answer of adpnode testnet up: where the testnet
// lives, how long it took, and each node with its URLs.
type tnUpJSON struct {
	Dir          string         `json:"dir"`
	ReadyMS      int64          `json:"ready_ms"`
	PropagatedMS int64          `json:"propagated_ms"`
	Nodes        []tnUpNodeJSON `json:"nodes"`
}

type tnUpNodeJSON struct {
	Index   int      `json:"index"`
	Role    string   `json:"role"`
	Name    string   `json:"name"`
	AgentID string   `json:"agent_id"`
	PeerID  string   `json:"peer_id,omitempty"`
	Skills  []string `json:"skills"`
	API     string   `json:"api_url"`
	WebView string   `json:"web_url"`
	Addrs   []string `json:"addrs"`
}

func tnUpJSONOf(tn *testnet.Testnet) tnUpJSON {
	r := tn.Report()
	out := tnUpJSON{Dir: tn.Dir(), ReadyMS: r.Ready.Milliseconds(), PropagatedMS: r.Propagated.Milliseconds(), Nodes: []tnUpNodeJSON{}}
	for _, n := range tn.Nodes() {
		j := tnUpNodeJSON{Index: n.Index, Role: tnRole(n), Name: n.Name, AgentID: n.AgentID, PeerID: n.PeerID,
			Skills: append([]string{}, n.Skills...), API: n.API, Addrs: append([]string{}, n.Addrs...)}
		if n.API != "" {
			j.WebView = viewURL(n.API)
		}
		out.Nodes = append(out.Nodes, j)
	}
	return out
}

func tnRole(n testnet.NodeInfo) string {
	switch {
	case n.Bootstrap:
		return "bootstrap"
	case n.Directory:
		return "directory"
	default:
		return "peer"
	}
}

// tnPrintResults writes a discovery's results as a table to w and its
// warnings, one per line, to errw.
func tnPrintResults(w, errw io.Writer, resp *adp.DiscoverResponse) {
	defer printWarnings(errw, resp.Warnings)
	if len(resp.Results) == 0 {
		fmt.Fprintln(w, "  no results")
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  SCORE\tNAME\tMATCHED\tAGENT")
	for _, r := range resp.Results {
		fmt.Fprintf(tw, "  %.3f\t%s\t%s\t%s\n", r.Score, termtext.Escape(r.Name), termtext.Escape(strings.Join(r.MatchedTags, ",")), termtext.Escape(r.ID))
	}
	_ = tw.Flush()
}

func newTestnetStatusCmd(dir *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each node: up or down, cards held, peers, memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tn, err := testnet.Open(*dir)
			if err != nil {
				return err
			}
			defer tn.Close()
			states := tn.Status(cmd.Context())
			w := cmd.OutOrStdout()
			if asJSON {
				return tnWriteJSON(w, tnStatusJSON(states))
			}
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "#\tSTATE\tPID\tCARDS\tPEERS\tRSS\tPSS\tNAME\tAPI")
			up := 0
			var rssSum, pssSum int64
			for _, s := range states {
				state, cards, peers, rss, pss := "down", "-", "-", "-", "-"
				if s.Up {
					up++
					state = "up"
					rss, pss = tnMB(s.RSS), tnMB(s.PSS)
					rssSum += s.RSS
					pssSum += s.PSS
				}
				if s.Status != nil {
					cards, peers = fmt.Sprint(s.Status.Cards), fmt.Sprint(s.Status.Peers)
				} else if s.Up {
					state = "starting"
				}
				fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Index, state, s.PID, cards, peers, rss, pss, termtext.Escape(s.Name), termtext.Escape(s.API))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(w, "%d of %d nodes up (%s)", up, len(states), tn.Dir())
			if up > 0 {
				fmt.Fprintf(w, "; mean RSS %s, mean PSS %s (PSS shares the executable's pages among the nodes)", tnMB(rssSum/int64(up)), tnMB(pssSum/int64(up)))
			}
			fmt.Fprintln(w)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// tnMB formats a byte count in megabytes (10^6).
func tnMB(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

type tnNodeStateJSON struct {
	testnet.NodeInfo
	Up     bool                `json:"up"`
	RSS    int64               `json:"rss_bytes"`
	PSS    int64               `json:"pss_bytes"`
	Status *testnet.NodeStatus `json:"status,omitempty"`
	Error  string              `json:"error,omitempty"`
}

func tnStatusJSON(states []testnet.NodeState) []tnNodeStateJSON {
	out := make([]tnNodeStateJSON, len(states))
	for i, s := range states {
		out[i] = tnNodeStateJSON{NodeInfo: s.NodeInfo, Up: s.Up, RSS: s.RSS, PSS: s.PSS, Status: s.Status}
		if s.Err != nil {
			out[i].Error = s.Err.Error()
		}
	}
	return out
}

func newTestnetDiscoverCmd(dir *string) *cobra.Command {
	var (
		node     int
		tags     []string
		query    string
		limit    int
		scope    string
		evidence bool
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "discover",
		Short: "Run a discovery on one node of the testnet",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(tags) == 0 && query == "" {
				return fmt.Errorf("give --tags or --query")
			}
			tn, err := testnet.Open(*dir)
			if err != nil {
				return err
			}
			defer tn.Close()
			req := &adp.DiscoverRequest{Tags: tags, Query: query, Limit: limit, IncludeEvidence: evidence}
			path := "/v1/discover"
			if scope != "" {
				path += "?scope=" + url.QueryEscape(scope)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				var raw json.RawMessage
				if err := tn.API(cmd.Context(), node, http.MethodPost, path, req, &raw); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "%s\n", bytes.TrimSpace(termtext.EscapeJSON(raw)))
				return err
			}
			resp, err := tn.Discover(cmd.Context(), node, req, scope)
			if err != nil {
				return err
			}
			tnPrintResults(w, cmd.ErrOrStderr(), resp)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&node, "node", 0, "index of the node that runs the discovery")
	f.StringSliceVar(&tags, "tags", nil, "skill tags, e.g. nlp/translation,vision/*")
	f.StringVar(&query, "query", "", "free-text query")
	f.IntVar(&limit, "limit", 10, "maximum number of results")
	f.StringVar(&scope, "scope", "network", "local (the node's own store) or network")
	f.BoolVar(&evidence, "evidence", false, "ask for score components and matched examples")
	f.BoolVar(&asJSON, "json", false, "print the node's JSON answer")
	return cmd
}

func newTestnetRestartCmd(dir *string) *cobra.Command {
	var node int
	cmd := &cobra.Command{
		Use:   "restart",
		Short: "Stop one node and start it again on the same addresses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tn, err := testnet.Open(*dir)
			if err != nil {
				return err
			}
			defer tn.Close()
			if err := tn.StopNode(cmd.Context(), node); err != nil {
				return err
			}
			if err := tn.StartNode(cmd.Context(), node); err != nil {
				return err
			}
			u, err := tn.APIURL(node)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "node %d restarted, API %s\n", node, u)
			return nil
		},
	}
	cmd.Flags().IntVar(&node, "node", 0, "index of the node to restart")
	return cmd
}

func newTestnetDownCmd(dir *string) *cobra.Command {
	var (
		keep   bool
		stopTO time.Duration
	)
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop every node (SIGTERM, then SIGKILL) and remove the testnet directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tn, err := testnet.Open(*dir, testnet.WithStopTimeout(stopTO))
			if err != nil {
				return err
			}
			if err := tn.Down(cmd.Context(), keep); err != nil {
				return err
			}
			what := "removed"
			if keep {
				what = "kept"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stopped %d nodes; %s %s\n", tn.Len(), what, tn.Dir())
			return nil
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the testnet directory (data and logs)")
	cmd.Flags().DurationVar(&stopTO, "stop-timeout", testnet.DefaultStopTimeout, "wait this long after SIGTERM before SIGKILL")
	return cmd
}

func tnWriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(termtext.EscapeJSON(b), '\n'))
	return err
}
