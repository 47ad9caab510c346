package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/adpnode/adpnode/node"
)

// runFlags are the flags of `adpnode run`; only flags set on the command
// line override the environment and the config file.
type runFlags struct {
	config, dataDir, api, agentURL, logLevel string
	publicHTTP, publicURL, publicA2A         string
	agentMCPCommand, agentMCPURL             string
	listen, bootstrap                        []string
	announce, noAnnounce, simPublic          []string
	publicProxies                            []string
	reachability, relayService, testnetPeers string
	didWbaDomain, pprof                      string
	noPortMap                                bool
	directory, demoAgent, smallMemory, mdns  bool
	a2aAllowPrivate                          bool
	gossipInterval                           time.Duration
	maxCards                                 int
}

func newRunCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run --data-dir DIR [--listen MULTIADDR ...] [--api 127.0.0.1:PORT] [--bootstrap MULTIADDR ...] [--directory]",
		Short: "Run a node until SIGINT or SIGTERM",
		Long: `Run the node of the agent initialised in DIR (see adpnode init).

Configuration comes from, in increasing precedence: defaults, a JSON
config file (--config or $ADPNODE_CONFIG; keys data_dir, listen, api,
public_http, public_url, public_trusted_proxies, public_a2a, bootstrap, directory, agent_url, agent_mcp_command, agent_mcp_url,
demo_agent, gossip_interval, republish_interval, card_ttl, max_cards, conn_low,
conn_high, small_memory, announce, no_announce, reachability,
relay_service, no_port_map, mdns, a2a_allow_private, did_wba_domain), the
environment (ADPNODE_DATA_DIR, ADPNODE_API, ADPNODE_LISTEN,
ADPNODE_BOOTSTRAP, ADPNODE_DIRECTORY, ADPNODE_AGENT_URL,
ADPNODE_AGENT_MCP_COMMAND, ADPNODE_AGENT_MCP_URL, ADPNODE_DEMO_AGENT,
ADPNODE_GOSSIP_INTERVAL, ADPNODE_SMALL_MEMORY, ADPNODE_MDNS,
ADPNODE_A2A_ALLOW_PRIVATE; lists comma separated) and flags.

An agent whose card lists an A2A JSON-RPC endpoint (protocol a2a, jsonrpc
or http+json) and no AITP one is invoked over A2A; endpoints are tried by
their priority, AITP first on a tie. Only public addresses are called
unless --a2a-allow-private; link-local and cloud metadata addresses never.
The same holds for the DID documents of did:wba DIDs the node resolves.

The node never gives up on the network: bootstrap peers are retried with
backoff for as long as it runs, the peers it met are kept in DIR/peers.json
and redialled when it has few connections, and the listen ports picked at
the first start (DIR/listen.json) are reused unless --listen names a port.

The HTTP API's base URL is written to DIR/api once it listens. The API
stays on loopback; --public-http ADDR serves, apart from it and to anyone,
a read-only server: the well-known documents (A2A, ADP, AgentCard, ANP,
agent.json) with caching headers, and a read-only web view. When the
node is up it prints its agent, listen addresses and API URL; with --json,
one JSON line: {"ready": true, "agent_id", "peer_id", "api_url", "listen"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := rf.buildConfig(cmd)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if rf.pprof != "" {
				p, err := startPprof(rf.pprof, cfg.Logger)
				if err != nil {
					return err
				}
				defer p.close()
			}
			return runNode(ctx, cmd, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&rf.config, "config", "", "JSON config file (default $ADPNODE_CONFIG)")
	f.StringVar(&rf.dataDir, "data-dir", "", "data directory (default $ADPNODE_DATA_DIR or ~/.adpnode)")
	f.StringArrayVar(&rf.listen, "listen", nil, "libp2p listen multiaddr, repeatable (default "+strings.Join(node.DefaultRunListen, " and ")+")")
	f.StringArrayVar(&rf.announce, "announce", nil, "announce only this multiaddr (relay addresses are kept), repeatable")
	f.StringArrayVar(&rf.noAnnounce, "no-announce", nil, "never announce this multiaddr (or subnet: /ip4/10.0.0.0/ipcidr/8), repeatable")
	f.StringVar(&rf.reachability, "reachability", node.ReachAuto, "reachability from the Internet: auto (AutoNAT decides), public or private")
	f.StringVar(&rf.relayService, "relay-service", node.ReachAuto, "circuit relay service: auto (on for --directory and nodes without --bootstrap), on or off")
	f.BoolVar(&rf.noPortMap, "no-port-map", false, "do not ask the gateway for a port mapping (UPnP, NAT-PMP)")
	f.StringArrayVar(&rf.simPublic, "simulate-public-subnet", nil, "TESTS ONLY: treat this private IPv4 subnet as public Internet addresses (network-namespace NAT tests), repeatable")
	f.StringVar(&rf.api, "api", node.DefaultAPIAddr, `HTTP API address on a loopback interface ("127.0.0.1:0" picks a port, "" disables)`)
	f.StringVar(&rf.publicHTTP, "public-http", "", `public read-only HTTP server address, any interface ("0.0.0.0:8080"; "" = off)`)
	f.StringVar(&rf.publicA2A, "public-a2a", "", `serve the A2A JSON-RPC server on --public-http at POST /a2a: "open" to anyone (rate limited), "didwba" to DIDWba-authenticated callers; "" = read-only`)
	f.StringVar(&rf.publicURL, "public-url", "", "base URL clients reach --public-http at (e.g. https://agents.example.com behind a proxy); default http:// and the request's Host")
	f.StringArrayVar(&rf.publicProxies, "public-trusted-proxy", nil, "a reverse proxy in front of --public-http (CIDR or address), repeatable: its requests count against the client its X-Forwarded-For names")
	f.StringArrayVar(&rf.bootstrap, "bootstrap", nil, "bootstrap peer multiaddr ending in /p2p/<peer id>, repeatable")
	f.BoolVar(&rf.directory, "directory", false, "run as a directory peer: keep every card and serve network discovery")
	f.StringVar(&rf.agentURL, "agent-url", "", "forward tool calls to this HTTP agent (POST <url>/<tool>)")
	f.StringVar(&rf.agentMCPCommand, "agent-mcp-command", "", `run this MCP server over stdio ("npx -y @scope/server arg"); its tools become the card's tools`)
	f.StringVar(&rf.agentMCPURL, "agent-mcp-url", "", "connect to this Streamable HTTP MCP server; its tools become the card's tools")
	f.BoolVar(&rf.demoAgent, "demo-agent", false, "serve the built-in demo tools (echo, wordcount, reverse)")
	f.BoolVar(&rf.mdns, "mdns", false, "find nodes on the local network by mDNS, with no bootstrap")
	f.BoolVar(&rf.a2aAllowPrivate, "a2a-allow-private", false, "let invoke call A2A endpoints, and did:wba DIDs resolve, on loopback and private addresses (never link-local or cloud metadata ones)")
	f.BoolVar(&rf.smallMemory, "small-memory", false, "shrink the card store's tables and caches (many nodes on one machine)")
	f.DurationVar(&rf.gossipInterval, "gossip-interval", node.DefaultGossipInterval, "re-broadcast interval of the own card")
	f.StringVar(&rf.didWbaDomain, "did-wba-domain", "", "give the agent the did:wba DID of this domain (example.com[:port][/path]): serve its DID document, put the DID on the card, authenticate as it to ANP services")
	f.StringVar(&rf.testnetPeers, "testnet-peers", "", "TESTNETS: file of the local API addresses of every node of this testnet (written by adpnode testnet); the web view then shows the whole testnet's connections")
	f.IntVar(&rf.maxCards, "max-cards", 0, fmt.Sprintf("most cards held; past it a new agent replaces a stale card or is refused, and new agents of one /24 or /48 share a tenth (0: %d, or %d with --directory)", node.DefaultMaxCards, node.DefaultDirectoryMaxCards))
	f.StringVar(&rf.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.StringVar(&rf.pprof, "pprof", "", `serve Go runtime profiles at /debug/pprof/ on this loopback address ("127.0.0.1:0" picks a port, logged at start; "" = off)`)
	return cmd
}

