package aitp

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the server's Prometheus collectors; the zero value
// (no registerer) records nothing.
type serverMetrics struct {
	requests [statusLabels]prometheus.Counter
	inflight prometheus.GaugeFunc
	streams  prometheus.GaugeFunc
}

// statusLabels covers the defined statuses plus one label for the rest.
const statusLabels = int(StatusInvalidRequest) + 2

func statusLabel(i int) string {
	if i == statusLabels-1 {
		return "other"
	}
	return Status(i).String()
}

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
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "aitp", Subsystem: "server", Name: "requests_total",
		Help: "Requests answered, by status.",
	}, []string{"status"})
	for i := range m.requests {
		m.requests[i] = vec.WithLabelValues(statusLabel(i))
	}
	m.inflight = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "aitp", Subsystem: "server", Name: "inflight",
		Help: "Requests admitted and not yet finished.",
	}, func() float64 { return float64(s.Stats().Inflight) })
	m.streams = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "aitp", Subsystem: "server", Name: "streams",
		Help: "Open AITP streams.",
	}, func() float64 { return float64(s.Stats().Streams) })
	for _, c := range []prometheus.Collector{vec, m.inflight, m.streams} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
		}
	}
	return m, nil
}

func (m *serverMetrics) answered(st Status) {
	if c := m.requests[statusIndex(st)]; c != nil {
		c.Inc()
	}
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
