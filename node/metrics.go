package node

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/adpnode/adpnode/aitp"
)

// metrics are the node's Prometheus metrics, on a registry of its own (no
// global registration, so many nodes can share a process). Packages the
// node wires (store, gossip, and aitp's server and client) register theirs
// on the same registry, so GET /metrics serves them all.
//
// Every label comes from a closed set, whatever peers and API clients
// send: statuses are aitp's defined ones or "other" (aitp.Status.Label);
// an inbound call's method is a tool the node registered (unknown methods
// never reach a handler); an outbound call's method is named only when it
// is an ADP method or a tool on the callee's held card, and only for the
// first maxMethodLabels such names (callMethods), every other call
// counting as "other".
type metrics struct {
	reg         *prometheus.Registry
	calls       *prometheus.CounterVec   // outbound invocations by method and status
	callMethods methodLabels             // the method label values of calls
	served      *prometheus.CounterVec   // inbound tool calls by method and status
	discover    *prometheus.HistogramVec // discovery latency by scope
}

// maxMethodLabels bounds the method label values of adpnode_calls_total.
// Held cards come from peers, so the tools they list are not a closed set
// on their own.
const maxMethodLabels = 256

// methodLabels hands out the method label of outbound calls. It is safe
// for concurrent use; the zero value is ready.
type methodLabels struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// label returns method when it is known (the callee's card lists it) and
// already labelled or one of the first maxMethodLabels, else "other".
func (l *methodLabels) label(method string, known bool) string {
	if !known {
		return aitp.OtherLabel
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[method]; ok {
		return method
	}
	if len(l.seen) >= maxMethodLabels {
		return aitp.OtherLabel
	}
	if l.seen == nil {
		l.seen = make(map[string]struct{})
	}
	l.seen[method] = struct{}{}
	return method
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
