package bridge

import (
	"encoding/json"
	"fmt"

	"github.com/adpnode/adpnode/adp"
)

// emptyInputSchema is the inputSchema written for a tool without one: MCP
// requires the member and an object schema accepting any object is what
// "no declared input" means.
var emptyInputSchema = json.RawMessage(`{"type":"object"}`)

// ToMCP projects a card's tools onto an MCP tools/list result (ADP Appendix
// A.2), {"tools": [{name, description, inputSchema, ...}]}:
//
//	tools[].name, .description  -> tools[].name, .description
//	tools[].input_schema        -> tools[].inputSchema ({"type":"object"} when absent)
//	tools[].output_schema       -> tools[].outputSchema (MCP 2025-06-18)
//	tools[].idempotent          -> tools[].annotations.idempotentHint
//
// An MCP tool list describes tools, not agents: the id, name, description,
// version, skills, endpoints, constraints, did, metadata, examples, status,
// seq, extensions and per-tool streaming are not carried and are lost (A.2:
// "omitted in the MCP projection"). Fields kept in extensions["mcp"] by
// FromMCP (titles, other annotations, _meta, nextCursor) are written back.
func ToMCP(c *adp.Card) ([]byte, error) { return toMCP(c, true) }

// toMCP exports c; withCarrier adds the carrier (trimmed of what an
// import of the document without it derives anyway).
func toMCP(c *adp.Card, withCarrier bool) ([]byte, error) {
	ext := extension(c, NamespaceMCP)
	extTools := rawMap(ext["tools"])
	tools := make([]doc, 0, len(c.Tools))
	for _, t := range c.Tools {
		m := doc{"name": t.Name, "inputSchema": emptyInputSchema}
		m.setStr("description", t.Description)
		if t.InputSchema != nil {
			m["inputSchema"] = t.InputSchema
		}
		if t.OutputSchema != nil {
			m["outputSchema"] = t.OutputSchema
		}
		kept := rawMap(extTools[t.Name])
		ann := rawMap(kept["annotations"])
		if t.Idempotent != nil {
			if ann == nil {
				ann = map[string]json.RawMessage{}
			}
			ann["idempotentHint"], _ = marshal(*t.Idempotent)
		}
		if ann != nil {
			m["annotations"] = ann
		}
		for k, v := range kept {
			switch {
			case k == "annotations":
			case string(v) == "null":
				delete(m, k) // the imported tool did not have it
			default:
				m[k] = v
			}
		}
		tools = append(tools, m)
	}
	d := doc{"tools": tools}
	for k, v := range ext {
		if k != "tools" {
			d[k] = v
		}
	}
	return marshal(d)
}

// FromMCP imports an MCP tools/list result. Each tool becomes an ADP tool
// (inputSchema -> input_schema, outputSchema -> output_schema,
// annotations.idempotentHint -> idempotent); every other member (title, the
// other annotations, _meta, and top-level members such as nextCursor) is
// kept in extensions["mcp"]. The card has only tools: it has no id or name
// until the caller sets them, so it does not validate as it stands.
func FromMCP(data []byte) (*adp.Card, error) { return fromMCP(data, true) }

// fromMCP imports data; prune drops kept members the export writes
// anyway (off when called to trim a carrier, which avoids recursion).
func fromMCP(data []byte, prune bool) (*adp.Card, error) {
	r, o, err := readDoc(data)
	if err != nil {
		return nil, err
	}
	raws := o.arr("tools")
	if raws == nil && !o.has("tools") {
		r.add("/tools", "is required")
	}
	tools := make([]doc, 0, len(raws))
	extTools := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for i, raw := range raws {
		to := r.obj(fmt.Sprintf("/tools/%d", i), raw)
		if to == nil {
			continue
		}
		name := to.str("name", true)
		if name == "" {
			continue
		}
		if seen[name] {
			r.add(to.at("name"), "duplicate tool name %q", name)
			continue
		}
		seen[name] = true
		t := doc{"name": name}
		t.setStr("description", to.str("description", false))
		if s := to.schema("inputSchema"); s != nil {
			t["input_schema"] = s
		}
		if s := to.schema("outputSchema"); s != nil {
			t["output_schema"] = s
		}
		kept := to.rest()
		if !to.has("inputSchema") {
			// MCP requires inputSchema; remember that this tool lacked it so
			// that ToMCP does not add the default.
			if kept == nil {
				kept = map[string]json.RawMessage{}
			}
			kept["inputSchema"] = json.RawMessage("null")
		}
		if ann := to.sub("annotations"); ann != nil {
			if b := ann.boolean("idempotentHint"); b != nil {
				t["idempotent"] = *b
			}
			if rest := ann.rest(); rest != nil {
				if kept == nil {
					kept = map[string]json.RawMessage{}
				}
				kept["annotations"], _ = marshal(rest)
			}
		}
		if kept != nil {
			extTools[name], _ = marshal(kept)
		}
		tools = append(tools, t)
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	card := doc{"tools": tools}
	ext := o.rest()
	if len(extTools) > 0 {
		if ext == nil {
			ext = map[string]json.RawMessage{}
		}
		ext["tools"], _ = marshal(extTools)
	}
	return finishImport(card, NamespaceMCP, ext, prune, func(c *adp.Card) ([]byte, error) { return toMCP(c, false) }, func(ext, proj map[string]json.RawMessage) {
		pruneByName(ext, "tools", proj["tools"], "name")
	})
}
