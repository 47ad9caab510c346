package gossip

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics receives the outcome of every validated message. Implementations
// must be safe for concurrent use.
type Metrics interface {
	// Accepted counts a card that was news: relayed and delivered.
	Accepted()
	// Refreshed counts an owner's re-broadcast of the card already held:
	// relayed, not delivered.
	Refreshed()
	Rejected(reason string)
	Ignored(reason string)
}

// Stats counts validation outcomes since New, and the repairs of lost
// outbound streams (see repair.go).
type Stats struct {
	Accepted  uint64 // new cards, relayed and delivered
	Refreshed uint64 // re-broadcasts of the held card, relayed only
	Rejected  uint64
	Ignored   uint64
	Repaired  uint64 // peers announced to the router again, its outbound stream to them lost
}

type counters struct {
	accepted, refreshed, rejected, ignored atomic.Uint64
	repaired                               atomic.Uint64
	ext                                    []Metrics
}

func (c *counters) Accepted() {
	c.accepted.Add(1)
	for _, m := range c.ext {
		m.Accepted()
	}
}

func (c *counters) Refreshed() {
	c.refreshed.Add(1)
	for _, m := range c.ext {
		m.Refreshed()
	}
}

func (c *counters) Rejected(reason string) {
	c.rejected.Add(1)
	for _, m := range c.ext {
		m.Rejected(reason)
	}
}

func (c *counters) Ignored(reason string) {
	c.ignored.Add(1)
	for _, m := range c.ext {
		m.Ignored(reason)
	}
}

func (c *counters) stats() Stats {
	return Stats{Accepted: c.accepted.Load(), Refreshed: c.refreshed.Load(), Rejected: c.rejected.Load(), Ignored: c.ignored.Load(),
		Repaired: c.repaired.Load()}
}

// promMetrics counts outcomes in adp_gossip_messages_total{result, reason}
// and repairs in adp_gossip_outbound_repairs_total.
type promMetrics struct {
	v       *prometheus.CounterVec
	repairs prometheus.Counter
}

func newPromMetrics(reg prometheus.Registerer) (*promMetrics, error) {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "adp",
		Subsystem: "gossip",
		Name:      "messages_total",
		Help:      "Card messages validated on the gossip topic, by result and reason.",
	}, []string{"result", "reason"})
	repairs := prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "adp",
		Subsystem: "gossip",
		Name:      "outbound_repairs_total",
		Help:      "Peers announced to the GossipSub router again because it had lost its outbound stream to them.",
	})
	if err := reg.Register(v); err != nil {
		return nil, err
	}
	if err := reg.Register(repairs); err != nil {
		reg.Unregister(v)
		return nil, err
	}
	return &promMetrics{v: v, repairs: repairs}, nil
}

func (p *promMetrics) unregister(reg prometheus.Registerer) {
	reg.Unregister(p.v)
	reg.Unregister(p.repairs)
}

func (p *promMetrics) Accepted()              { p.v.WithLabelValues("accepted", "").Inc() }
func (p *promMetrics) Refreshed()             { p.v.WithLabelValues("refreshed", "").Inc() }
func (p *promMetrics) Rejected(reason string) { p.v.WithLabelValues("rejected", reason).Inc() }
func (p *promMetrics) Ignored(reason string)  { p.v.WithLabelValues("ignored", reason).Inc() }
