package nattest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/route"
)

// The simulated Internet: the public namespace's bridge subnet, counted as
// public by every node, and the LAN behind each router.
const (
	publicNet  = "172.30.0.0/24"
	relayIP    = "172.30.0.1"
	relayPort  = "4001"
	lanPrefix  = "192.168." // LAN i is 192.168.<i+1>.0/24
	routerWAN0 = 2          // router i's public address is 172.30.0.<routerWAN0+i>
)

// requireEnv fails under CI and skips elsewhere when the test cannot run.
func requireEnv(t *testing.T) {
	t.Helper()
	miss := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	if os.Geteuid() != 0 {
		miss("needs root to create network namespaces")
	}
	for _, tool := range []string{"ip", "nft", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			miss("needs %s: %v (install iproute2 and nftables)", tool, err)
		}
	}
}

// buildBinary builds cmd/adpnode into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "adpnode")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/adpnode/adpnode/cmd/adpnode").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// world is one run's namespaces, nft tables and nodes.
type world struct {
	t      *testing.T
	bin    string
	suffix string
	ns     []string          // namespaces made, in creation order
	tables map[string]string // nft table made -> its namespace
	procs  []*exec.Cmd
	logDir string
}

func newWorld(t *testing.T, bin string) *world {
	var b [3]byte
	rand.Read(b[:])
	w := &world{t: t, bin: bin, suffix: hex.EncodeToString(b[:]), tables: map[string]string{}, logDir: t.TempDir()}
	t.Cleanup(w.cleanup)
	return w
}

// run runs a command and fails the test when it fails.
func (w *world) run(name string, args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		w.t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String()
}

// in runs a command inside namespace ns.
func (w *world) in(ns string, args ...string) string {
	w.t.Helper()
	return w.run("ip", append([]string{"netns", "exec", ns}, args...)...)
}

// cli runs the adpnode command line inside ns and returns its output or
// error.
func (w *world) cli(ns string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, w.bin}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("adpnode %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

func (w *world) newNS(role string) string {
	w.t.Helper()
	name := "adpn-" + w.suffix + "-" + role
	w.run("ip", "netns", "add", name)
	w.ns = append(w.ns, name)
	w.in(name, "ip", "link", "set", "lo", "up")
	return name
}

// link joins namespaces a and b with a veth pair named ifA in a and ifB
// in b.
func (w *world) link(a, ifA, b, ifB string) {
	w.t.Helper()
	w.run("ip", "-n", a, "link", "add", ifA, "type", "veth", "peer", "name", ifB, "netns", b)
	w.run("ip", "-n", a, "link", "set", ifA, "up")
	w.run("ip", "-n", b, "link", "set", ifB, "up")
}

// build makes the namespaces: pub (a bridge, the relay's address) and,
// for each of the two LANs, a router namespace and a host namespace. With
// randomFully the routers' masquerade picks random source ports, so no
// hole can be punched.
func (w *world) build(randomFully bool) (pub string, hosts []string) {
	w.t.Helper()
	pub = w.newNS("pub")
	w.run("ip", "-n", pub, "link", "add", "br0", "type", "bridge")
	w.run("ip", "-n", pub, "addr", "add", relayIP+"/24", "dev", "br0")
	w.run("ip", "-n", pub, "link", "set", "br0", "up")
	for i := range 2 {
		r, h := w.newNS(fmt.Sprintf("r%d", i)), w.newNS(fmt.Sprintf("h%d", i))
		lan := fmt.Sprintf("%s%d.", lanPrefix, i+1)
		w.link(r, "wan", pub, fmt.Sprintf("p%d", i))
		w.run("ip", "-n", pub, "link", "set", fmt.Sprintf("p%d", i), "master", "br0")
		w.run("ip", "-n", r, "addr", "add", fmt.Sprintf("172.30.0.%d/24", routerWAN0+i), "dev", "wan")
		w.link(r, "lan", h, "eth0")
		w.run("ip", "-n", r, "addr", "add", lan+"1/24", "dev", "lan")
		w.run("ip", "-n", h, "addr", "add", lan+"2/24", "dev", "eth0")
		w.run("ip", "-n", h, "route", "add", "default", "via", lan+"1")
		w.in(r, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
		table := "adpn_" + w.suffix
		masq := "masquerade"
		if randomFully {
			masq += " fully-random" // iptables' --random-fully
		}
		// A home router: masquerade the LAN, and drop what arrives on
		// the WAN side unasked (so an early hole-punch SYN is dropped,
		// not refused).
		rules := fmt.Sprintf(`table ip %s {
 chain postrouting_nat {
  type nat hook postrouting priority srcnat; policy accept;
  oifname "wan" ip saddr %s0/24 %s
 }
 chain input_wan {
  type filter hook input priority filter; policy accept;
  iifname "wan" ct state established,related accept
  iifname "wan" drop
 }
 chain forward_wan {
  type filter hook forward priority filter; policy accept;
  iifname "wan" ct state established,related accept
  iifname "wan" drop
 }
}
`, table, lan, masq)
		cmd := exec.Command("ip", "netns", "exec", r, "nft", "-f", "-")
		cmd.Stdin = strings.NewReader(rules)
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("nft in %s: %v\n%s", r, err, out)
		}
		w.tables[table+"@"+r] = r
		hosts = append(hosts, h)
	}
	return pub, hosts
}

// agent is a running node: its namespace, data directory (what the CLI
// needs to find its API) and first status.
type agent struct {
	ns, dir string
	nodeapi.Status
}

// node initialises and starts an adpnode in ns and returns it once its
// API answers.
func (w *world) node(ns, name string, args ...string) *agent {
	w.t.Helper()
	dir := filepath.Join(w.t.TempDir(), name)
	if _, err := w.cli(ns, "init", "--data-dir", dir, "--name", name, "--demo-tools"); err != nil {
		w.t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(w.logDir, name+".log"))
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { logf.Close() })
	run := append([]string{"netns", "exec", ns, w.bin, "run", "--data-dir", dir, "--api", "127.0.0.1:0",
		"--demo-agent", "--no-port-map", "--simulate-public-subnet", publicNet, "--log-level", "info"}, args...)
	cmd := exec.Command("ip", run...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "GOLOG_LOG_LEVEL=error,p2p-holepunch=debug")
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.procs = append(w.procs, cmd)
	var st nodeapi.Status
	polltest.Until(w.t, 30*time.Second, func() error {
		out, err := w.cli(ns, "status", "--json", "--data-dir", dir)
		if err != nil {
			return err
		}
		return json.Unmarshal([]byte(out), &st)
	})
	return &agent{ns: ns, dir: dir, Status: st}
}

