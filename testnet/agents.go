package testnet

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/adpnode/adpnode/adp"
)

// agentFS holds the bundled agent card templates, one JSON file per agent.
// The files are named NN-slug.json; NN orders them so that the first nodes
// of a testnet cover every skill category.
//
//go:embed agents/*.json
var agentFS embed.FS

// Template is one bundled agent card template: a complete Agent Card
// without id, did, seq and signature, which `init` fills in with each
// node's own key.
type Template struct {
	// File is the template's file name inside agents/.
	File string
	// JSON is the template's bytes.
	JSON []byte
}

// Templates returns the bundled agent card templates in assignment order.
// The slice is freshly allocated; the bytes must not be modified.
func Templates() []Template {
	names, err := fs.Glob(agentFS, "agents/*.json")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	sort.Strings(names)
	out := make([]Template, 0, len(names))
	for _, n := range names {
		b, err := agentFS.ReadFile(n)
		if err != nil {
			panic(err) // embedded files are always readable
		}
		out = append(out, Template{File: path.Base(n), JSON: b})
	}
	return out
}

// TemplateCard returns the card template that node i of a testnet uses,
// parsed. Templates are assigned in order; past the end of the set they
// repeat with " #2", " #3"... appended to the name, so every card name in a
// testnet stays distinct.
func TemplateCard(i int) (*adp.Card, error) {
	if i < 0 {
		return nil, fmt.Errorf("%w: template index %d", ErrBadConfig, i)
	}
	ts := Templates()
	t := ts[i%len(ts)]
	c, err := adp.ParseCard(t.JSON)
	if err != nil {
		return nil, fmt.Errorf("testnet: template %s: %w", t.File, err)
	}
	if round := i / len(ts); round > 0 {
		c.Name = fmt.Sprintf("%s #%d", c.Name, round+1)
	}
	return c, nil
}
