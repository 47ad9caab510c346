package aitp_test

import (
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
)

const (
	benchBody    = 100
	benchCallers = 16
	rawEchoProto = "/bench/echo/1.0.0"
)

// benchResult keeps the raw baseline so the Call benchmarks can report
// their ratio to it in the same run.
type benchResult struct{ p50, p99, perSec float64 }

var baseline sync.Map // "seq" | "par" -> benchResult

// run performs b.N operations across callers goroutines and reports p50,
// p99 (µs) and operations per second.
func run(b *testing.B, callers int, newOp func() func() error) benchResult {
	ops := make([]func() error, callers)
	for i := range ops {
		ops[i] = newOp()
	}
	lat := make([][]time.Duration, callers)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := ops[i]
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				if err := op(); err != nil {
					b.Error(err)
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return benchResult{}
	}
	r := benchResult{
		p50:    float64(all[len(all)/2].Nanoseconds()) / 1e3,
		p99:    float64(all[len(all)*99/100].Nanoseconds()) / 1e3,
		perSec: float64(len(all)) / elapsed.Seconds(),
	}
	b.ReportMetric(r.p50, "p50-µs")
	b.ReportMetric(float64(all[len(all)*9/10].Nanoseconds())/1e3, "p90-µs")
	b.ReportMetric(r.p99, "p99-µs")
	b.ReportMetric(r.perSec, "calls/s")
	return r
}

func rawEcho(s network.Stream) {
	defer s.Close()
	buf := make([]byte, benchBody)
	for {
		if _, err := io.ReadFull(s, buf); err != nil {
			return
		}
		if _, err := s.Write(buf); err != nil {
			return
		}
	}
}

func rawOp(b *testing.B, hc, hs host.Host) func() func() error {
	return func() func() error {
		s, err := hc.NewStream(context.Background(), hs.ID(), rawEchoProto)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Reset() })
		out, in := make([]byte, benchBody), make([]byte, benchBody)
		return func() error {
			if _, err := s.Write(out); err != nil {
				return err
			}
			_, err := io.ReadFull(s, in)
			return err
		}
	}
}

// BenchmarkCall compares a Call with a 100-octet body against a raw
// libp2p stream echo of 100 octets on a reused stream, over loopback TCP,
// sequentially and with 16 concurrent callers. The Call sub-benchmarks
// report p50-ratio (call p50 / raw p50) and tput-ratio (call calls/s /
// raw calls/s); run the whole benchmark so the baseline is measured first.
func BenchmarkCall(b *testing.B) {
	srv, cl, hs, hc := pair(b, nil)
	hs.SetStreamHandler(rawEchoProto, rawEcho)
	srv.HandleFunc("echo", echo)
	body := make([]byte, benchBody)
	callOp := func() func() error {
		return func() error {
			got, err := cl.Call(context.Background(), hs.ID(), "echo", body)
			if err == nil && len(got) != benchBody {
				return io.ErrShortWrite
			}
			return err
		}
	}
	if _, err := cl.Call(context.Background(), hs.ID(), "echo", body); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name    string
		callers int
	}{{"seq", 1}, {"par16", benchCallers}} {
		b.Run("raw/"+mode.name, func(b *testing.B) {
			baseline.Store(mode.name, run(b, mode.callers, rawOp(b, hc, hs)))
		})
		b.Run("call/"+mode.name, func(b *testing.B) {
			r := run(b, mode.callers, callOp)
			if v, ok := baseline.Load(mode.name); ok {
				base := v.(benchResult)
				b.ReportMetric(r.p50/base.p50, "p50-ratio")
				b.ReportMetric(r.perSec/base.perSec, "tput-ratio")
			}
		})
	}
}
