package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/didwba"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/a2aserver"
	"github.com/adpnode/adpnode/node/arrivals"
	"github.com/adpnode/adpnode/node/cardsync"
	"github.com/adpnode/adpnode/node/config"
	"github.com/adpnode/adpnode/node/datadir"
	"github.com/adpnode/adpnode/node/directories"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/federation"
	"github.com/adpnode/adpnode/node/greeting"
	"github.com/adpnode/adpnode/node/indexfeed"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/invoke"
	"github.com/adpnode/adpnode/node/join"
	"github.com/adpnode/adpnode/node/limits"
	"github.com/adpnode/adpnode/node/liveness"
	"github.com/adpnode/adpnode/node/mcpserver"
	"github.com/adpnode/adpnode/node/metrics"
	"github.com/adpnode/adpnode/node/netview"
	"github.com/adpnode/adpnode/node/owncard"
	"github.com/adpnode/adpnode/node/peering"
	"github.com/adpnode/adpnode/node/probe"
	"github.com/adpnode/adpnode/node/publichttp"
	"github.com/adpnode/adpnode/node/toolserver"
	"github.com/adpnode/adpnode/node/webreg"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/store"
)

// Node is one adpnode: a libp2p host carrying the agent's signed card,
// the card store, the DHT, the gossip topic, the invocation layer, the
// discovery index and the HTTP API. One node hosts one agent.
//
// Lifecycle: New builds everything (and tears down what it built when it
// fails); Start connects, publishes the card and starts the background
// loops and the API; Close stops everything in order and waits for every
// goroutine the node started. A Node is safe for concurrent use.
type Node struct {
	limits  *limits.Limits
	cfg     Config
	log     *slog.Logger
	sk      crypto.PrivKey
	self    peer.ID
	agentID string
	metrics *metrics.Metrics

	store  *store.Store
	intake *intake.Intake // every card from outside enters the store here
	host   host.Host
	reach  *p2phost.ReachWatch
	server *aitp.Server
	client *aitp.Client
	a2a    *a2aclient.Client // calls agents whose card lists an A2A endpoint
	invoke *invoke.Caller    // calls other agents' tools (calls.go)
	webReg *webreg.Registry  // a directory's web registrations (catalog.go); nil otherwise
	dht    *dht.DHT
	gossip *gossip.Gossip
	index  *discovery.Discovery
	// federation answers network-scope discoveries (federation.go).
	federation *federation.Search
	// dirs are the directory peers known, which the node advertises to.
	dirs  *directories.Book
	live  *liveness.Tracker // connections, sightings and failed calls per agent
	did   *didwba.Identity  // the did:wba identity and the domain checks of cards
	agent toolAgent
	tools *toolserver.Tools // the card's tools, served to peers and to CallTool
	// arrivals records the first arrival of each card version (and the
	// own card's publications); netview answers GET /v1/network.
	arrivals *arrivals.Log
	netview  *netview.View
	// peering redials bootstrap and known peers for as long as the node runs.
	peering *peering.Peering
	// sync pulls newer cards from each peer the node connects to.
	sync *cardsync.Syncer
	// join dials the bootstrap peers at Start and announces the card once
	// the node has a peer.
	join *join.Joiner
	// feed keeps the index in step with the store and the node's
	// observations (calls, sightings, connections).
	feed *indexfeed.Feed
	// prober pings the top results of a discovery that asks for it.
	prober *probe.Prober

	// lifetime of the background loops, cancelled by Close.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// greeter sends the own card to each AITP peer once identified; it
	// listens from New on, so no peer the DHT dials is missed.
	greeter *greeting.Greeter

	// own holds the own card and makes its versions (package
	// node/owncard; card.go).
	own *owncard.Keeper

	mu          sync.Mutex
	httpSrv     *http.Server
	mcpSrv      *mcpserver.Lazy   // the MCP server at the API's /mcp, built on its first request
	a2aSrv      *a2aserver.Server // the A2A server, at the API's /a2a (every listener of the A2A card mounts this one)
	apiURL      string
	agentCardID string // AgentCard agent_id, from DataDir/agentcard-id
	publicSrv   *publichttp.Server
	publicURL   string
	started     bool
	closed      bool

	closeOnce sync.Once
	closeErr  error
}

