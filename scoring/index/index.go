package index

import (
	"strings"
	"sync"
	"time"

	"github.com/adpnode/adpnode/scoring"
)

// Index is an in-memory discovery index: inverted postings for text terms
// (context fields and examples) and for canonical skill tags including
// every parent path, plus the per-agent data the other factors need.
//
// Postings are parallel slices of uint32 document numbers and packed
// uint16 per-field term frequencies; there are no per-posting pointers
// and the index keeps no card text. Deleting or replacing an agent marks
// its document dead; postings skip dead documents, and once dead
// documents reach the compact ratio of the live ones the index rebuilds
// its arrays. Until then the document frequencies behind idf still count
// dead documents, as in Lucene.
//
// An Index is safe for concurrent use: Search takes a read lock, the
// mutators a write lock.
type Index struct {
	cfg *scoring.Model

	mu    sync.RWMutex
	terms map[string]uint32 // term -> term number
	post  []postings        // by term number

	rawTags  map[string]uint32 // cleaned declared tag -> raw tag number
	rawInfo  []rawTag
	canonIDs map[string]uint32 // canonical tag -> canon number
	canons   []canonTag

	protos   map[string]uint8 // protocol -> bit (< 63); bit 63 means "see protoOver"
	protoOut map[uint32][]string

	byID  map[string]uint32
	ids   []string
	meta  []docMeta
	flags []uint8    // flagAlive, flagSig: meta[d].alive and hasSig, packed for the hot loops
	lens  []uint16   // NumFields per document
	dtags [][]uint32 // raw tag numbers per document

	exDoc []uint32
	exLen []uint16

	sig map[string]scoring.Signals // pushed by SetSignals; sparse
	// docSig holds the signals of sig by document number for the live
	// documents that have any, so that a search reads them without
	// hashing and comparing agent ids.
	docSig map[uint32]scoring.Signals

	live, dead int
	lenSums    scoring.LengthSums
	exLive     int

	pool   sync.Pool // *scratch
	tfPool sync.Pool // *scoring.TermCounts for AnalyzeDoc
}

type postings struct {
	docs []uint32
	tfs  []uint16
	ex   []uint32
	extf []uint8
	// exDocs holds the document of each example posting (exDoc of ex), so
	// that a scan tests a posting's document without reading exDoc at a
	// far example number.
	exDocs []uint32
	bound
	blocks []blockBound // per block with a posting, in block order (blocks.go); nil for a rare term
}

// bound holds what bounds the contribution of a term to any document or
// example: per field the largest term frequency and the shortest field
// among its postings, and the same for examples. Dead postings still
// count (until compaction, which keeps the old bound), so it is an upper
// bound, never exact; pruning needs no more.
type bound struct {
	maxTF  [scoring.NumFields]uint8
	minLen [scoring.NumFields]uint16
	exTF   uint8
	exLen  uint16
}

// addDoc widens the bound by a context posting.
func (b *bound) addDoc(packed uint16, lens []uint16) {
	for f := range scoring.NumFields {
		tf := uint8((packed >> (scoring.TFBits * f)) & scoring.TFMax)
		if tf == 0 {
			continue
		}
		if b.maxTF[f] == 0 || lens[f] < b.minLen[f] {
			b.minLen[f] = lens[f]
		}
		b.maxTF[f] = max(b.maxTF[f], tf)
	}
}

// addExample widens the bound by an example posting.
func (b *bound) addExample(tf uint8, n uint16) {
	if tf == 0 {
		return
	}
	if b.exTF == 0 || n < b.exLen {
		b.exLen = n
	}
	b.exTF = max(b.exTF, tf)
}

type rawTag struct {
	raw   string
	canon uint32
}

type canonTag struct {
	tag  string
	anc  []uint32 // this tag and its parents, canon numbers
	docs []uint32 // documents declaring this tag or one below it
}

type docMeta struct {
	updated, indexed, expires int64
	protos                    uint64
	exStart                   uint32
	maxConc                   int32
	nEx                       uint16 // passages: examples, then nTool tools
	nTool                     uint16
	status                    uint8
	alive                     bool
	hasSig                    bool // sig holds this agent's signals
}

const overflowProto = 63

// Bits of Index.flags.
const (
	flagAlive = 1 << iota
	flagSig
)

