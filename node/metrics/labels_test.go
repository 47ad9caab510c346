package metrics_test

import (
	"strconv"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/metrics"
)

func TestMethodLabels(t *testing.T) {
	var l metrics.MethodLabels
	if got := l.Label("made-up", false); got != aitp.OtherLabel {
		t.Fatalf("unknown method labelled %q", got)
	}
	for i := range metrics.MaxMethodLabels {
		m := "tool-" + strconv.Itoa(i)
		if got := l.Label(m, true); got != m {
			t.Fatalf("known method %d labelled %q", i, got)
		}
	}
	if got := l.Label("one-too-many", true); got != aitp.OtherLabel {
		t.Fatalf("method past the bound labelled %q", got)
	}
	if got := l.Label("tool-0", true); got != "tool-0" {
		t.Fatalf("method labelled before the bound now %q", got)
	}
}

// The registry serves the node's metrics, each scope at zero from the
// start, and the gauges read their functions at scrape time.
func TestNew(t *testing.T) {
	peers := 0
	m := metrics.New(func() int { return peers }, func() int { return 7 }, "local", "network")
	peers = 3
	m.ObserveDiscover("local", 2*time.Millisecond)
	families, err := m.Reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range families {
		got[f.GetName()] = f
	}
	if g := got["adpnode_peers"]; g == nil || g.Metric[0].GetGauge().GetValue() != 3 {
		t.Fatalf("adpnode_peers = %v, want 3 read at scrape time", g)
	}
	if g := got["adpnode_cards"]; g == nil || g.Metric[0].GetGauge().GetValue() != 7 {
		t.Fatalf("adpnode_cards = %v, want 7", g)
	}
	d := got["adpnode_discover_seconds"]
	if d == nil || len(d.Metric) != 2 {
		t.Fatalf("adpnode_discover_seconds = %v, want both scopes", d)
	}
	for _, s := range d.Metric {
		want := uint64(0)
		if s.Label[0].GetValue() == "local" {
			want = 1
		}
		if s.GetHistogram().GetSampleCount() != want {
			t.Fatalf("scope %s: %d samples, want %d", s.Label[0].GetValue(), s.GetHistogram().GetSampleCount(), want)
		}
	}
	if got["go_goroutines"] == nil {
		t.Fatal("no Go runtime metrics")
	}
}
