package peering

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/atomicfile"
)

// ReuseListen returns listen with every address whose port is 0 replaced
// by the address of the same shape saved at path by SaveListen, when its
// port is free now. A saved port that another program took is dropped
// (the address keeps port 0) with a log line; an address with an explicit
// port, an unreadable file or no saved address of that shape leave the
// address as it is.
func ReuseListen(path string, listen []string, log *slog.Logger) []string {
	out := append([]string(nil), listen...)
	saved, err := readListen(path)
	if err != nil {
		log.Warn("saved listen addresses unreadable; picking new ports", "err", err)
		return out
	}
	for i, s := range listen {
		want, ok := zeroPort(s)
		if !ok || want != s {
			continue // not a TCP or UDP address, or an explicit port
		}
		for _, old := range saved {
			if z, ok := zeroPort(old); !ok || z != want || old == want {
				continue
			}
			if err := portFree(old); err != nil {
				log.Warn("listen port of the last run is taken; picking a new one", "addr", old, "err", err)
				break
			}
			out[i] = old
			break
		}
	}
	return out
}

// SaveListen writes the addresses a host listens on (its network's
// ListenAddresses, not the interface-expanded ones) to path.
func SaveListen(path string, addrs []ma.Multiaddr) error {
	ss := make([]string, 0, len(addrs))
	for _, a := range addrs {
		ss = append(ss, a.String())
	}
	raw, err := json.Marshal(ss)
	if err == nil {
		err = atomicfile.Write(path, append(raw, '\n'), 0o600)
	}
	if err != nil {
		return fmt.Errorf("peering: save listen addresses: %w", err)
	}
	return nil
}

func readListen(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(raw) > maxKnownFile {
		return nil, fmt.Errorf("%s: %d octets", path, len(raw))
	}
	var ss []string
	if err := json.Unmarshal(raw, &ss); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ss, nil
}

// zeroPort returns s, normalized, with its TCP or UDP port set to 0, and
// whether s is a multiaddr with one.
func zeroPort(s string) (string, bool) {
	m, err := ma.NewMultiaddr(s)
	if err != nil {
		return "", false
	}
	parts := strings.Split(m.String(), "/")
	found := false
	for i := 1; i+1 < len(parts); i++ {
		if parts[i] == "tcp" || parts[i] == "udp" {
			parts[i+1] = "0"
			found = true
			i++
		}
	}
	return strings.Join(parts, "/"), found
}

// portFree reports, by binding it for an instant, whether the TCP or UDP
// port of the multiaddr s can be listened on.
func portFree(s string) error {
	m, err := ma.NewMultiaddr(s)
	if err != nil {
		return err
	}
	var ip string
	for _, code := range []int{ma.P_IP4, ma.P_IP6} {
		if v, err := m.ValueForProtocol(code); err == nil {
			ip = v
		}
	}
	if ip == "" {
		return nil // a DNS or other address: let the transport decide
	}
	if port, err := m.ValueForProtocol(ma.P_TCP); err == nil {
		ln, err := net.Listen("tcp", net.JoinHostPort(ip, port))
		if err != nil {
			return err
		}
		return ln.Close()
	}
	port, err := m.ValueForProtocol(ma.P_UDP)
	if err != nil {
		return nil
	}
	pc, err := net.ListenPacket("udp", net.JoinHostPort(ip, port))
	if err != nil {
		return err
	}
	return pc.Close()
}
