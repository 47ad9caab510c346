package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/eval"
	"github.com/adpnode/adpnode/scoring/index"
	"github.com/adpnode/adpnode/scoring/synthetic"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Measure adpnode components"}
	cmd.AddCommand(newBenchDiscoverCmd())
	return cmd
}

type benchDiscoverOpts struct {
	cards, queries, run, qrels string
	depth                      int
	baseline                   bool
	floor                      float64
	tag                        string

	synthetic     int
	seed          uint64
	perKind       int
	naivePerKind  int
	naive         bool
	syntheticOnly bool
	cpuProfile    string
}

func newBenchDiscoverCmd() *cobra.Command {
	var o benchDiscoverOpts
	cmd := &cobra.Command{
		Use:   "discover",
		Short: "Rank queries against a card file, or measure the index on a synthetic corpus",
		Long: `Ranks every query of --queries (JSON lines {"id": "...", "request": {adp.discover request}})
against the cards of --cards (one card JSON per line; unsigned cards are allowed),
writes a TREC run file (query_id Q0 agent_id rank score tag) with --run, and with
--qrels (query_id<TAB>agent_id<TAB>relevance) prints nDCG@10, Recall@10 and Recall@50.

With --synthetic N it generates a deterministic corpus of N agents and prints the
index build time, upsert latency, index memory per card and discover p50/p99 for
tag-only, text-only and mixed queries, beside a naive scan over the same corpus.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			switch {
			case o.synthetic > 0 && o.cards == "":
				return benchSynthetic(out, o)
			case o.synthetic == 0 && o.cards != "" && o.queries != "":
				return benchFiles(out, o)
			}
			return errors.New("give --cards and --queries, or --synthetic N")
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.cards, "cards", "", "cards, one JSON object per line")
	f.StringVar(&o.queries, "queries", "", `queries, one {"id", "request"} JSON object per line`)
	f.StringVar(&o.run, "run", "", "write a TREC run file here")
	f.StringVar(&o.qrels, "qrels", "", "relevance judgements: query_id<TAB>agent_id<TAB>relevance")
	f.IntVar(&o.depth, "depth", 100, "rank at least this many results per query (raises the request's limit)")
	f.BoolVar(&o.baseline, "baseline", false, "also rank with the plain BM25 baseline (one bag of all card text, stemmed, stopwords removed) and print both")
	f.Float64Var(&o.floor, "relevance-floor", -1, "relevance floor (share of the best relevance a result needs; -1: the default)")
	f.StringVar(&o.tag, "tag", "adpnode", "run tag written in the run file")
	f.IntVar(&o.synthetic, "synthetic", 0, "generate a corpus of N agents and measure the index")
	f.Uint64Var(&o.seed, "seed", 1, "synthetic corpus seed")
	f.IntVar(&o.perKind, "queries-per-kind", 300, "synthetic queries per query family for the index")
	f.IntVar(&o.naivePerKind, "naive-queries-per-kind", 50, "synthetic queries per family for the naive scan")
	f.BoolVar(&o.naive, "naive", true, "also measure the naive scan over the same corpus")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "with --synthetic: write a CPU profile of the index queries here")
	return cmd
}

// benchQuery is one line of a queries file.
type benchQuery struct {
	ID      string          `json:"id"`
	Request json.RawMessage `json:"request"`
}

// rankerOptions returns the scoring options of the full ranker: the
// defaults, with the relevance floor of --relevance-floor.
func rankerOptions(o benchDiscoverOpts) []scoring.Option {
	opts := []scoring.Option{scoring.WithTags(tag.Default())}
	if o.floor >= 0 {
		opts = append(opts, scoring.WithRelevanceFloor(o.floor))
	}
	return opts
}

// baselineOptions are the plain BM25 baseline's: the semantic factor
// alone, Snowball stemming and stopwords, no identifier splitting, no
// relevance floor. Its
// documents are flattened by baselineDoc, so that BM25 runs over one bag
// of every word of the card.
func baselineOptions() []scoring.Option {
	return []scoring.Option{scoring.WithTags(tag.Default()),
		scoring.WithWeights(scoring.Weights{Semantic: 1}),
		scoring.WithIdentifierSplitting(false),
		scoring.WithRelevanceFloor(0)}
}

// baselineDoc is the card as one text field: name, description, skills,
// tools with every string and property name of their input schemas at
// any depth, and examples with their tags.
func baselineDoc(c *adp.Card) scoring.Doc {
	var b strings.Builder
	add := func(s string) {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	add(c.Name)
	add(c.Description)
	for _, s := range c.Skills {
		add(strings.ReplaceAll(s, "/", " "))
	}
	for _, t := range c.Tools {
		add(t.Name)
		add(t.Description)
		var v any
		if json.Unmarshal(t.InputSchema, &v) == nil {
			jsonText(v, add)
		}
	}
	for _, e := range c.Examples {
		add(e.Text)
		for _, s := range e.Tags {
			add(strings.ReplaceAll(s, "/", " "))
		}
	}
	return scoring.Doc{ID: c.ID, Description: b.String()}
}

// jsonText calls add for every string and object key in v.
func jsonText(v any, add func(string)) {
	switch x := v.(type) {
	case string:
		add(x)
	case []any:
		for _, e := range x {
			jsonText(e, add)
		}
	case map[string]any:
		for k, e := range x {
			add(k)
			jsonText(e, add)
		}
	}
}

func openLines(path string, fn func(n int, line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*adp.MaxCardSize)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// The two rankings of benchFiles.
const (
	rankerMode   = "full ranker"
	baselineMode = "BM25 baseline"
)

// benchFiles ranks the queries with the full ranker and, with
// --baseline, with the plain BM25 baseline in the same run.
func benchFiles(out io.Writer, o benchDiscoverOpts) error {
	var qrels eval.Qrels
	if o.qrels != "" {
		f, err := os.Open(o.qrels)
		if err != nil {
			return err
		}
		qrels, err = eval.ReadQrels(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", o.qrels, err)
		}
	}
	runFile := o.run
	if err := rankFiles(out, o, rankerMode, rankerOptions(o), func(c *adp.Card) scoring.Doc {
		return node.DocFromCard(c, time.Time{}, time.Time{})
	}, runFile, qrels); err != nil {
		return err
	}
	if !o.baseline {
		return nil
	}
	if runFile != "" {
		runFile += ".baseline"
	}
	return rankFiles(out, o, baselineMode, baselineOptions(), baselineDoc, runFile, qrels)
}

// rankFiles indexes the cards with opts and doc, ranks every query,
// writes the run file (when runFile is not empty) and prints the
// measures against qrels (when not nil).
func rankFiles(out io.Writer, o benchDiscoverOpts, mode string, opts []scoring.Option, doc func(*adp.Card) scoring.Doc, runFile string, qrels eval.Qrels) error {
	idx, err := index.New(opts...)
	if err != nil {
		return err
	}
	start := time.Now()
	err = openLines(o.cards, func(_ int, line []byte) error {
		c, err := adp.ParseCard(line)
		if err != nil {
			return err
		}
		return idx.Upsert(doc(c))
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "cards: %d indexed in %v (%s)\n", idx.Len(), time.Since(start).Round(time.Millisecond), mode)

	var run io.Writer = io.Discard
	if runFile != "" {
		f, err := os.Create(runFile)
		if err != nil {
			return err
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		defer bw.Flush()
		run = bw
	}
	runs := make(map[string][]string)
	var lat []time.Duration
	now := time.Now()
	err = openLines(o.queries, func(_ int, line []byte) error {
		var bq benchQuery
		if err := json.Unmarshal(line, &bq); err != nil {
			return err
		}
		if bq.ID == "" || strings.ContainsAny(bq.ID, " \t\n") {
			return fmt.Errorf("query id %q is empty or has white space", bq.ID)
		}
		req, err := adp.ParseDiscoverRequest(bq.Request)
		if err != nil {
			return err
		}
		q, _ := node.QueryFromRequest(req)
		q.Limit = max(q.Limit, o.depth)
		if mode == baselineMode {
			q.MinScore = 0 // rank everything a term matches
		}
		t := time.Now()
		res := idx.Search(q, nil, now)
		lat = append(lat, time.Since(t))
		ids := make([]string, len(res.Hits))
		scores := make([]float64, len(res.Hits))
		for i, h := range res.Hits {
			ids[i], scores[i] = h.ID, h.Score
		}
		runs[bq.ID] = ids
		return eval.WriteRun(run, bq.ID, ids, scores, o.tag)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d queries, discover p50 %v p99 %v\n", mode, len(runs), eval.Percentile(lat, 50), eval.Percentile(lat, 99))
	if qrels == nil {
		return nil
	}
	m := eval.Evaluate(runs, qrels)
	fmt.Fprintf(out, "%s on %d judged queries: nDCG@10 %.4f  Recall@10 %.4f  Recall@50 %.4f\n", mode, m.Queries, m.NDCG10, m.Recall10, m.Recall50)
	return nil
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// latencies are wall-clock percentiles and, where the OS tells, the
// percentiles of the CPU time the measuring thread spent, which other
// processes on a loaded machine do not inflate.
type latencies struct{ p50, p99, cpu50, cpu99 time.Duration }

func measure(n int, fn func(i int)) latencies {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range min(n, 10) { // warm-up
		fn(i)
	}
	d := make([]time.Duration, n)
	cpu := make([]time.Duration, 0, n)
	for i := range n {
		c0 := eval.ThreadCPU()
		t := time.Now()
		fn(i)
		d[i] = time.Since(t)
		if c1 := eval.ThreadCPU(); c0 >= 0 && c1 >= 0 {
			cpu = append(cpu, c1-c0)
		}
	}
	return latencies{eval.Percentile(d, 50), eval.Percentile(d, 99), eval.Percentile(cpu, 50), eval.Percentile(cpu, 99)}
}

func benchSynthetic(out io.Writer, o benchDiscoverOpts) error {
	n := o.synthetic
	g := synthetic.New(o.seed)
	now := g.Now()
	fmt.Fprintf(out, "synthetic corpus: %d agents, seed %d, GOMAXPROCS %d, %s\n", n, o.seed, runtime.GOMAXPROCS(0), loadAvg())

	ups := make([]time.Duration, n)
	upsCPU := make([]time.Duration, 0, n/100+1) // every 100th upsert, thread CPU time
	before := heapAlloc()
	idx, err := index.New(rankerOptions(o)...)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	start := time.Now()
	for i := range n {
		d := g.Doc(i)
		var c0 time.Duration
		if i%100 == 0 {
			c0 = eval.ThreadCPU()
		}
		t := time.Now()
		if err := idx.Upsert(d); err != nil {
			return err
		}
		ups[i] = time.Since(t)
		if i%100 == 0 {
			if c1 := eval.ThreadCPU(); c0 >= 0 && c1 >= 0 {
				upsCPU = append(upsCPU, c1-c0)
			}
		}
	}
	build := time.Since(start)
	runtime.UnlockOSThread()
	after := heapAlloc()
	withSignals := 0
	for i := range n { // this node's interaction records, a small share of the agents
		id := g.ID(i)
		if sig := g.Signals(id); sig != (scoring.Signals{}) {
			idx.SetSignals(id, sig)
			withSignals++
		}
	}
	var sum time.Duration
	for _, u := range ups {
		sum += u
	}
	st := idx.Stats()
	fmt.Fprintf(out, "index build: %v (corpus generation included); upsert mean %.2f µs, p50 %v, p99 %v (cpu p50 %v p99 %v, every 100th)\n",
		build.Round(time.Millisecond), float64(sum.Nanoseconds())/float64(n)/1e3, eval.Percentile(ups, 50), eval.Percentile(ups, 99),
		eval.Percentile(upsCPU, 50), eval.Percentile(upsCPU, 99))
	fmt.Fprintf(out, "signals: %d agents with interaction records, pushed into the index\n", withSignals)
	fmt.Fprintf(out, "index memory: %.0f B/card (heap after GC: %.1f MiB for %d cards); %d terms, %d postings, %d example postings, %d tag postings\n",
		float64(after-before)/float64(n), float64(after-before)/(1<<20), n, st.Terms, st.Postings, st.ExamplePostings, st.TagPostings)

	kinds := []synthetic.Kind{synthetic.TagOnly, synthetic.TextOnly, synthetic.Mixed}
	indexLat := make(map[synthetic.Kind]latencies)
	indexTop := make(map[synthetic.Kind][][]string)
	stop, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	for _, k := range kinds {
		tops := make([][]string, o.naivePerKind)
		indexLat[k] = measure(o.perKind, func(i int) {
			res := idx.Search(g.Query(k, i), nil, now)
			if i < len(tops) {
				tops[i] = hitIDs(res.Hits)
			}
		})
		indexTop[k] = tops
	}
	if err := stop(); err != nil {
		return err
	}
	ups = nil
	if !o.naive {
		for _, k := range kinds {
			il := indexLat[k]
			fmt.Fprintf(out, "%-10s index p50 %v p99 %v (cpu p50 %v p99 %v)\n", k, il.p50, il.p99, il.cpu50, il.cpu99)
		}
		return nil
	}
	idx = nil
	runtime.GC()
	nv, err := scoring.NewNaive(rankerOptions(o)...)
	if err != nil {
		return err
	}
	start = time.Now()
	for i := range n {
		d := g.Doc(i)
		if err := nv.Upsert(d); err != nil {
			return err
		}
		if sig := g.Signals(d.ID); sig != (scoring.Signals{}) {
			nv.SetSignals(d.ID, sig)
		}
	}
	fmt.Fprintf(out, "naive build: %v\n", time.Since(start).Round(time.Millisecond))
	agree, compared := 0, 0
	fmt.Fprintf(out, "%-10s %12s %12s %12s %12s %9s %9s | %12s %12s %12s %12s %9s %9s\n", "queries", "index p50", "index p99", "naive p50", "naive p99", "x p50", "x p99",
		"cpu idx p50", "cpu idx p99", "cpu nv p50", "cpu nv p99", "x p50", "x p99")
	for _, k := range kinds {
		tops := indexTop[k]
		nl := measure(o.naivePerKind, func(i int) { nv.Search(g.Query(k, i), nil, now) })
		for i, top := range tops {
			compared++
			if slices.Equal(hitIDs(nv.Search(g.Query(k, i), nil, now).Hits), top) {
				agree++
			}
		}
		il := indexLat[k]
		fmt.Fprintf(out, "%-10s %12v %12v %12v %12v %8.1fx %8.1fx | %12v %12v %12v %12v %8.1fx %8.1fx\n", k,
			il.p50, il.p99, nl.p50, nl.p99, ratio(nl.p50, il.p50), ratio(nl.p99, il.p99),
			il.cpu50, il.cpu99, nl.cpu50, nl.cpu99, ratio(nl.cpu50, il.cpu50), ratio(nl.cpu99, il.cpu99))
	}
	fmt.Fprintf(out, "top-10 agreement index vs naive: %d/%d queries\n", agree, compared)
	return nil
}

// startCPUProfile starts a CPU profile written to path (none when path is
// empty) and returns the function that stops it.
func startCPUProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func hitIDs(hs []scoring.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

// loadAvg reports the machine load, which matters on a shared machine.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load " + strings.Join(f[:3], " ")
}
