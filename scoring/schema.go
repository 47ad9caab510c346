package scoring

import (
	"encoding/json"
	"sort"
)

// Bounds on the text SchemaText takes from one input schema.
const (
	maxSchemaDepth   = 32
	maxSchemaStrings = 1024
)

// SchemaText returns the words a JSON Schema carries for a reader, in a
// deterministic order: every property name, title, description, enum and
// const value, string default and example, at any depth (properties,
// items, anyOf, $defs and so on). A schema that is not JSON yields
// nothing. Callers put the result in ToolText.InputProps.
func SchemaText(schema json.RawMessage) []string {
	if len(schema) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return nil
	}
	var out []string
	schemaWalk(v, 0, &out)
	return out
}

func schemaWalk(v any, depth int, out *[]string) {
	if depth > maxSchemaDepth || len(*out) >= maxSchemaStrings {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			schemaWalk(e, depth+1, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := x[k]
			switch k {
			case "properties", "patternProperties":
				if props, ok := e.(map[string]any); ok {
					names := make([]string, 0, len(props))
					for name := range props {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						schemaAdd(name, out)
						schemaWalk(props[name], depth+1, out)
					}
				}
			case "title", "description", "default", "const":
				schemaValues(e, out)
			case "enum", "examples":
				if list, ok := e.([]any); ok {
					for _, item := range list {
						schemaValues(item, out)
					}
				}
			default:
				if _, ok := e.(map[string]any); ok {
					schemaWalk(e, depth+1, out)
				} else if _, ok := e.([]any); ok {
					schemaWalk(e, depth+1, out)
				}
			}
		}
	}
}

// schemaValues adds a string value, or the strings of a list.
func schemaValues(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		schemaAdd(x, out)
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				schemaAdd(s, out)
			}
		}
	}
}

func schemaAdd(s string, out *[]string) {
	if s != "" && len(*out) < maxSchemaStrings {
		*out = append(*out, s)
	}
}
