package store

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcome names one result of PutCard, as reported to Metrics.
type Outcome string

// PutCard outcomes.
const (
	OutcomeStored    Outcome = "stored"    // a new or newer card became the held one
	OutcomeRevoked   Outcome = "revoked"   // a revocation became the held tombstone
	OutcomeRefreshed Outcome = "refreshed" // the same card again: freshness extended
	OutcomeIgnored   Outcome = "ignored"   // an equal or older card
)

// Removal reasons, in Change.Reason and Metrics.CardRemoved.
const (
	ReasonRevoked = "revoked" // a revocation superseded the card
	ReasonExpired = "expired" // the sweeper removed it past expiry and grace
	ReasonEvicted = "evicted" // removed to make room for a stronger card under WithMaxCards
)

// Metrics receives store events. Implementations must be safe for
// concurrent use and must not block. The zero choice is no metrics.
type Metrics interface {
	// CardPut counts one PutCard by source and outcome.
	CardPut(src Source, outcome Outcome)
	// CardRemoved counts one live card removed, by reason.
	CardRemoved(reason string)
	// TombstoneExpired counts one tombstone removed by the sweeper.
	TombstoneExpired()
	// Corrupt counts one corrupt value found and skipped.
	Corrupt()
	// Cards reports the number of live cards after a change.
	Cards(n int)
	// Refused counts one new agent's card refused by the bound on the
	// live set, by reason (RefusedFull or RefusedNetwork).
	Refused(reason string)
}

type nopMetrics struct{}

func (nopMetrics) CardPut(Source, Outcome) {}
func (nopMetrics) CardRemoved(string)      {}
func (nopMetrics) TombstoneExpired()       {}
func (nopMetrics) Corrupt()                {}
func (nopMetrics) Cards(int)               {}
func (nopMetrics) Refused(string)          {}

// PrometheusMetrics implements Metrics with Prometheus collectors under the
// adpnode_store_ prefix.
type PrometheusMetrics struct {
	puts       *prometheus.CounterVec
	removed    *prometheus.CounterVec
	tombstones prometheus.Counter
	corrupt    prometheus.Counter
	cards      prometheus.Gauge
	refused    *prometheus.CounterVec
}

// NewPrometheusMetrics creates the collectors and registers them on reg.
// Registering twice on the same registry fails.
func NewPrometheusMetrics(reg prometheus.Registerer) (*PrometheusMetrics, error) {
	m := &PrometheusMetrics{
		puts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adpnode_store_card_puts_total",
			Help: "PutCard calls by source and outcome.",
		}, []string{"source", "outcome"}),
		removed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adpnode_store_cards_removed_total",
			Help: "Live cards removed, by reason.",
		}, []string{"reason"}),
		tombstones: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "adpnode_store_tombstones_expired_total",
			Help: "Revocation tombstones removed after expiry.",
		}),
		corrupt: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "adpnode_store_corrupt_values_total",
			Help: "Values on disk that failed to decode and were skipped.",
		}),
		cards: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "adpnode_store_cards",
			Help: "Live cards held.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adpnode_store_cards_refused_total",
			Help: "New agents' cards refused by the bound on held cards, by reason (full, network_quota).",
		}, []string{"reason"}),
	}
	var errs []error
	for _, c := range []prometheus.Collector{m.puts, m.removed, m.tombstones, m.corrupt, m.cards, m.refused} {
		errs = append(errs, reg.Register(c))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// CardPut implements Metrics: it counts puts by source and outcome.
func (m *PrometheusMetrics) CardPut(src Source, o Outcome) {
	m.puts.WithLabelValues(string(src), string(o)).Inc()
}

// CardRemoved implements Metrics: it counts removed cards by reason.
func (m *PrometheusMetrics) CardRemoved(reason string) { m.removed.WithLabelValues(reason).Inc() }

// TombstoneExpired implements Metrics: it counts swept tombstones.
func (m *PrometheusMetrics) TombstoneExpired() { m.tombstones.Inc() }

// Corrupt implements Metrics: it counts corrupt values skipped.
func (m *PrometheusMetrics) Corrupt() { m.corrupt.Inc() }

// Cards implements Metrics: it sets the gauge of live cards.
func (m *PrometheusMetrics) Cards(n int) { m.cards.Set(float64(n)) }

// Refused implements Metrics: it counts cards refused by the bound.
func (m *PrometheusMetrics) Refused(reason string) { m.refused.WithLabelValues(reason).Inc() }