// cleanup stops the nodes, then deletes the nft tables and the
// namespaces this run made.
func (w *world) cleanup() {
	if w.t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(w.logDir, "*.log"))
		for _, l := range logs {
			raw, _ := os.ReadFile(l)
			lines := strings.Split(string(raw), "\n")
			w.t.Logf("%s (last lines):\n%s", l, strings.Join(lines[max(0, len(lines)-60):], "\n"))
		}
	}
	for _, p := range w.procs {
		p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range w.procs {
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Process.Kill()
			<-done
		}
	}
	for key, ns := range w.tables {
		table := strings.SplitN(key, "@", 2)[0]
		if out, err := exec.Command("ip", "netns", "exec", ns, "nft", "delete", "table", "ip", table).CombinedOutput(); err != nil {
			w.t.Logf("cleanup: nft delete table %s in %s: %v %s", table, ns, err, out)
		}
	}
	for _, ns := range slices.Backward(w.ns) {
		if out, err := exec.Command("ip", "netns", "delete", ns).CombinedOutput(); err != nil {
			w.t.Errorf("cleanup: ip netns delete %s: %v %s", ns, err, out)
		}
	}
}

// conns returns how ns's node is connected to peer: "direct", "relayed"
// or both.
func (w *world) conns(ns, dir, peer string) ([]string, error) {
	out, err := w.cli(ns, "peers", "--json", "--data-dir", dir)
	if err != nil {
		return nil, err
	}
	var pr httpapi.PeersResponse
	if err := json.Unmarshal([]byte(out), &pr); err != nil {
		return nil, err
	}
	for _, p := range pr.Peers {
		if p.PeerID == peer {
			return p.Conns, nil
		}
	}
	return nil, nil
}

// invoke calls echo on agent from ns's node and returns the latency the
// node measured.
func (w *world) invoke(ns, dir, agent string) (time.Duration, error) {
	out, err := w.cli(ns, "invoke", "--json", "--timeout-ms", "20000", "--data-dir", dir, agent, "echo", `{"text":"across the NAT"}`)
	if err != nil {
		return 0, err
	}
	var r httpapi.InvokeResponse
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return 0, err
	}
	if !strings.Contains(string(r.Body), "across the NAT") {
		return 0, fmt.Errorf("echo replied %s", r.Body)
	}
	return time.Duration(r.LatencyMS * float64(time.Millisecond)), nil
}

// holds reports whether ns's node holds agent's card.
func (w *world) holds(ns, dir, agent string) error {
	out, err := w.cli(ns, "card", "list", "--json", "--data-dir", dir)
	if err != nil {
		return err
	}
	if !strings.Contains(out, agent) {
		return fmt.Errorf("%s does not hold %s yet", ns, agent)
	}
	return nil
}

