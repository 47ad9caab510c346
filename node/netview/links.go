package netview

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/arrivals"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// checkStatus accepts a status whose agent id is the one its peer id
// derives (step 1 of the package documentation).
func checkStatus(st *nodeapi.Status) error {
	p, err := peer.Decode(st.PeerID)
	if err != nil {
		return fmt.Errorf("status names no valid peer id: %v", err)
	}
	if adp.AgentID(p) != st.AgentID {
		return fmt.Errorf("status names agent %s, not the agent of its peer id %s", st.AgentID, st.PeerID)
	}
	return nil
}

// links returns one Link per pair of agents some node reports connected,
// with the ends that report it (step 2 of the package documentation).
func links(r []report) []nodeapi.Link {
	type pair struct{ a, b string }
	byPair := make(map[pair]*nodeapi.Link)
	relayedAll := make(map[pair]bool)
	for _, rep := range r {
		from := rep.node.AgentID
		if rep.node.Error != "" {
			continue
		}
		for _, p := range rep.peers {
			if p.AgentID == "" || p.AgentID == from {
				continue
			}
			k := pair{min(from, p.AgentID), max(from, p.AgentID)}
			l := byPair[k]
			if l == nil {
				l = &nodeapi.Link{A: k.a, B: k.b, ReportedBy: []string{}}
				byPair[k] = l
				relayedAll[k] = true
			}
			if !slices.Contains(l.ReportedBy, from) {
				l.ReportedBy = append(l.ReportedBy, from)
			}
			relayedAll[k] = relayedAll[k] && relayed(p)
		}
	}
	out := make([]nodeapi.Link, 0, len(byPair))
	for k, l := range byPair {
		l.Relayed = relayedAll[k]
		slices.Sort(l.ReportedBy)
		out = append(out, *l)
	}
	slices.SortFunc(out, func(x, y nodeapi.Link) int {
		return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	return out
}

// relayed reports whether every connection to a peer goes through a relay.
func relayed(p nodeapi.PeerInfo) bool {
	if len(p.Conns) == 0 {
		return false
	}
	for _, c := range p.Conns {
		if c != nodeapi.ConnRelayed {
			return false
		}
	}
	return true
}

// travel returns, for each node's current card version, the owner's
// publication time and every node's first arrival of it.
func travel(r []report) []nodeapi.CardTravel {
	type key struct {
		agent string
		seq   uint64
	}
	// first[i][k] is node i's record of version k.
	first := make([]map[key]nodeapi.Arrival, len(r))
	for i, rep := range r {
		first[i] = make(map[key]nodeapi.Arrival, len(rep.arrivals))
		for _, a := range rep.arrivals {
			first[i][key{a.Agent, a.Seq}] = a
		}
	}
	out := []nodeapi.CardTravel{}
	for i, owner := range r {
		if owner.node.Error != "" {
			continue
		}
		k := key{owner.node.AgentID, owner.node.Seq}
		ct := nodeapi.CardTravel{Agent: k.agent, Name: owner.node.Name, Seq: k.seq, Arrivals: []nodeapi.Travel{}}
		if pub, ok := first[i][k]; ok && pub.Source == arrivals.SourceSelf {
			at := pub.At
			ct.PublishedAt = &at
		}
		for j, rep := range r {
			a, ok := first[j][k]
			if !ok || rep.node.Error != "" {
				continue
			}
			t := nodeapi.Travel{Node: rep.node.AgentID, At: a.At, Source: a.Source}
			if ct.PublishedAt != nil {
				ms := float64(a.At.Sub(*ct.PublishedAt).Microseconds()) / 1000
				t.AfterMS = &ms
			}
			ct.Arrivals = append(ct.Arrivals, t)
		}
		out = append(out, ct)
	}
	return out
}
