package testnet_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/testnet"
)

// categories are ADP's recommended top-level skill categories (3.6.2).
var categories = []string{"nlp", "vision", "audio", "analytical", "coding", "retrieval", "creative", "ops"}

func TestTemplatesAreCompleteAndDistinct(t *testing.T) {
	ts := testnet.Templates()
	if len(ts) < 50 {
		t.Fatalf("%d templates, want at least 50", len(ts))
	}
	names := map[string]string{}
	perCategory := map[string]int{}
	for i, tpl := range ts {
		c, err := adp.ParseCard(tpl.JSON)
		if err != nil {
			t.Fatalf("%s: %v", tpl.File, err)
		}
		if c.ID != "" || c.DID != "" || c.Signature != "" || c.Seq != nil {
			t.Errorf("%s: templates carry no id, did, seq or signature", tpl.File)
		}
		if prev, dup := names[c.Name]; dup {
			t.Errorf("%s: name %q already used by %s", tpl.File, c.Name, prev)
		}
		names[c.Name] = tpl.File
		if c.Description == "" || c.Version == "" || c.Status != adp.StatusActive {
			t.Errorf("%s: want description, version and status active", tpl.File)
		}
		if len(c.Skills) < 2 {
			t.Errorf("%s: %d skills, want at least 2", tpl.File, len(c.Skills))
		}
		cat, _, _ := strings.Cut(c.Skills[0], "/")
		if !contains(categories, cat) || !strings.Contains(c.Skills[0], "/") {
			t.Errorf("%s: first skill %q is not a hierarchical tag under an ADP category", tpl.File, c.Skills[0])
		}
		perCategory[cat]++
		if i < len(categories) && cat != categories[i] {
			t.Errorf("%s: template %d has category %s, want %s (the first nodes cover every category)", tpl.File, i, cat, categories[i])
		}
		checkTools(t, tpl.File, c)
		if len(c.Examples) < 2 {
			t.Errorf("%s: %d examples, want at least 2", tpl.File, len(c.Examples))
		}
		for j, ex := range c.Examples {
			if ex.ID == "" || ex.Text == "" || len(ex.Tags) == 0 {
				t.Errorf("%s: examples[%d] needs id, text and tags", tpl.File, j)
			}
		}
		if c.Constraints == nil || c.Constraints.MaxConcurrentTasks == nil || c.Constraints.RateLimit == "" {
			t.Errorf("%s: want constraints with max_concurrent_tasks and rate_limit", tpl.File)
		}
		if c.Metadata == nil || c.Metadata.TTL == nil || *c.Metadata.TTL <= 0 {
			t.Errorf("%s: want metadata.ttl", tpl.File)
		}
	}
	for _, cat := range categories {
		if perCategory[cat] < 5 {
			t.Errorf("category %s has %d agents, want at least 5", cat, perCategory[cat])
		}
	}
}

func checkTools(t *testing.T, file string, c *adp.Card) {
	t.Helper()
	own := 0
	seen := map[string]bool{}
	for j, tool := range c.Tools {
		if seen[tool.Name] {
			t.Errorf("%s: tool %q twice", file, tool.Name)
		}
		seen[tool.Name] = true
		if !json.Valid(tool.InputSchema) || !json.Valid(tool.OutputSchema) {
			t.Errorf("%s: tools[%d] (%s) needs input_schema and output_schema", file, j, tool.Name)
		}
		if tool.Description == "" {
			t.Errorf("%s: tools[%d] (%s) needs a description", file, j, tool.Name)
		}
		switch tool.Name {
		case "echo", "wordcount", "reverse":
		default:
			own++
		}
	}
	if own == 0 {
		t.Errorf("%s: no tool of its own besides the demo tools", file)
	}
	for _, demo := range []string{"echo", "wordcount"} {
		if !seen[demo] {
			t.Errorf("%s: demo tool %q missing", file, demo)
		}
	}
}

// TestTemplatesSignAndValidate signs every template as Init does and checks
// the result is a valid card that survives the network's gate.
func TestTemplatesSignAndValidate(t *testing.T) {
	for i := range testnet.Templates() {
		c, err := testnet.TemplateCard(i)
		if err != nil {
			t.Fatal(err)
		}
		sk, _, err := crypto.GenerateEd25519Key(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Sign(sk); err != nil {
			t.Fatalf("template %d: sign: %v", i, err)
		}
		if _, err := adp.DecodeVerified(c.Raw()); err != nil {
			t.Errorf("template %d (%s): %v", i, c.Name, err)
		}
		if len(c.Raw()) > adp.MaxCardSize/4 {
			t.Errorf("template %d (%s): %d bytes signed; keep templates small", i, c.Name, len(c.Raw()))
		}
	}
}

func TestTemplateCardWrapsWithDistinctNames(t *testing.T) {
	n := len(testnet.Templates())
	first, err := testnet.TemplateCard(0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := testnet.TemplateCard(n)
	if err != nil {
		t.Fatal(err)
	}
	if again.Name != first.Name+" #2" {
		t.Errorf("template %d name %q, want %q", n, again.Name, first.Name+" #2")
	}
	if _, err := testnet.TemplateCard(-1); err == nil {
		t.Error("TemplateCard(-1) succeeded")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
