package testnet_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adpnode/adpnode/testnet"
)

// BenchmarkPropagation measures how long n in-process nodes (loopback TCP,
// the bundled cards) take from the start of the first node until every node
// holds every card: the testnet's speed target (all cards everywhere within
// 3 s) without process start-up. The baseline, measured in the same run, is
// the time to build and start a single node; the ratio says how many single
// starts full propagation costs.
func BenchmarkPropagation(b *testing.B) {
	for _, n := range []int{5, 10, 20} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			ctx := context.Background()
			var prop, single time.Duration
			for range b.N {
				start := time.Now()
				one, err := testnet.NewInProcess(ctx, 1, testnet.WithBaseDir(b.TempDir()))
				if err != nil {
					b.Fatal(err)
				}
				single += time.Since(start)
				if err := one.Close(); err != nil {
					b.Fatal(err)
				}

				start = time.Now()
				nw, err := testnet.NewInProcess(ctx, n, testnet.WithBaseDir(b.TempDir()))
				if err != nil {
					b.Fatal(err)
				}
				if err := nw.WaitPropagation(60 * time.Second); err != nil {
					nw.Close()
					b.Fatal(err)
				}
				prop += time.Since(start)
				if err := nw.Close(); err != nil {
					b.Fatal(err)
				}
			}
			perProp := float64(prop.Milliseconds()) / float64(b.N)
			perSingle := float64(single.Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(perProp, "ms/propagation")
			b.ReportMetric(perSingle, "ms/single-start")
			if perSingle > 0 {
				b.ReportMetric(perProp/perSingle, "x_single-start")
			}
		})
	}
}
