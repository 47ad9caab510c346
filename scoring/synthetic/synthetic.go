// Package synthetic generates a deterministic, realistic corpus of agent
// documents and discovery queries for benchmarks and tests of package
// scoring: names from brand syllables and skill words, descriptions,
// tools with input properties and example tasks built from per-category
// verbs and objects over a shared domain vocabulary, skill tags from the
// standard taxonomy (sometimes as aliases or bare leaves), endpoint
// protocols and concurrency limits.
//
// Doc(i) depends only on the seed and i, so a corpus can be streamed
// twice (for an index and a naive baseline) without being held in
// memory. A Generator is safe for concurrent use.
package synthetic

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/scoring"
)

// Generator produces documents and queries from a seed.
type Generator struct {
	seed uint64
	tags []string
	base time.Time
}

// New returns a generator for seed.
func New(seed uint64) *Generator {
	return &Generator{
		seed: seed,
		tags: tag.Default().StandardTags(),
		base: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

// Now is the reference time of the corpus: every document was indexed in
// the 24 hours before it and expires after it.
func (g *Generator) Now() time.Time { return g.base.Add(24 * time.Hour) }

func (g *Generator) rng(kind, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.seed^kind*0x9e3779b97f4a7c15, i*0xbf58476d1ce4e5b9+kind))
}

type category struct {
	verbs, objects []string
}

var categories = map[string]category{
	"nlp": {[]string{"translate", "summarize", "classify", "analyze", "rewrite", "extract", "proofread", "answer"},
		[]string{"documents", "emails", "contracts", "reviews", "articles", "transcripts", "tickets", "reports", "messages", "questions"}},
	"vision": {[]string{"detect", "recognize", "segment", "caption", "inspect", "scan", "enhance", "label"},
		[]string{"images", "photos", "receipts", "invoices", "videos", "x-rays", "faces", "products", "defects", "handwriting"}},
	"audio": {[]string{"transcribe", "synthesize", "denoise", "identify", "compose", "dub", "mix", "classify"},
		[]string{"podcasts", "meetings", "calls", "voices", "songs", "interviews", "lectures", "recordings", "voicemails"}},
	"analytical": {[]string{"forecast", "optimize", "analyze", "visualize", "model", "predict", "benchmark", "audit"},
		[]string{"sales", "inventory", "metrics", "portfolios", "budgets", "datasets", "churn", "demand", "prices", "kpis"}},
	"coding": {[]string{"generate", "debug", "review", "refactor", "test", "document", "migrate", "profile"},
		[]string{"code", "functions", "apis", "queries", "scripts", "services", "modules", "pipelines", "schemas"}},
	"retrieval": {[]string{"search", "find", "crawl", "index", "retrieve", "compare", "monitor", "track"},
		[]string{"papers", "news", "flights", "hotels", "products", "patents", "jobs", "recipes", "listings", "laws"}},
	"creative": {[]string{"write", "design", "illustrate", "draft", "storyboard", "brainstorm", "animate", "compose"},
		[]string{"stories", "logos", "slogans", "posters", "poems", "scripts", "slides", "banners", "characters"}},
	"ops": {[]string{"deploy", "monitor", "secure", "scale", "backup", "schedule", "alert", "patch"},
		[]string{"clusters", "servers", "containers", "databases", "workloads", "incidents", "certificates", "logs", "jobs"}},
}

