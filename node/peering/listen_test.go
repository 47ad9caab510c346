package peering_test

import (
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/node/peering"
)

func TestReuseListen(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	path := filepath.Join(t.TempDir(), peering.ListenFile)
	listen := []string{"/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1", "/ip4/127.0.0.1/tcp/1"}
	if got := peering.ReuseListen(path, listen, log); !slices.Equal(got, listen) {
		t.Fatalf("with nothing saved: %v, want %v", got, listen)
	}
	tcp, udp := freePort(t, "tcp"), freePort(t, "udp")
	saved := []ma.Multiaddr{
		ma.StringCast("/ip4/127.0.0.1/tcp/" + tcp),
		ma.StringCast("/ip4/127.0.0.1/udp/" + udp + "/quic-v1"),
		ma.StringCast("/ip4/127.0.0.1/tcp/1"),
	}
	if err := peering.SaveListen(path, saved); err != nil {
		t.Fatal(err)
	}
	want := []string{saved[0].String(), saved[1].String(), "/ip4/127.0.0.1/tcp/1"}
	if got := peering.ReuseListen(path, listen, log); !slices.Equal(got, want) {
		t.Fatalf("reused %v, want %v", got, want)
	}
	// Another program takes the TCP port: a fresh one, the UDP port kept.
	ln, err := net.Listen("tcp", "127.0.0.1:"+tcp)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	want[0] = listen[0]
	if got := peering.ReuseListen(path, listen, log); !slices.Equal(got, want) {
		t.Fatalf("with the TCP port taken: %v, want %v", got, want)
	}
	// Another interface is another shape.
	other := []string{"/ip4/0.0.0.0/tcp/0"}
	if got := peering.ReuseListen(path, other, log); !slices.Equal(got, other) {
		t.Fatalf("other interface: %v, want %v", got, other)
	}
}

// freePort returns a port the system picked for network, released.
func freePort(t *testing.T, network string) string {
	t.Helper()
	if network == "udp" {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		return strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
