package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/dht"
)

func TestConfigValidate(t *testing.T) {
	good := Default()
	good.DataDir = t.TempDir()
	if err := good.Validate(); err != nil {
		t.Fatalf("default config with data dir: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no data dir", func(c *Config) { c.DataDir = "" }, "data_dir"},
		{"bad listen", func(c *Config) { c.Listen = []string{"tcp:1"} }, "listen[0]"},
		{"public api", func(c *Config) { c.APIAddr = "0.0.0.0:5001" }, "loopback"},
		{"api no port", func(c *Config) { c.APIAddr = "127.0.0.1" }, "api"},
		{"bootstrap no p2p", func(c *Config) { c.Bootstrap = []string{"/ip4/127.0.0.1/tcp/4001"} }, "bootstrap[0]"},
		{"agent url scheme", func(c *Config) { c.AgentURL = "ftp://x" }, "agent_url"},
		{"agent url host", func(c *Config) { c.AgentURL = "http:///path" }, "agent_url"},
		{"negative interval", func(c *Config) { c.GossipInterval = -time.Second }, "gossip_interval"},
		{"water marks", func(c *Config) { c.ConnLow, c.ConnHigh = 10, 5 }, "conn_low"},
		{"reachability", func(c *Config) { c.Reach.Reachability = "maybe" }, "reachability"},
		{"relay service", func(c *Config) { c.Reach.RelayService = "yes" }, "relay_service"},
		{"announce", func(c *Config) { c.Reach.Announce = []string{"1.2.3.4:5"} }, "announce"},
		{"no announce", func(c *Config) { c.Reach.NoAnnounce = []string{"x"} }, "no_announce"},
		{"simulated public", func(c *Config) { c.Reach.SimulatedPublic = []string{"10.0.0.1"} }, "simulated_public"},
		{"did:wba domain is an IP", func(c *Config) { c.DIDWbaDomain = "10.0.0.1:8443" }, "did_wba_domain"},
		{"did:wba domain path", func(c *Config) { c.DIDWbaDomain = "example.com/a b" }, "did_wba_domain"},
		{"public http no port", func(c *Config) { c.PublicHTTP = "0.0.0.0" }, "public_http"},
		{"public http bad port", func(c *Config) { c.PublicHTTP = ":99999" }, "public_http"},
		{"public url alone", func(c *Config) { c.PublicURL = "https://agents.example" }, "public_url"},
		{"public url scheme", func(c *Config) { c.PublicHTTP, c.PublicURL = ":8080", "ftp://agents.example" }, "public_url"},
		{"public url query", func(c *Config) { c.PublicHTTP, c.PublicURL = ":8080", "https://agents.example/?a=b" }, "public_url"},
		{"trusted proxy alone", func(c *Config) { c.PublicTrustedProxies = []string{"10.0.0.1"} }, "public_trusted_proxies"},
		{"trusted proxy not an address", func(c *Config) { c.PublicHTTP, c.PublicTrustedProxies = ":8080", []string{"proxy.example"} }, "public_trusted_proxies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.mutate(&c)
			err := c.Validate()
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %q, want mention of %q", err, tt.want)
			}
		})
	}
	pub := good
	pub.PublicHTTP, pub.PublicURL = "0.0.0.0:8080", "https://agents.example/adp"
	if err := pub.Validate(); err != nil {
		t.Errorf("public server on every interface: %v", err)
	}
	for _, ok := range []string{"127.0.0.1:0", "localhost:5001", "[::1]:80"} {
		c := good
		c.APIAddr = ok
		if err := c.Validate(); err != nil {
			t.Errorf("APIAddr %q: %v", ok, err)
		}
	}
}

// TestDHTMode: a single-machine node and a known public node serve the
// DHT, a known private node is a client, and AutoNAT decides otherwise.
func TestDHTMode(t *testing.T) {
	all := DefaultRunListen
	for _, tc := range []struct {
		listen []string
		reach  string
		want   dht.ModeOpt
	}{
		{DefaultListen, "", dht.ModeServer},
		{DefaultListen, ReachPrivate, dht.ModeServer},
		{all, "", dht.ModeAuto},
		{all, ReachAuto, dht.ModeAuto},
		{all, ReachPublic, dht.ModeServer},
		{all, ReachPrivate, dht.ModeClient},
	} {
		if got := (Reach{Reachability: tc.reach}).DHTMode(tc.listen); got != tc.want {
			t.Errorf("listen %v reachability %q: mode %v, want %v", tc.listen, tc.reach, got, tc.want)
		}
	}
}

// TestRunListensEverywhere: `adpnode run` listens on every interface,
// TCP and QUIC, IPv4 and IPv6, while its API stays on loopback.
func TestRunListensEverywhere(t *testing.T) {
	c := Default()
	for _, want := range []string{"/ip4/0.0.0.0/tcp/0", "/ip4/0.0.0.0/udp/0/quic-v1", "/ip6/::/tcp/0", "/ip6/::/udp/0/quic-v1"} {
		if !slices.Contains(c.Listen, want) {
			t.Errorf("listen %v lacks %s", c.Listen, want)
		}
	}
	if err := checkLoopbackHostPort(c.APIAddr); err != nil {
		t.Errorf("API %s: %v", c.APIAddr, err)
	}
}

func TestParsePrefixes(t *testing.T) {
	got, err := ParsePrefixes([]string{"10.1.2.3/8", "192.0.2.7", "::ffff:198.51.100.1", "2001:db8::1/32", "::ffff:10.0.0.0/104"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.7/32", "198.51.100.1/32", "2001:db8::/32", "10.0.0.0/8"}
	for i, p := range got {
		if p.String() != want[i] {
			t.Errorf("prefix %d: %s, want %s", i, p, want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "0.0.0.0/0", "::/0", "fe80::1%eth0", "::ffff:10.0.0.0/64"} {
		if _, err := ParsePrefixes([]string{bad}); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