var (
	domains = strings.Fields(`finance healthcare retail legal insurance logistics education travel gaming energy
real-estate manufacturing agriculture telecom media marketing hr recruiting government nonprofit
automotive aviation shipping pharma biotech banking crypto ecommerce hospitality sports fashion
construction mining utilities security research publishing music film food fitness`)
	languages = strings.Fields(`english german french spanish italian portuguese dutch polish russian chinese
japanese korean arabic hindi turkish swedish greek hebrew vietnamese thai`)
	adjectives = strings.Fields(`fast accurate secure private multilingual reliable scalable lightweight
enterprise open-source realtime batch affordable explainable compliant`)
	syllables = strings.Fields(`no va zen qu il ly ra ka mi to sol ar is on ex el um bri ta ver lo fi tri ko sa`)
	suffixes  = strings.Fields(`Agent Bot Assistant Pro Hub AI Works Studio Engine Copilot Desk Lab`)
	props     = strings.Fields(`text language url file query limit format image audio region date currency
locale threshold model style length source target timezone priority`)
	protocols = []string{"aitp", "https", "mcp", "a2a", "grpc"}
	aliases   = map[string]string{"coding/python": "py", "analytical/machine-learning": "ml",
		"audio/speech-to-text": "stt", "ops/kubernetes": "k8s", "nlp/named-entity-recognition": "ner"}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// skewed picks with a Zipf-like bias towards the front of s.
func skewed[T any](r *rand.Rand, s []T) T {
	f := r.Float64()
	return s[int(f*f*float64(len(s)))]
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Doc returns document i.
func (g *Generator) Doc(i int) scoring.Doc {
	r := g.rng(1, uint64(i))
	primary := pick(r, g.tags)
	cat, leaf, _ := strings.Cut(primary, "/")
	c := categories[cat]
	domain := skewed(r, domains)
	verb, object := pick(r, c.verbs), pick(r, c.objects)

	brand := title(pick(r, syllables) + pick(r, syllables) + pick(r, syllables))
	name := fmt.Sprintf("%s %s %s", brand, title(strings.ReplaceAll(leaf, "-", " ")), pick(r, suffixes))

	var desc strings.Builder
	fmt.Fprintf(&desc, "%s agent that can %s %s %s for %s teams.", title(pick(r, adjectives)), verb, domain, object, domain)
	if r.IntN(2) == 0 {
		fmt.Fprintf(&desc, " Supports %s and %s input and %s %s with %s output.", pick(r, languages), pick(r, languages),
			pick(r, c.verbs), pick(r, c.objects), pick(r, adjectives))
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&desc, " Built for %s %s workflows at scale.", skewed(r, domains), strings.ReplaceAll(leaf, "-", " "))
	}

	tags := []string{primary}
	for range r.IntN(3) {
		t := pick(r, g.tags)
		if r.IntN(2) == 0 { // often a second skill in the same category
			for range 8 {
				if strings.HasPrefix(t, cat+"/") {
					break
				}
				t = pick(r, g.tags)
			}
		}
		tags = append(tags, t)
	}
	for j, t := range tags {
		switch {
		case aliases[t] != "" && r.IntN(2) == 0:
			tags[j] = aliases[t]
		case r.IntN(6) == 0:
			_, l, _ := strings.Cut(t, "/")
			tags[j] = l
		}
	}
	if r.IntN(4) == 0 {
		tags = append(tags, domain)
	}

	var tools []scoring.ToolText
	for range 1 + r.IntN(3) {
		v, o := pick(r, c.verbs), pick(r, c.objects)
		tp := []string{pick(r, props), pick(r, props)}
		if r.IntN(2) == 0 {
			tp = append(tp, pick(r, props))
		}
		tools = append(tools, scoring.ToolText{
			Name:        v + "_" + strings.TrimSuffix(o, "s"),
			Description: fmt.Sprintf("%s %s %s and return the %s result.", title(v), pick(r, domains), o, pick(r, adjectives)),
			InputProps:  tp,
		})
	}
	var examples []scoring.ExampleText
	for k := range 1 + r.IntN(3) {
		v, o := pick(r, c.verbs), pick(r, c.objects)
		examples = append(examples, scoring.ExampleText{
			ID:   fmt.Sprintf("ex-%d", k+1),
			Text: fmt.Sprintf("%s these %s %s from our %s team in %s", title(v), skewed(r, domains), o, pick(r, domains), title(pick(r, languages))),
		})
	}
	var protos []string
	for _, p := range protocols {
		if r.IntN(3) == 0 {
			protos = append(protos, p)
		}
	}
	if len(protos) == 0 {
		protos = []string{"aitp"}
	}
	indexed := g.base.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
	status := "active"
	if r.IntN(20) == 0 {
		status = pick(r, []string{"testing", "deprecated", "inactive"})
	}
	return scoring.Doc{
		ID:            g.ID(i),
		Name:          name,
		Description:   desc.String(),
		Tags:          tags,
		Tools:         tools,
		Examples:      examples,
		Protocols:     protos,
		Status:        status,
		MaxConcurrent: []int{0, 0, 4, 8, 16}[r.IntN(5)],
		UpdatedAt:     indexed.Add(-time.Hour),
		IndexedAt:     indexed,
		ExpiresAt:     indexed.Add(48 * time.Hour),
	}
}

// ID returns the agent id of document i, as long as a real one.
func (g *Generator) ID(i int) string {
	return fmt.Sprintf("agent://k51qzi5uqu5d%016x%034d", uint64(i)*0x9e3779b97f4a7c15, i)
}

// Kind is a query family.
type Kind int

// Query families.
const (
	TagOnly Kind = iota
	TextOnly
	Mixed
)

func (k Kind) String() string { return [...]string{"tag-only", "text-only", "mixed"}[k] }

// Query returns query i of a family: tag-only queries ask for one or two
// standard tags, categories or prefixes; text-only queries are short
// requests built from the corpus vocabulary; mixed queries combine both.
func (g *Generator) Query(kind Kind, i int) scoring.Query {
	r := g.rng(2+uint64(kind), uint64(i))
	q := scoring.Query{Limit: 10}
	tag := pick(r, g.tags)
	cat, _, _ := strings.Cut(tag, "/")
	if kind != TextOnly {
		switch r.IntN(4) {
		case 0:
			q.Tags = []string{cat + "/*"}
		case 1:
			q.Tags = []string{tag, pick(r, g.tags)}
		default:
			q.Tags = []string{tag}
		}
	}
	if kind != TagOnly {
		c := categories[cat]
		text := fmt.Sprintf("%s %s %s", pick(r, c.verbs), skewed(r, domains), pick(r, c.objects))
		if r.IntN(2) == 0 {
			text = "I need an agent to " + text + " in " + title(pick(r, languages))
		}
		q.Text = text
	}
	return q
}

// SignalShare is the share of agents with interaction records: a node
// calls and rates a small part of the agents it has heard of.
const SignalShare = 0.02

// Signals returns deterministic interaction records for an agent: most
// agents have none, some have a history, a few are busy.
func (g *Generator) Signals(id string) scoring.Signals {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h = (h ^ uint64(id[i])) * 1099511628211
	}
	r := g.rng(9, h)
	if r.Float64() >= SignalShare {
		return scoring.Signals{}
	}
	calls := r.IntN(40)
	succ := r.IntN(calls + 1)
	return scoring.Signals{
		Calls: calls, Successes: succ, Failures: calls - succ, CompletedTasks: r.IntN(20),
		RatingCount: r.IntN(6), RatingSum: r.IntN(26), LastSeen: g.Now().Add(-time.Duration(r.IntN(30)) * time.Minute),
		ActiveTasks: r.IntN(5),
	}
}
