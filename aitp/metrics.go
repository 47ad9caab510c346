package aitp

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the server's Prometheus collectors; the zero value
// (no registerer) records nothing. Requests are counted by method and
// status, and both labels come from closed sets: a method keeps its name
// only once a handler is registered for it (register), every other
// method a caller names is counted as OtherLabel, and statuses are the
// defined ones plus OtherLabel. A caller naming made-up methods moves one
// counter, never adds series.
type serverMetrics struct {
	requests *prometheus.CounterVec
	methods  sync.Map // registered method name → *statusCounters
	other    statusCounters
	inflight prometheus.GaugeFunc
	streams  prometheus.GaugeFunc
}

// statusCounters holds one counter per status label.
type statusCounters [statusLabels]prometheus.Counter

// statusLabels covers the defined statuses plus one label for the rest.
const statusLabels = int(StatusInvalidRequest) + 2

func statusLabel(i int) string { return Status(i).Label() }

func statusIndex(st Status) int {
	if int(st) < statusLabels-1 {
		return int(st)
	}
	return statusLabels - 1
}

func newServerMetrics(reg prometheus.Registerer, s *Server) (*serverMetrics, error) {
	m := &serverMetrics{}
	if reg == nil {
		return m, nil
	}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "aitp", Subsystem: "server", Name: "requests_total",
		Help: "Requests answered, by method (\"other\" for a method no handler is registered for) and status.",
	}, []string{"method", "status"})
	m.inflight = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "aitp", Subsystem: "server", Name: "inflight",
		Help: "Requests admitted and not yet finished.",
	}, func() float64 { return float64(s.Stats().Inflight) })
	m.streams = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "aitp", Subsystem: "server", Name: "streams",
		Help: "Open AITP streams.",
	}, func() float64 { return float64(s.Stats().Streams) })
	for _, c := range []prometheus.Collector{m.requests, m.inflight, m.streams} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
			// Another server on this registerer: count on its vector.
			if v, ok := are.ExistingCollector.(*prometheus.CounterVec); ok && c == m.requests {
				m.requests = v
			}
		}
	}
	m.other = m.counters(OtherLabel)
	return m, nil
}

func (m *serverMetrics) counters(method string) statusCounters {
	var cs statusCounters
	for i := range cs {
		cs[i] = m.requests.WithLabelValues(method, statusLabel(i))
	}
	return cs
}

// register admits method to the method label's values; Handle calls it.
func (m *serverMetrics) register(method string) {
	if m.requests == nil {
		return
	}
	if _, ok := m.methods.Load(method); !ok {
		cs := m.counters(method)
		m.methods.LoadOrStore(method, &cs)
	}
}

// answered counts a request for method answered with st.
func (m *serverMetrics) answered(method string, st Status) {
	if m.requests == nil {
		return
	}
	cs := &m.other
	if v, ok := m.methods.Load(method); ok {
		cs = v.(*statusCounters)
	}
	cs[statusIndex(st)].Inc()
}

// clientMetrics are the client's Prometheus collectors.
type clientMetrics struct {
	calls   [statusLabels + 2]prometheus.Counter // statuses, then "transport", then "circuit_open"
	retries prometheus.Counter
}

const (
	clientTransport   = statusLabels
	clientCircuitOpen = statusLabels + 1
)

func newClientMetrics(reg prometheus.Registerer) *clientMetrics {
	m := &clientMetrics{}
	if reg == nil {
		return m
	}
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "aitp", Subsystem: "client", Name: "calls_total",
		Help: "Calls made, by outcome: a status, transport (the stream failed) or circuit_open.",
	}, []string{"outcome"})
	for i := range m.calls {
		label := "transport"
		switch {
		case i < statusLabels:
			label = statusLabel(i)
		case i == clientCircuitOpen:
			label = "circuit_open"
		}
		m.calls[i] = vec.WithLabelValues(label)
	}
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "aitp", Subsystem: "client", Name: "retries_total",
		Help: "Idempotent calls sent again after a stream failure.",
	})
	for _, c := range []prometheus.Collector{vec, m.retries} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				m = &clientMetrics{} // unusable registerer: record nothing
				return m
			}
		}
	}
	return m
}

// called records a call's outcome; a canceled call is not counted.
func (m *clientMetrics) called(err error) {
	i := -1
	var e *Error
	switch {
	case err == nil:
		i = int(StatusOK)
	case errors.As(err, &e):
		i = statusIndex(e.Status)
	case errors.Is(err, ErrCircuitOpen):
		i = clientCircuitOpen
	case errors.Is(err, ErrConnLost), errors.Is(err, ErrAborted):
		i = clientTransport
	}
	if i >= 0 && m.calls[i] != nil {
		m.calls[i].Inc()
	}
}

func (m *clientMetrics) retried() {
	if m.retries != nil {
		m.retries.Inc()
	}
}