// New builds a node from cfg. The data directory must have been set up by
// Init. On failure New closes whatever it had started.
func New(cfg Config) (_ *Node, err error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sk, err := datadir.LoadIdentity(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	self, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadIdentity, err)
	}
	card, err := datadir.LoadCard(cfg.DataDir, self)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Node{
		cfg:     cfg,
		log:     cfg.Logger,
		sk:      sk,
		self:    self,
		agentID: adp.AgentID(self),
		ctx:     ctx,
		cancel:  cancel,
		live:    liveness.New(liveness.WithClock(cfg.Clock)),
	}
	if n.own, err = n.newKeeper(card); err != nil {
		cancel()
		return nil, err
	}
	n.dirs = directories.New(self, nodeNet{n}, n.log)
	var closers []func() error
	defer func() {
		if err != nil {
			cancel()
			for i := len(closers) - 1; i >= 0; i-- {
				err = errors.Join(err, closers[i]())
			}
		}
	}()
	if n.did, err = newDIDIdentity(cfg.DIDWbaDomain, sk, n.agentID, cfg.A2AAllowPrivate, n.log); err != nil {
		return nil, err
	}
	n.metrics = metrics.New(func() int { return len(n.Peers()) }, func() int { return n.CardCount() }, scopeLocal, scopeNetwork)

	smetrics, err := store.NewPrometheusMetrics(n.metrics.Reg)
	if err != nil {
		return nil, fmt.Errorf("node: store metrics: %w", err)
	}
	sopts := []store.Option{store.WithLogger(n.log), store.WithDefaultTTL(cfg.CardTTL), store.WithMetrics(smetrics), store.WithMaxCards(cfg.MaxCards)}
	if cfg.Directory {
		sopts = append(sopts, store.WithNoEviction())
	}
	if cfg.SmallMemory {
		sopts = append(sopts, store.WithSmallMemory())
	}
	if n.store, err = store.Open(filepath.Join(cfg.DataDir, datadir.StoreDir), sopts...); err != nil {
		if errors.Is(err, store.ErrLocked) {
			return nil, fmt.Errorf("%w: another adpnode is running with data directory %s", ErrDataDirInUse, cfg.DataDir)
		}
		return nil, fmt.Errorf("node: open store: %w", err)
	}
	n.arrivals = arrivals.New()
	n.intake = intake.New(n.store, n.agentID, intake.OnKept(n.dirs.Note),
		intake.OnStored(func(c *adp.Card, from intake.From) { n.arrivals.Note(c.ID, seqOf(c), string(from.Source)) }))
	n.netview = netview.New(n, netview.WithPeersFile(cfg.TestnetPeers), netview.WithLogger(n.log))
	closers = append(closers, n.store.Close)
	if n.agentCardID, err = datadir.AgentCardID(cfg.DataDir, cfg.Clock()); err != nil {
		return nil, err
	}

	boot, err := bootstrapInfos(cfg.Bootstrap)
	if err != nil {
		return nil, err
	}
	reach, err := cfg.Reach.HostOptions(cfg.Listen, boot, cfg.Directory)
	if err != nil {
		return nil, err
	}
	if n.limits, err = limits.New(n.metrics.Reg, cfg.ChargeLoopback, cfg.ConnectionGater); err != nil {
		return nil, err
	}
	if n.host, err = openHost(sk, cfg, n.limits.Connect, []protocol.ID{aitp.ProtocolID}, reach...); err != nil {
		return nil, err
	}
	closers = append(closers, n.host.Close)
	if n.reach, err = p2phost.WatchReachability(n.host); err != nil {
		return nil, fmt.Errorf("node: subscribe to reachability: %w", err)
	}
	closers = append(closers, n.reach.Close)

	if n.agent, err = n.newAgent(); err != nil {
		return nil, err
	}
	if n.agent != nil {
		closers = append(closers, n.agent.Close)
	}

	// The server answers to the agent id: a message whose dst is empty or
	// this id is served (docs/protocol.md §2).
	if n.server, err = aitp.NewServer(n.host, aitp.WithLocalAddress(n.agentID),
		aitp.WithServerLogger(n.log), aitp.WithServerRegisterer(n.metrics.Reg)); err != nil {
		return nil, fmt.Errorf("node: aitp server: %w", err)
	}
	closers = append(closers, n.server.Close)
	n.tools = toolserver.New(toolserver.Config{Server: n.server, Card: n.Card, Demo: cfg.DemoAgent,
		Agent: n.agent, Served: n.metrics.Served, Self: self, Log: n.log})
	n.client = aitp.NewClient(n.host, aitp.WithClientLogger(n.log), aitp.WithClientRegisterer(n.metrics.Reg))
	closers = append(closers, n.client.Close)
	// The index and its feed exist before anything that hands the node
	// cards (the gossip topic, the DHT, the card sync): a card can arrive
	// as soon as a peer connects, and its sighting is pushed to the index.
	// The index's ranking signals are pushed by the feed, never pulled: a
	// search reads no store, and the index knows the exact contribution
	// of reputation, availability and rating for every agent without
	// signals, which bounds their scores for pruning.
	if n.index, err = discovery.New(discovery.WithLogger(n.log), discovery.WithClock(cfg.Clock),
		discovery.WithScoring(scoring.WithTags(cfg.Tags), scoring.WithAvailabilityWindow(2*cfg.GossipInterval))); err != nil {
		return nil, fmt.Errorf("node: discovery index: %w", err)
	}
	n.feed = indexfeed.New(indexfeed.Config{Store: n.store, Index: n.index, Live: n.live, Host: n.host,
		Breakers: n.client, Log: n.log, OnIndexed: n.dirs.Note, OnRemoved: n.dirs.Forget})
	n.a2a = a2aclient.New(a2aclient.WithPrivateAddresses(n.cfg.A2AAllowPrivate), a2aclient.WithLogger(n.log))
	if n.webReg, err = n.newWebRegistry(); err != nil {
		return nil, err
	}
	if n.webReg != nil {
		closers = append(closers, n.webReg.Close)
	}
	closers = append(closers, n.a2a.Close)
	if n.sync, err = n.newCardSync(); err != nil {
		return nil, err
	}
	closers = append(closers, n.sync.Close)

	// Subscribe to peer identification before the DHT dials its bootstrap
	// peers, so that the greeting reaches them too.
	if n.greeter, err = greeting.New(greeting.Config{Host: n.host, Protocol: aitp.ProtocolID,
		Seq: func() uint64 { return seqOf(n.Card()) }, Advertise: n.advertiseTo,
		Identified: n.sync.Connected, Behind: n.sync.Behind, Log: n.log}); err != nil {
		return nil, fmt.Errorf("node: subscribe to peer events: %w", err)
	}
	closers = append(closers, n.greeter.Close)

	if n.dht, err = dht.New(n.host,
		dht.Mode(cfg.Reach.DHTMode(cfg.Listen)),
		dht.BootstrapPeers(boot...),
		dht.RepublishInterval(cfg.RepublishInterval),
		dht.Logger(n.log),
		dht.WithChecker(n.intake.Checker()),
		dht.OnCard(n.onDHTCard),
		dht.WithPutLimit(n.limits.DHTPut),
		dht.Taxonomy(cfg.Tags),
		dht.Registerer(n.metrics.Reg),
	); err != nil {
		return nil, fmt.Errorf("node: dht: %w", err)
	}
	closers = append(closers, n.dht.Close)
	n.invoke = invoke.New(invoke.Config{Host: n.host, Client: n.client, A2A: n.a2a, Cards: n.store,
		Finder: n.dht, LearnAddrs: n.learnAddrs, Log: n.log})

	if n.peering, err = n.newPeering(boot); err != nil {
		return nil, err
	}
	closers = append(closers, n.peering.Close)

	if n.gossip, err = gossip.New(n.host, append([]gossip.Option{
		gossip.WithLimiter(n.limits.Gossip),
		gossip.WithChecker(n.intake.Checker()),
		gossip.Held(n.intake.Held),
		gossip.HoldsExactly(n.intake.HoldsExactly),
		gossip.OnCard(n.onGossipCard),
		gossip.OnRefresh(n.onGossipCard), // the same card again: the store renews its freshness
		gossip.RebroadcastInterval(cfg.GossipInterval),
		gossip.Logger(n.log),
		gossip.Registerer(n.metrics.Reg),
	}, cfg.GossipOptions...)...); err != nil {
		return nil, fmt.Errorf("node: gossip: %w", err)
	}
	closers = append(closers, n.gossip.Close)

	if n.join, err = n.newJoiner(boot); err != nil {
		return nil, err
	}
	n.federation = federation.New(nodeNet{n}, n.log)
	n.prober = probe.New(probe.Config{Self: n.agentID, Held: n.store.Held, Active: n.feed.Active, Ping: n.client.Ping, Heard: n.feed.Heard})
	n.registerMethods()
	return n, nil
}

