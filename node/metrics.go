package node

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the node's Prometheus metrics, on a registry of its own (no
// global registration, so many nodes can share a process). Packages the
// node wires (store, gossip, and aitp's server and client) register theirs
// on the same registry, so GET /metrics serves them all.
type metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec   // outbound invocations by method and status
	served   *prometheus.CounterVec   // inbound tool calls by method and status
	discover *prometheus.HistogramVec // discovery latency by scope
}

// newMetrics builds the registry. peers and cards are read at scrape time.
func newMetrics(peers, cards func() int) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "adpnode", Name: "calls_total",
			Help: "Outbound invocations by method and AITP status.",
		}, []string{"method", "status"}),
		served: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "adpnode", Name: "tool_calls_served_total",
			Help: "Inbound tool calls by tool and AITP status.",
		}, []string{"method", "status"}),
		discover: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "adpnode", Name: "discover_seconds",
			Help:    "Discovery latency by scope (local or network).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"scope"}),
	}
	m.reg.MustRegister(m.calls, m.served, m.discover,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "adpnode", Name: "peers", Help: "Connected libp2p peers."},
			func() float64 { return float64(peers()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "adpnode", Name: "cards", Help: "Live cards held."},
			func() float64 { return float64(cards()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, scope := range []string{scopeLocal, scopeNetwork} {
		m.discover.WithLabelValues(scope)
	}
	return m
}

func (m *metrics) observeDiscover(scope string, d time.Duration) {
	m.discover.WithLabelValues(scope).Observe(d.Seconds())
}
