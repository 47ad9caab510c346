package dht

import "github.com/prometheus/client_golang/prometheus"

// collector exports a DHT's Stats and its routing table's size at scrape
// time (adpnode_dht_*). Every label value is a fixed word: nothing a peer
// sends becomes one.
type collector struct {
	d                                             *DHT
	puts, repFailed, gets, incoming, refused, pro *prometheus.Desc
	table                                         *prometheus.Desc
}

func newCollector(d *DHT) *collector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName("adpnode", "dht", name), help, labels, nil)
	}
	return &collector{d: d,
		puts:      desc("card_puts_total", "Cards put in the DHT, by kind: put (PutCard) or republish (the republish loop).", "kind"),
		repFailed: desc("republish_failures_total", "Republications of a card that failed."),
		gets:      desc("card_gets_total", "Card lookups, by result: found or missing.", "result"),
		incoming:  desc("incoming_records_total", "Records peers put here, by outcome: accepted (handed to the node), dropped (the queue was full), invalid (failed validation).", "outcome"),
		refused:   desc("puts_refused_total", "Card and provider puts from peers dropped by the rate limit."),
		pro:       desc("provides_total", "Provider records announced (one per tag key)."),
		table:     desc("routing_table_peers", "Peers in the Kademlia routing table."),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.puts, c.repFailed, c.gets, c.incoming, c.refused, c.pro, c.table} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.d.Stats()
	count := func(d *prometheus.Desc, v uint64, label ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), label...)
	}
	count(c.puts, st.Puts, "put")
	count(c.puts, st.Republished, "republish")
	count(c.repFailed, st.RepublishFailed)
	count(c.gets, st.Gets, "found")
	count(c.gets, st.GetMisses, "missing")
	count(c.incoming, st.IncomingCards, "accepted")
	count(c.incoming, st.IncomingDropped, "dropped")
	count(c.incoming, st.IncomingInvalid, "invalid")
	count(c.refused, st.PutsRefused)
	count(c.pro, st.Provides)
	ch <- prometheus.MustNewConstMetric(c.table, prometheus.GaugeValue, float64(c.d.RoutingTableSize()))
}