func bootstrapInfos(addrs []string) ([]peer.AddrInfo, error) {
	var out []peer.AddrInfo
	for _, s := range addrs {
		ai, err := config.ParseBootstrap(s)
		if err != nil {
			return nil, fmt.Errorf("%w: bootstrap: %v", ErrInvalidConfig, err)
		}
		out = append(out, *ai)
	}
	return out, nil
}

// AgentID returns the node's agent id ("agent://k51...").
func (n *Node) AgentID() string { return n.agentID }

// PeerID returns the node's libp2p peer id.
func (n *Node) PeerID() peer.ID { return n.self }

// Host returns the node's libp2p host (for tests and tools that connect
// nodes directly). Do not close it.
func (n *Node) Host() host.Host { return n.host }

// Addrs returns the node's listen addresses as full multiaddrs ending in
// /p2p/<peer id>.
func (n *Node) Addrs() []ma.Multiaddr {
	addrs, err := peer.AddrInfoToP2pAddrs(&peer.AddrInfo{ID: n.self, Addrs: n.host.Addrs()})
	if err != nil {
		return nil
	}
	return addrs
}

// APIURL returns the HTTP API base URL, "" before Start or when disabled.
func (n *Node) APIURL() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.apiURL
}

// DataDir returns the node's data directory.
func (n *Node) DataDir() string { return n.cfg.DataDir }

// Directory reports whether the node is a directory peer.
func (n *Node) Directory() bool { return n.cfg.Directory }

// Card returns the node's own signed card (read only).
func (n *Node) Card() *adp.Card { return n.own.Card() }

// Peers returns the connected peers.
func (n *Node) Peers() []peer.ID { return n.host.Network().Peers() }

// CardCount returns the number of live cards held, the node's own included.
func (n *Node) CardCount() int { return n.store.Count() }

// CardPage returns at most limit of the live cards held, from offset in
// agent id order, and how many are held; the cards before offset are not
// read (store.CardsAt).
func (n *Node) CardPage(ctx context.Context, offset, limit int) ([]*store.Record, int, error) {
	var out []*store.Record
	if limit > 0 {
		err := n.store.CardsAt(ctx, offset, "", func(r *store.Record) bool {
			out = append(out, r)
			return len(out) < limit
		})
		if err != nil {
			return nil, 0, err
		}
	}
	return out, n.store.Count(), nil
}

// Cards returns every live card held.
func (n *Node) Cards(ctx context.Context) ([]*store.Record, error) {
	recs, _, err := n.CardPage(ctx, 0, math.MaxInt)
	return recs, err
}
