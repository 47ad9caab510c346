package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestPprofServesProfiles(t *testing.T) {
	p, err := startPprof("127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + p.addr + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "heap profile") {
		t.Fatalf("GET heap: %s %.200q", resp.Status, body)
	}
	if err := p.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := http.Get("http://" + p.addr + "/debug/pprof/"); err == nil {
		t.Fatal("the server still answers after close")
	}
}

func TestPprofLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "example.com:6060", "nonsense"} {
		if p, err := startPprof(addr, slog.New(slog.DiscardHandler)); err == nil {
			p.close()
			t.Errorf("startPprof(%q) served", addr)
		}
	}
}
