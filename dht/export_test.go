package dht

import (
	"time"

	"github.com/adpnode/adpnode/adp"
)

// RepublishNow runs one republish round at once.
func (d *DHT) RepublishNow() { d.republish() }

// AgePut moves the last put of agentID's remembered card back by age.
func (d *DHT) AgePut(agentID string, age time.Duration) {
	p, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		panic(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.putAt[p] = d.putAt[p].Add(-age)
}
