package testnet_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/adpnode/adpnode/testnet"
)

func TestInProcessNetworkSpreadsEveryCard(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 4
	nw, err := testnet.NewInProcess(ctx, n, testnet.WithDirectories(1), testnet.WithBaseDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	if nw.Len() != n {
		t.Fatalf("Len %d, want %d", nw.Len(), n)
	}
	if err := nw.WaitPropagation(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for i, nd := range nw.Nodes() {
		if got := nd.CardCount(); got != n {
			t.Errorf("node %d holds %d cards, want %d", i, got, n)
		}
		if want := i == 1; nd.Directory() != want {
			t.Errorf("node %d directory %v, want %v", i, nd.Directory(), want)
		}
		tpl, err := testnet.TemplateCard(i)
		if err != nil {
			t.Fatal(err)
		}
		if nd.Card().Name != tpl.Name {
			t.Errorf("node %d card %q, want bundled %q", i, nd.Card().Name, tpl.Name)
		}
		names[nd.Card().Name] = true
	}
	if len(names) != n {
		t.Errorf("%d distinct card names for %d nodes", len(names), n)
	}
	if err := nw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := nw.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// Every node goroutine ends with Close (allow a few runtime helpers).
	if err := testnet.WaitFor(func() bool { return runtime.NumGoroutine() <= before+5 }, 10*time.Second); err != nil {
		t.Errorf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
	}
}

func TestInProcessRejectsBadCounts(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		n    int
		opts []testnet.Option
	}{
		{0, nil},
		{testnet.MaxNodes + 1, nil},
		{2, []testnet.Option{testnet.WithDirectories(2)}},
		{2, []testnet.Option{testnet.WithDirectories(-1)}},
	} {
		if nw, err := testnet.NewInProcess(ctx, tc.n, tc.opts...); err == nil {
			nw.Close()
			t.Errorf("NewInProcess(%d) succeeded", tc.n)
		}
	}
}