// New returns an empty index.
func New(opts ...scoring.Option) (*Index, error) {
	cfg, err := scoring.NewModel(opts...)
	if err != nil {
		return nil, err
	}
	return &Index{
		cfg:      cfg,
		terms:    make(map[string]uint32),
		rawTags:  make(map[string]uint32),
		canonIDs: make(map[string]uint32),
		protos:   make(map[string]uint8),
		protoOut: make(map[uint32][]string),
		byID:     make(map[string]uint32),
		sig:      make(map[string]scoring.Signals),
		docSig:   make(map[uint32]scoring.Signals),
	}, nil
}

// Weights returns the configured weights.
func (x *Index) Weights() scoring.Weights { return x.cfg.Weights() }

// Tags returns the tag vocabulary the index normalizes tags with.
func (x *Index) Tags() scoring.Tags { return x.cfg.Tags() }

// Len returns the number of live documents.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// IndexStats describes the size of an index.
type IndexStats struct {
	Docs, Dead, Examples int
	Terms, Tags          int
	// Postings count context, example and tag postings.
	Postings, ExamplePostings, TagPostings int
}

// Stats returns the current sizes.
func (x *Index) Stats() IndexStats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	st := IndexStats{Docs: x.live, Dead: x.dead, Examples: x.exLive, Terms: len(x.terms), Tags: len(x.canons)}
	for i := range x.post {
		st.Postings += len(x.post[i].docs)
		st.ExamplePostings += len(x.post[i].ex)
	}
	for i := range x.canons {
		st.TagPostings += len(x.canons[i].docs)
	}
	return st
}

// SetSignals records this node's signals for an agent, indexed or not
// yet; zero signals forget it. Search uses them when called without a
// signals function. Keeping the signals in the index lets it bound the
// score of every agent without signals exactly and prune the rest.
func (x *Index) SetSignals(id string, s scoring.Signals) {
	x.mu.Lock()
	defer x.mu.Unlock()
	has := !s.IsZero()
	if has {
		x.sig[id] = s
	} else {
		delete(x.sig, id)
	}
	if n, ok := x.byID[id]; ok {
		x.meta[n].hasSig = has
		x.flags[n] &^= flagSig
		delete(x.docSig, n)
		if has {
			x.flags[n] |= flagSig
			x.docSig[n] = s
		}
	}
}

// Upsert adds d or replaces the document with the same ID. A revoked
// document is deleted.
func (x *Index) Upsert(d scoring.Doc) error {
	if d.ID == "" {
		return scoring.ErrNoID
	}
	if d.Revoked {
		x.Delete(d.ID)
		return nil
	}
	tc, _ := x.tfPool.Get().(*scoring.TermCounts)
	if tc == nil {
		tc = scoring.NewTermCounts()
	}
	dt := x.cfg.AnalyzeDoc(&d, tc)
	defer x.tfPool.Put(tc) // after insert: dt's terms are tc's
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, ok := x.byID[d.ID]; ok {
		x.kill(old)
	}
	x.insert(&d, &dt)
	x.maybeCompact()
	return nil
}

// Touch sets the received and expiry times of the document with this ID
// without analysing it again (the same card received anew) and reports
// whether it is indexed.
func (x *Index) Touch(id string, indexedAt, expiresAt time.Time) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	n, ok := x.byID[id]
	if !ok {
		return false
	}
	x.meta[n].indexed, x.meta[n].expires = scoring.UnixNano(indexedAt), scoring.UnixNano(expiresAt)
	return true
}

// Delete removes the document with this ID and reports whether it was
// there.
func (x *Index) Delete(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	n, ok := x.byID[id]
	if !ok {
		return false
	}
	x.kill(n)
	x.maybeCompact()
	return true
}

// Expire deletes every document whose expiry is at or before t and
// returns how many it deleted. Documents that expired after t stay (and
// are returned to queries with AllowStale).
func (x *Index) Expire(t time.Time) int {
	cut := t.UnixNano()
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for d := range x.meta {
		m := &x.meta[d]
		if m.alive && m.expires != 0 && m.expires <= cut {
			x.kill(uint32(d))
			n++
		}
	}
	x.maybeCompact()
	return n
}

// Compact rebuilds the arrays without dead documents now, which also makes
// document frequencies exact.
func (x *Index) Compact() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.compact()
}

