package index

import "github.com/adpnode/adpnode/scoring"

// pass applies the hard filters that need no signals.
func (x *Index) pass(d uint32, m *docMeta, p *scoring.Plan, required, excluded []uint32, mask uint64, other []string, now int64) bool {
	if m.expires != 0 && now >= m.expires && !p.AllowStale {
		return false
	}
	if p.MaxAge > 0 {
		at := m.indexed
		if at == 0 {
			at = m.updated
		}
		if at == 0 || now-at > int64(p.MaxAge) {
			return false
		}
	}
	if len(p.Exclude) > 0 {
		if _, ok := p.Exclude[x.ids[d]]; ok {
			return false
		}
	}
	if len(p.Protocols) > 0 && m.protos&mask == 0 {
		if m.protos&(1<<overflowProto) == 0 || !scoring.AnyIn(x.protoOut[d], other) {
			return false
		}
	}
	if len(required) == 0 && len(excluded) == 0 {
		return true
	}
	tags := x.dtags[d]
	for _, r := range required {
		if !x.hasTag(tags, r) {
			return false
		}
	}
	for _, e := range excluded {
		if x.hasTag(tags, e) {
			return false
		}
	}
	return true
}

// hasTag reports whether one of the raw tags is cn or lies below it.
func (x *Index) hasTag(tags []uint32, cn uint32) bool {
	for _, rn := range tags {
		for _, a := range x.canons[x.rawInfo[rn].canon].anc {
			if a == cn {
				return true
			}
		}
	}
	return false
}

func (x *Index) canonNums(tags []string) []uint32 {
	var out []uint32
	for _, t := range tags {
		if cn, ok := x.canonIDs[t]; ok {
			out = append(out, cn)
		}
	}
	return out
}

// protoMask returns the bits of the requested protocols that have one and
// the requested protocols that have none.
func (x *Index) protoMask(protos []string) (uint64, []string) {
	var mask uint64
	var other []string
	for _, p := range protos {
		if bit, ok := x.protos[p]; ok {
			mask |= 1 << bit
		} else {
			other = append(other, p)
		}
	}
	return mask, other
}

func (x *Index) docTags(d uint32) []scoring.DocTag {
	out := make([]scoring.DocTag, 0, len(x.dtags[d]))
	for _, rn := range x.dtags[d] {
		ri := x.rawInfo[rn]
		out = append(out, scoring.DocTag{Raw: ri.raw, Canon: x.canons[ri.canon].tag})
	}
	return out
}

func (x *Index) exampleMatches(s *scratch, m *docMeta, exIdfSum float64) []scoring.ExampleMatch {
	var out []scoring.ExampleMatch
	for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
		if v := s.exAcc[e]; v > 0 {
			out = append(out, scoring.PassageMatch(int(e-m.exStart), int(m.nEx), int(m.nTool), x.cfg.ExampleScore(v, exIdfSum)))
		}
	}
	return scoring.SortExamples(out)
}

// hitHeap is a min-heap of hits: the root is the worst kept hit.
type hitHeap []scoring.Hit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	return h.worse(h[i].Score, h[i].ID, h[j].Score, h[j].ID)
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(v any)   { *h = append(*h, v.(scoring.Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// worse reports whether (as, aid) ranks below (bs, bid).
func (hitHeap) worse(as float64, aid string, bs float64, bid string) bool {
	return scoring.Better(bs, bid, as, aid)
}
