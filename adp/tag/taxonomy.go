package tag

import (
	"sort"
	"strings"
)

// Categories are the eight recommended top-level skill categories of ADP
// §3.6.2.
var Categories = []string{"nlp", "vision", "audio", "analytical", "coding", "retrieval", "creative", "ops"}

// standardTags is the built-in vocabulary: every tag lives under one of
// the eight categories of ADP §3.6.2.
var standardTags = []string{
	"nlp/translation", "nlp/summarization", "nlp/sentiment-analysis", "nlp/named-entity-recognition",
	"nlp/text-classification", "nlp/question-answering", "nlp/text-generation", "nlp/chat",
	"nlp/grammar-correction", "nlp/paraphrasing", "nlp/language-detection", "nlp/keyword-extraction",
	"vision/object-detection", "vision/ocr", "vision/image-classification", "vision/image-segmentation",
	"vision/face-recognition", "vision/image-captioning", "vision/video-analysis", "vision/pose-estimation",
	"vision/image-editing", "vision/visual-question-answering", "vision/medical-imaging",
	"audio/speech-to-text", "audio/text-to-speech", "audio/music-generation", "audio/speaker-identification",
	"audio/audio-classification", "audio/noise-reduction", "audio/voice-cloning", "audio/audio-editing",
	"audio/sound-effects", "audio/podcast",
	"analytical/data-analysis", "analytical/optimization", "analytical/forecasting", "analytical/statistics",
	"analytical/machine-learning", "analytical/visualization", "analytical/anomaly-detection",
	"analytical/reasoning", "analytical/math", "analytical/finance", "analytical/recommendation",
	"analytical/data-cleaning",
	"coding/code-generation", "coding/debugging", "coding/code-review", "coding/testing",
	"coding/refactoring", "coding/documentation", "coding/python", "coding/javascript", "coding/go",
	"coding/rust", "coding/java", "coding/sql", "coding/typescript",
	"retrieval/web-search", "retrieval/knowledge-base", "retrieval/document-search", "retrieval/news",
	"retrieval/academic-search", "retrieval/semantic-search", "retrieval/web-scraping",
	"retrieval/database-query", "retrieval/product-search", "retrieval/travel-search",
	"creative/writing", "creative/design", "creative/image-generation", "creative/video-generation",
	"creative/storytelling", "creative/copywriting", "creative/poetry", "creative/music-composition",
	"creative/logo-design", "creative/presentation",
	"ops/deployment", "ops/monitoring", "ops/security", "ops/incident-response", "ops/ci-cd",
	"ops/logging", "ops/infrastructure", "ops/cost-optimization", "ops/backup", "ops/scheduling",
	"ops/kubernetes",
}

// standardAliases maps common short or alternative forms to a standard
// leaf, category or tag. Targets are normalized again, so a leaf target
// such as "python" ends as "coding/python".
var standardAliases = map[string]string{
	"py": "python", "python3": "python", "js": "javascript", "node": "javascript", "nodejs": "javascript",
	"ts": "typescript", "golang": "go", "rs": "rust",
	"ml": "machine-learning", "deep-learning": "machine-learning", "dl": "machine-learning",
	"stt": "speech-to-text", "asr": "speech-to-text", "speech-recognition": "speech-to-text",
	"transcription": "speech-to-text", "tts": "text-to-speech", "speech-synthesis": "text-to-speech",
	"ner": "named-entity-recognition", "qa": "question-answering", "mt": "translation",
	"translate": "translation", "machine-translation": "translation", "summarize": "summarization",
	"summary": "summarization", "sentiment": "sentiment-analysis", "image-recognition": "image-classification",
	"object-recognition": "object-detection", "face-detection": "face-recognition", "caption": "image-captioning",
	"search": "web-search", "websearch": "web-search", "kb": "knowledge-base", "rag": "knowledge-base",
	"dataviz": "visualization", "viz": "visualization", "charts": "visualization", "stats": "statistics",
	"maths": "math", "mathematics": "math", "cicd": "ci-cd", "ci": "ci-cd", "k8s": "kubernetes",
	"infosec": "security", "cybersecurity": "security", "observability": "monitoring", "monitor": "monitoring",
	"logs": "logging", "deploy": "deployment", "codegen": "code-generation", "debug": "debugging",
	"tests": "testing", "unit-testing": "testing", "docs": "documentation", "copy": "copywriting",
	"story": "storytelling", "poem": "poetry", "time-series": "forecasting", "timeseries": "forecasting",
	"prediction": "forecasting", "recsys": "recommendation", "recommender": "recommendation",
	"anomaly": "anomaly-detection", "chatbot": "chat", "conversation": "chat", "grammar": "grammar-correction",
	"spellcheck": "grammar-correction", "scraping": "web-scraping", "crawler": "web-scraping",
	"text-to-image": "image-generation", "text2img": "image-generation", "music": "music-generation",
	"cv": "vision", "computer-vision": "vision", "speech": "audio", "analytics": "analytical",
	"code": "coding", "programming": "coding", "ir": "retrieval", "art": "creative", "devops": "ops",
	"operations": "ops", "nlu": "nlp", "natural-language": "nlp",
}