func (x *Index) insert(d *scoring.Doc, dt *scoring.DocTerms) {
	n := uint32(len(x.ids))
	x.byID[d.ID] = n
	x.ids = append(x.ids, d.ID)
	x.lens = append(x.lens, dt.Lens[:]...)
	x.lenSums.AddDoc(dt.Lens[:], 1)
	for _, t := range dt.Terms {
		tn := x.term(t.Term)
		p := &x.post[tn]
		p.docs = append(p.docs, n)
		p.tfs = append(p.tfs, t.TF)
		p.addDoc(t.TF, dt.Lens[:])
		x.addDocBlock(p, n, t.TF)
	}
	m := docMeta{
		updated: scoring.UnixNano(d.UpdatedAt), indexed: scoring.UnixNano(d.IndexedAt), expires: scoring.UnixNano(d.ExpiresAt),
		exStart: uint32(len(x.exDoc)), nEx: uint16(len(dt.Examples)), nTool: uint16(dt.Tools),
		maxConc: int32(min(max(d.MaxConcurrent, 0), 1<<30)), status: scoring.ParseStatus(d.Status), alive: true,
	}
	if sig, ok := x.sig[d.ID]; ok {
		m.hasSig = true
		x.docSig[n] = sig
	}
	for e, ex := range dt.Examples {
		en := m.exStart + uint32(e)
		x.exDoc = append(x.exDoc, n)
		x.exLen = append(x.exLen, ex.N)
		x.lenSums.AddExample(ex.N, 1)
		for j, t := range ex.Terms {
			p := &x.post[x.term(t)]
			p.ex = append(p.ex, en)
			p.extf = append(p.extf, ex.TFs[j])
			p.exDocs = append(p.exDocs, n)
			p.addExample(ex.TFs[j], ex.N)
			x.addExampleBlock(p, n, ex.TFs[j], ex.N)
		}
	}
	x.exLive += len(dt.Examples)
	var tags []uint32
	if len(dt.Tags) > 0 {
		tags = make([]uint32, 0, len(dt.Tags))
	}
	var seenCanon map[uint32]bool
	for _, t := range dt.Tags {
		rn := x.rawTag(t)
		tags = append(tags, rn)
		for _, a := range x.canons[x.rawInfo[rn].canon].anc {
			if seenCanon == nil {
				seenCanon = make(map[uint32]bool, 8)
			}
			if !seenCanon[a] {
				seenCanon[a] = true
				x.canons[a].docs = append(x.canons[a].docs, n)
			}
		}
	}
	x.dtags = append(x.dtags, tags)
	for _, p := range dt.Protos {
		bit, ok := x.protos[p]
		if !ok && len(x.protos) < overflowProto {
			bit = uint8(len(x.protos))
			x.protos[p] = bit
			ok = true
		}
		if ok {
			m.protos |= 1 << bit
		} else {
			m.protos |= 1 << overflowProto
			x.protoOut[n] = append(x.protoOut[n], p)
		}
	}
	x.meta = append(x.meta, m)
	f := uint8(flagAlive)
	if m.hasSig {
		f |= flagSig
	}
	x.flags = append(x.flags, f)
	x.live++
}

func (x *Index) term(t string) uint32 {
	tn, ok := x.terms[t]
	if !ok {
		tn = uint32(len(x.post))
		x.terms[strings.Clone(t)] = tn // t may share a card's text
		x.post = append(x.post, postings{})
	}
	return tn
}

func (x *Index) rawTag(t scoring.DocTag) uint32 {
	if rn, ok := x.rawTags[t.Raw]; ok {
		return rn
	}
	rn := uint32(len(x.rawInfo))
	x.rawTags[t.Raw] = rn
	x.rawInfo = append(x.rawInfo, rawTag{raw: t.Raw, canon: x.canon(t.Canon)})
	return rn
}

func (x *Index) canon(tag string) uint32 {
	if cn, ok := x.canonIDs[tag]; ok {
		return cn
	}
	anc := x.cfg.Tags().Paths(tag)
	if len(anc) == 0 {
		anc = []string{tag}
	}
	ids := make([]uint32, len(anc))
	// Parents first, so that their numbers exist.
	for i := len(anc) - 1; i >= 1; i-- {
		ids[i] = x.canon(anc[i])
	}
	cn := uint32(len(x.canons))
	ids[0] = cn
	x.canonIDs[tag] = cn
	x.canons = append(x.canons, canonTag{tag: tag, anc: ids})
	return cn
}
