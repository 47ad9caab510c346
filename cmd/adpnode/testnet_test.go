package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/testnet"
)

// runTestnetCmd runs `adpnode testnet args...` in process.
func runTestnetCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newTestnetCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

func TestTestnetCommandsNeedATestnet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{
		{"status", "--dir", dir},
		{"down", "--dir", dir},
		{"restart", "--dir", dir, "--node", "1"},
		{"discover", "--dir", dir, "--tags", "nlp"},
	} {
		if _, err := runTestnetCmd(t, args...); !errors.Is(err, testnet.ErrNotRunning) {
			t.Errorf("%v: %v, want ErrNotRunning", args, err)
		}
	}
}

func TestTestnetUpRejectsBadCounts(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"up", "--dir", dir, "-n", "0"},
		{"up", "--dir", dir, "-n", "3", "--directories", "3"},
		{"up", "--dir", dir, "-n", "1000"},
		{"up", "--dir", dir, "-n", "2", "--timeout", "0s"},
		{"up", "--dir", dir, "-n", "2", "--node-env", "GOGC"},
	} {
		if _, err := runTestnetCmd(t, args...); !errors.Is(err, testnet.ErrBadConfig) {
			t.Errorf("%v: %v, want ErrBadConfig", args, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused up left %d entries in the directory", len(entries))
	}
}

func TestTestnetUpRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runTestnetCmd(t, "up", "--dir", dir, "-n", "2", "-q"); !errors.Is(err, testnet.ErrNotOurs) {
		t.Fatalf("up in a directory with foreign files: %v, want ErrNotOurs", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "thesis.tex")); err != nil || string(b) != "keep me" {
		t.Fatal("up touched a foreign file")
	}
}

func TestTestnetDiscoverNeedsACriterion(t *testing.T) {
	_, err := runTestnetCmd(t, "discover", "--dir", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "--tags or --query") {
		t.Fatalf("discover without tags or query: %v", err)
	}
}

func TestProgressPrinterWithoutTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := tnProgressPrinter(&buf)
	p(testnet.Progress{Phase: testnet.PhaseInit, Done: 0, Total: 3})
	p(testnet.Progress{Phase: testnet.PhaseInit, Done: 1, Total: 3}) // same phase, within a second: quiet
	p(testnet.Progress{Phase: testnet.PhaseInit, Done: 3, Total: 3})
	p(testnet.Progress{Phase: testnet.PhasePropagate, Done: 1, Total: 3, Cards: 7, Elapsed: 1500 * time.Millisecond})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(lines), buf.String())
	}
	if want := "propagate: 1/3 nodes hold every card, 7/9 cards (1.5s)"; lines[2] != want {
		t.Errorf("last line %q, want %q", lines[2], want)
	}
	if strings.Contains(buf.String(), "\r") {
		t.Error("carriage returns written to a non-terminal")
	}
}