// holdsRelayed reports whether ns's node holds agent's card with a relay
// (p2p-circuit) address among its libp2p endpoints.
func (w *world) holdsRelayed(ns, dir, agent string) error {
	out, err := w.cli(ns, "card", "list", "--json", "--data-dir", dir)
	if err != nil {
		return err
	}
	var list struct {
		Cards []struct {
			ID   string    `json:"id"`
			Card *adp.Card `json:"agent_card"`
		} `json:"cards"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return err
	}
	for _, c := range list.Cards {
		if c.ID != agent || c.Card == nil {
			continue
		}
		for _, e := range c.Card.Endpoints {
			if e.Protocol == route.ProtocolLibp2p && strings.Contains(e.URI, "/p2p-circuit") {
				return nil
			}
		}
		return fmt.Errorf("%s holds %s's card without a relay address: %v", ns, agent, c.Card.Endpoints)
	}
	return fmt.Errorf("%s does not hold %s yet", ns, agent)
}

// TestNAT: two nodes, each behind its own NAT, bootstrap from a relay on
// the simulated Internet, discover each other's cards and call each
// other's tools. Behind a port-preserving NAT the connection ends direct
// (DCUtR hole punching); behind `masquerade random-fully` no hole can be
// punched and the calls go through the relay.
func TestNAT(t *testing.T) {
	requireEnv(t)
	bin := buildBinary(t)
	for _, tc := range []struct {
		name        string
		randomFully bool
		wantDirect  bool
	}{
		{"port-preserving", false, true},
		{"random-fully", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, bin)
			pub, hosts := w.build(tc.randomFully)
			relay := w.node(pub, "relay", "--directory", "--reachability", "public",
				"--listen", "/ip4/"+relayIP+"/tcp/"+relayPort, "--listen", "/ip4/"+relayIP+"/udp/"+relayPort+"/quic-v1")
			boot := "/ip4/" + relayIP + "/tcp/" + relayPort + "/p2p/" + relay.PeerID
			var nodes []*agent
			for i, h := range hosts {
				nodes = append(nodes, w.node(h, fmt.Sprintf("agent%d", i), "--bootstrap", boot, "--reachability", "private",
					"--listen", "/ip4/0.0.0.0/tcp/0", "--listen", "/ip4/0.0.0.0/udp/0/quic-v1"))
			}

			// 1. Each private node gets a relay reservation, starts hole
			// punching (it has the address its router maps it to, as the
			// relay observed it) and holds the other's card, which
			// carries the other's relay address (a node's card follows
			// its addresses), so that a call dials the relay at once.
			for i, h := range hosts {
				polltest.Until(t, 60*time.Second, func() error {
					out, err := w.cli(h, "status", "--json", "--data-dir", nodes[i].dir)
					if err != nil {
						return err
					}
					var st nodeapi.Status
					if err := json.Unmarshal([]byte(out), &st); err != nil {
						return err
					}
					if st.Reachability != nodeapi.ReachPrivate || len(st.RelayAddrs) == 0 || !st.HolePunching {
						return fmt.Errorf("%s: reachability %q, relay addresses %v, hole punching %t", h, st.Reachability, st.RelayAddrs, st.HolePunching)
					}
					return w.holdsRelayed(h, nodes[i].dir, nodes[1-i].AgentID)
				})
			}

			// 2. Each calls the other's tool; the first call goes through
			// the relay.
			var relayed []time.Duration
			for i, h := range hosts {
				polltest.Until(t, 60*time.Second, func() error {
					lat, err := w.invoke(h, nodes[i].dir, nodes[1-i].AgentID)
					if err == nil {
						relayed = append(relayed, lat)
					}
					return err
				})
			}

			// 3. The connection ends direct after hole punching, or stays
			// relayed when the NAT randomises ports.
			peer := nodes[1].PeerID
			if tc.wantDirect {
				polltest.Until(t, 60*time.Second, func() error {
					kinds, err := w.conns(hosts[0], nodes[0].dir, peer)
					if err != nil {
						return err
					}
					if !slices.Contains(kinds, nodeapi.ConnDirect) {
						return fmt.Errorf("connection to the other agent: %v, want a direct one", kinds)
					}
					return nil
				})
			}
			var last []time.Duration
			for range 5 {
				lat, err := w.invoke(hosts[0], nodes[0].dir, nodes[1].AgentID)
				if err != nil {
					t.Fatalf("call after the connection settled: %v", err)
				}
				last = append(last, lat)
			}
			kinds, err := w.conns(hosts[0], nodes[0].dir, peer)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantDirect && !slices.Contains(kinds, nodeapi.ConnDirect):
				t.Fatalf("connection %v, want direct", kinds)
			case !tc.wantDirect && slices.Contains(kinds, nodeapi.ConnDirect):
				t.Fatalf("connection %v: a hole was punched through a random-fully NAT", kinds)
			case !tc.wantDirect && !slices.Contains(kinds, nodeapi.ConnRelayed):
				t.Fatalf("connection %v, want relayed", kinds)
			}
			label := "relayed"
			if tc.wantDirect {
				label = "direct"
			}
			t.Logf("first calls (relayed): %v; settled calls (%s): %v, median %v", relayed, label, last, median(last))
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