// config_ builds the node configuration: defaults < file < env < flags.
func (rf *runFlags) buildConfig(cmd *cobra.Command) (node.Config, error) {
	cfg := node.DefaultConfig()
	file := rf.config
	if file == "" {
		file = os.Getenv(EnvConfig)
	}
	if file != "" {
		if err := applyConfigFile(&cfg, file); err != nil {
			return cfg, err
		}
	}
	if err := applyEnv(&cfg, os.LookupEnv); err != nil {
		return cfg, err
	}
	f := cmd.Flags()
	if f.Changed("data-dir") {
		cfg.DataDir = rf.dataDir
	}
	if f.Changed("listen") {
		cfg.Listen = rf.listen
	}
	if f.Changed("api") {
		cfg.APIAddr = rf.api
	}
	if f.Changed("public-http") {
		cfg.PublicHTTP = rf.publicHTTP
	}
	if f.Changed("public-url") {
		cfg.PublicURL = rf.publicURL
	}
	if f.Changed("public-a2a") {
		cfg.PublicA2A = rf.publicA2A
	}
	if f.Changed("public-trusted-proxy") {
		cfg.PublicTrustedProxies = rf.publicProxies
	}
	if f.Changed("bootstrap") {
		cfg.Bootstrap = rf.bootstrap
	}
	if f.Changed("testnet-peers") {
		cfg.TestnetPeers = rf.testnetPeers
	}
	if f.Changed("directory") {
		cfg.Directory = rf.directory
	}
	if f.Changed("agent-url") {
		cfg.AgentURL = rf.agentURL
	}
	if f.Changed("agent-mcp-command") {
		cfg.AgentMCPCommand = rf.agentMCPCommand
	}
	if f.Changed("agent-mcp-url") {
		cfg.AgentMCPURL = rf.agentMCPURL
	}
	if f.Changed("demo-agent") {
		cfg.DemoAgent = rf.demoAgent
	}
	if f.Changed("mdns") {
		cfg.MDNS = rf.mdns
	}
	if f.Changed("a2a-allow-private") {
		cfg.A2AAllowPrivate = rf.a2aAllowPrivate
	}
	if f.Changed("did-wba-domain") {
		cfg.DIDWbaDomain = rf.didWbaDomain
	}
	if f.Changed("max-cards") {
		cfg.MaxCards = rf.maxCards
	}
	if f.Changed("small-memory") {
		cfg.SmallMemory = rf.smallMemory
	}
	if f.Changed("gossip-interval") {
		cfg.GossipInterval = rf.gossipInterval
	}
	rf.reachConfig(f, &cfg.Reach)
	if cfg.DataDir == "" {
		cfg.DataDir = defaultDataDir()
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(rf.logLevel)); err != nil {
		return cfg, fmt.Errorf("--log-level: %w", err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	return cfg, cfg.Validate()
}

// runNode runs a node until ctx ends, then shuts it down.
func runNode(ctx context.Context, cmd *cobra.Command, cfg node.Config) error {
	n, err := node.New(cfg)
	if err != nil {
		return err
	}
	if err := n.Start(ctx); err != nil {
		return errors.Join(err, n.Close())
	}
	if err := printReady(cmd, n); err != nil {
		return errors.Join(err, n.Close())
	}
	<-ctx.Done()
	cfg.Logger.Info("shutting down")
	return n.Close()
}

// reachConfig overlays the reachability flags that were set on r.
func (rf *runFlags) reachConfig(f *pflag.FlagSet, r *node.ReachConfig) {
	for _, l := range []struct {
		name string
		src  []string
		dst  *[]string
	}{{"announce", rf.announce, &r.Announce}, {"no-announce", rf.noAnnounce, &r.NoAnnounce}, {"simulate-public-subnet", rf.simPublic, &r.SimulatedPublic}} {
		if f.Changed(l.name) {
			*l.dst = l.src
		}
	}
	if f.Changed("reachability") {
		r.Reachability = rf.reachability
	}
	if f.Changed("relay-service") {
		r.RelayService = rf.relayService
	}
	if f.Changed("no-port-map") {
		r.NoPortMap = rf.noPortMap
	}
}

// readyJSON is the line `adpnode run --json` prints once the node is up.
type readyJSON struct {
	Ready   bool     `json:"ready"`
	AgentID string   `json:"agent_id"`
	PeerID  string   `json:"peer_id"`
	APIURL  string   `json:"api_url,omitempty"`
	Listen  []string `json:"listen"`
}

// printReady says that n is up: its agent, listen addresses and API, as
// lines or, with --json, as one JSON line.
func printReady(cmd *cobra.Command, n *node.Node) error {
	r := readyJSON{Ready: true, AgentID: n.AgentID(), PeerID: n.PeerID().String(), APIURL: n.APIURL(), Listen: []string{}}
	for _, a := range n.Addrs() {
		r.Listen = append(r.Listen, a.String())
	}
	out := cmd.OutOrStdout()
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
		return writeJSONLine(out, r)
	}
	fmt.Fprintf(out, "agent %s\n", r.AgentID)
	for _, a := range r.Listen {
		fmt.Fprintf(out, "listen %s\n", a)
	}
	if r.APIURL != "" {
		fmt.Fprintf(out, "api %s\n", r.APIURL)
	}
	return nil
}