// Taxonomy normalizes skill tags: case folding, separators, aliases
// (ADP §3.6.1 "alias normalization") and leaf expansion, so that "py",
// "Python" and "coding/python" all normalize to "coding/python".
//
// A Taxonomy is immutable after New and safe for concurrent use.
type Taxonomy struct {
	aliases map[string]string // normalized alias -> normalized target (before leaf expansion)
	leaves  map[string]string // leaf -> full path; only leaves that are unique across the vocabulary
	tags    []string
	cats    map[string]bool
}

// New returns the built-in taxonomy extended with extra standard
// tags (hierarchical paths) and extra aliases (alias -> target). Extra
// entries override built-in ones.
func New(extraTags []string, extraAliases map[string]string) *Taxonomy {
	t := &Taxonomy{
		aliases: make(map[string]string, len(standardAliases)+len(extraAliases)),
		leaves:  make(map[string]string),
		cats:    make(map[string]bool),
	}
	for _, c := range Categories {
		t.cats[c] = true
	}
	seen := make(map[string]bool)
	dup := make(map[string]bool)
	for _, list := range [][]string{standardTags, extraTags} {
		for _, raw := range list {
			tag := Clean(raw)
			if tag == "" || seen[tag] {
				continue
			}
			seen[tag] = true
			t.tags = append(t.tags, tag)
			i := strings.LastIndexByte(tag, '/')
			if i < 0 {
				continue
			}
			leaf := tag[i+1:]
			if prev, ok := t.leaves[leaf]; ok && prev != tag {
				dup[leaf] = true
			}
			t.leaves[leaf] = tag
		}
	}
	for leaf := range dup {
		delete(t.leaves, leaf)
	}
	for _, m := range []map[string]string{standardAliases, extraAliases} {
		for a, target := range m {
			if a, target = Clean(a), Clean(target); a != "" && target != "" && a != target {
				t.aliases[a] = target
			}
		}
	}
	sort.Strings(t.tags)
	return t
}

// Default returns the built-in taxonomy.
func Default() *Taxonomy { return New(nil, nil) }

// StandardTags returns the sorted standard vocabulary.
func (t *Taxonomy) StandardTags() []string { return append([]string(nil), t.tags...) }

// Aliases returns a copy of the alias table.
func (t *Taxonomy) Aliases() map[string]string {
	m := make(map[string]string, len(t.aliases))
	for k, v := range t.aliases {
		m[k] = v
	}
	return m
}

// Normalize returns the canonical form of a tag: Clean, then the whole tag (or for a
// hierarchical tag its category segment) passed through the alias table,
// and a flat tag that names a unique standard
// leaf expanded to its full path ("python" -> "coding/python"). It
// returns "" for a tag with no usable characters.
func (t *Taxonomy) Normalize(raw string) string {
	tag := Clean(raw)
	if tag == "" {
		return ""
	}
	tag = t.alias(tag)
	if i := strings.IndexByte(tag, '/'); i >= 0 {
		// Hierarchical: only the category segment is aliased ("cv/ocr" ->
		// "vision/ocr"); deeper segments are the publisher's own words.
		if a, ok := t.aliases[tag[:i]]; ok && t.cats[a] {
			tag = a + tag[i:]
		}
		return tag
	}
	if t.cats[tag] {
		return tag
	}
	if full, ok := t.leaves[tag]; ok {
		return full
	}
	return tag
}

// alias follows the alias table at most a few steps (targets may be
// aliases themselves; cycles stop).
func (t *Taxonomy) alias(tag string) string {
	for range 4 {
		a, ok := t.aliases[tag]
		if !ok {
			break
		}
		tag = a
	}
	return tag
}

// Clean is the package's Clean; with Normalize, Paths and Covers it lets a
// *Taxonomy serve as the tag vocabulary of packages that cannot import
// this one (scoring.Tags).
func (t *Taxonomy) Clean(raw string) string { return Clean(raw) }

// Paths is the package's Paths of a canonical tag.
func (t *Taxonomy) Paths(canonical string) []string { return Paths(canonical) }

// Covers is the package's Covers.
func (t *Taxonomy) Covers(q, tag string) bool { return Covers(q, tag) }

// Keys returns the canonical form of each raw tag followed by its parent
// paths, each once, in order: the keys under which an agent with these
// skills is found. Empty tags are skipped.
func (t *Taxonomy) Keys(raw ...string) []string {
	var out []string
	seen := make(map[string]bool)
	for _, r := range raw {
		for _, p := range Paths(t.Normalize(r)) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
