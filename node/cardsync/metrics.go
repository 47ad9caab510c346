package cardsync

import "github.com/prometheus/client_golang/prometheus"

// collector exports a Syncer's Stats at scrape time (each series its own
// counter, counted once the outcome is known, so none ever goes down):
//
//	adpnode_cardsync_syncs_total{result}   ok, failed (the fetch failed)
//	adpnode_cardsync_cards_total{outcome}  of the cards peers listed: skipped (not newer, or
//	                                       unparsable), stored, refused (failed the check),
//	                                       kept_held (newer, yet the intake kept the held card)
//	adpnode_cardsync_connections_total{outcome}  deferred (within the interval), dropped
//	adpnode_cardsync_behind_total          syncs that found the peer without the own card
//	adpnode_cardsync_republished_total     republications of the own card
//	adpnode_cardsync_rounds_total          anti-entropy rounds that picked a peer
//
// Every label value is one of these words: nothing a peer sends becomes
// one.
type collector struct {
	s                                        *Syncer
	syncs, cards, conns, behind, repub, rnds *prometheus.Desc
}

func newCollector(s *Syncer) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName("adpnode", "cardsync", name), help, labels, nil)
	}
	return &collector{s: s,
		syncs:  d("syncs_total", "Card syncs run, by result (ok, or failed: the peer's list could not be fetched).", "result"),
		cards:  d("cards_total", "Cards of peers' lists, by outcome: skipped (not newer than the held card), stored, refused (failed the check), kept_held (the intake kept the held card).", "outcome"),
		conns:  d("connections_total", "Connections not synced at once, by outcome: deferred to the end of the interval, or dropped (too many peers waiting).", "outcome"),
		behind: d("behind_total", "Syncs that found the peer without the node's current card."),
		repub:  d("republished_total", "Republications of the own card that syncs and greetings asked for."),
		rnds:   d("rounds_total", "Anti-entropy rounds that picked a peer."),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.syncs, c.cards, c.conns, c.behind, c.repub, c.rnds} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	count := func(d *prometheus.Desc, v uint64, label ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), label...)
	}
	count(c.syncs, st.Fetched, "ok")
	count(c.syncs, st.Failed, "failed")
	count(c.cards, st.Skipped, "skipped")
	count(c.cards, st.Stored, "stored")
	count(c.cards, st.Refused, "refused")
	count(c.cards, st.KeptHeld, "kept_held")
	count(c.conns, st.Deferred, "deferred")
	count(c.conns, st.Dropped, "dropped")
	count(c.behind, st.Behind)
	count(c.repub, st.Republished)
	count(c.rnds, st.Rounds)
}
