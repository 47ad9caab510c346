package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/adpnode/adpnode/aitp"
)

// Metrics are a node's own metrics and the registry every part of the
// node registers on.
type Metrics struct {
	Reg         *prometheus.Registry
	Calls       *prometheus.CounterVec   // outbound invocations by method and status
	CallMethods MethodLabels             // the method label values of Calls
	Served      *prometheus.CounterVec   // inbound tool calls by method and status
	discover    *prometheus.HistogramVec // discovery latency by scope
}

// New builds the registry and registers the node's metrics, the Go
// runtime's and the process's on it. peers and cards are read at scrape
// time; scopes are the discovery scopes, exported at zero from the start.
func New(peers, cards func() int, scopes ...string) *Metrics {
	m := &Metrics{
		Reg: prometheus.NewRegistry(),
		Calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "adpnode", Name: "calls_total",
			Help: "Outbound invocations by method and AITP status.",
		}, []string{"method", "status"}),
		Served: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "adpnode", Name: "tool_calls_served_total",
			Help: "Inbound tool calls by tool and AITP status.",
		}, []string{"method", "status"}),
		discover: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "adpnode", Name: "discover_seconds",
			Help:    "Discovery latency by scope (local or network).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"scope"}),
	}
	m.Reg.MustRegister(m.Calls, m.Served, m.discover,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "adpnode", Name: "peers", Help: "Connected libp2p peers."},
			func() float64 { return float64(peers()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "adpnode", Name: "cards", Help: "Live cards held."},
			func() float64 { return float64(cards()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, scope := range scopes {
		m.discover.WithLabelValues(scope)
	}
	return m
}

// ObserveDiscover records the latency of one discovery of scope, which
// the node names (never a client's string).
func (m *Metrics) ObserveDiscover(scope string, d time.Duration) {
	m.discover.WithLabelValues(scope).Observe(d.Seconds())
}

// MaxMethodLabels bounds the method label values of adpnode_calls_total.
// Held cards come from peers, so the tools they list are not a closed set
// on their own.
const MaxMethodLabels = 256

// MethodLabels hands out the method label of outbound calls. It is safe
// for concurrent use; the zero value is ready.
type MethodLabels struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// Label returns method when it is known (the callee's card lists it) and
// already labelled or one of the first MaxMethodLabels, else "other".
func (l *MethodLabels) Label(method string, known bool) string {
	if !known {
		return aitp.OtherLabel
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[method]; ok {
		return method
	}
	if len(l.seen) >= MaxMethodLabels {
		return aitp.OtherLabel
	}
	if l.seen == nil {
		l.seen = make(map[string]struct{})
	}
	l.seen[method] = struct{}{}
	return method
}
