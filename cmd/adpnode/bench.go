package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/node/discovery/bench"
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

// rankerOptions returns the full ranker of a run.
func rankerOptions(o benchDiscoverOpts) bench.Options {
	return bench.Options{RelevanceFloor: o.floor}
}

// The two rankings of benchFiles.
const (
	rankerMode   = "full ranker"
	baselineMode = "BM25 baseline"
)

// benchFiles ranks the queries with the full ranker and, with
// --baseline, with the plain BM25 baseline in the same run (its run file
// beside --run, suffixed .baseline).
func benchFiles(out io.Writer, o benchDiscoverOpts) error {
	corpus, err := bench.LoadCards(o.cards, rankerOptions(o))
	if err != nil {
		return err
	}
	if err := rankFiles(out, o, rankerMode, corpus, o.run); err != nil {
		return err
	}
	if !o.baseline {
		return nil
	}
	if corpus, err = bench.LoadBaseline(o.cards); err != nil {
		return err
	}
	runFile := o.run
	if runFile != "" {
		runFile += ".baseline"
	}
	return rankFiles(out, o, baselineMode, corpus, runFile)
}

// rankFiles ranks every query against corpus, writes the run file (when
// runFile is not empty) and prints the measures against --qrels (when
// given).
func rankFiles(out io.Writer, o benchDiscoverOpts, mode string, corpus *bench.Corpus, runFile string) error {
	fmt.Fprintf(out, "cards: %d indexed in %v (%s)\n", corpus.Len(), corpus.Took.Round(time.Millisecond), mode)

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
	r, err := corpus.Rank(o.queries, o.depth, run, o.tag)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d queries, discover p50 %v p99 %v\n", mode, len(r.Runs), r.P50, r.P99)
	if o.qrels == "" {
		return nil
	}
	m, err := bench.Evaluate(r.Runs, o.qrels)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s on %d judged queries: nDCG@10 %.4f  Recall@10 %.4f  Recall@50 %.4f\n", mode, m.Queries, m.NDCG10, m.Recall10, m.Recall50)
	return nil
}

func benchSynthetic(out io.Writer, o benchDiscoverOpts) error {
	n := o.synthetic
	s := bench.NewSynthetic(n, o.seed, rankerOptions(o))
	fmt.Fprintf(out, "synthetic corpus: %d agents, seed %d, GOMAXPROCS %d, %s\n", n, o.seed, runtime.GOMAXPROCS(0), bench.LoadAvg())

	b, err := s.Build()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "index build: %v (corpus generation included); upsert mean %.2f µs, p50 %v, p99 %v (cpu p50 %v p99 %v, every 100th)\n",
		b.Took.Round(time.Millisecond), b.UpsertMeanMicros, b.UpsertP50, b.UpsertP99, b.UpsertCPU50, b.UpsertCPU99)
	fmt.Fprintf(out, "signals: %d agents with interaction records, pushed into the index\n", b.WithSignals)
	fmt.Fprintf(out, "index memory: %.0f B/card (heap after GC: %.1f MiB for %d cards); %d terms, %d postings, %d example postings, %d tag postings\n",
		float64(b.HeapBytes)/float64(n), float64(b.HeapBytes)/(1<<20), n, b.Terms, b.Postings, b.ExamplePostings, b.TagPostings)

	fams, err := measureIndex(s, o)
	if err != nil {
		return err
	}
	if !o.naive {
		for _, f := range fams {
			il := f.Index
			fmt.Fprintf(out, "%-10s index p50 %v p99 %v (cpu p50 %v p99 %v)\n", f.Name, il.P50, il.P99, il.CPU50, il.CPU99)
		}
		return nil
	}
	nv, err := s.CompareNaive(o.naivePerKind, fams)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "naive build: %v\n", nv.Took.Round(time.Millisecond))
	fmt.Fprintf(out, "%-10s %12s %12s %12s %12s %9s %9s | %12s %12s %12s %12s %9s %9s\n", "queries", "index p50", "index p99", "naive p50", "naive p99", "x p50", "x p99",
		"cpu idx p50", "cpu idx p99", "cpu nv p50", "cpu nv p99", "x p50", "x p99")
	for _, f := range fams {
		il, nl := f.Index, f.Naive
		fmt.Fprintf(out, "%-10s %12v %12v %12v %12v %8.1fx %8.1fx | %12v %12v %12v %12v %8.1fx %8.1fx\n", f.Name,
			il.P50, il.P99, nl.P50, nl.P99, ratio(nl.P50, il.P50), ratio(nl.P99, il.P99),
			il.CPU50, il.CPU99, nl.CPU50, nl.CPU99, ratio(nl.CPU50, il.CPU50), ratio(nl.CPU99, il.CPU99))
	}
	fmt.Fprintf(out, "top-10 agreement index vs naive: %d/%d queries\n", nv.Agree, nv.Compared)
	return nil
}

// measureIndex measures the index's query families, under a CPU profile
// written to --cpuprofile when it is set.
func measureIndex(s *bench.Synthetic, o benchDiscoverOpts) ([]bench.Family, error) {
	if o.cpuProfile == "" {
		return s.MeasureIndex(o.perKind, o.naivePerKind, nil)
	}
	f, err := os.Create(o.cpuProfile)
	if err != nil {
		return nil, err
	}
	fams, err := s.MeasureIndex(o.perKind, o.naivePerKind, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return fams, err
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}
