package a2aserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/a2awire"
)

// This file decides which tool a message calls and with which arguments
// (the rule of doc.go, "Routing a message to a tool"), one step a
// function.

// call is a routed message: the tool and its JSON arguments.
type call struct {
	tool string
	args []byte
}

// route picks the tool and the arguments of m among the tools of c.
func route(c *adp.Card, m *message, reqMeta json.RawMessage) (call, *Error) {
	tool, args, at, err := namedTool(m, reqMeta)
	if err != nil {
		return call{}, err
	}
	if tool == "" {
		if len(c.Tools) != 1 {
			return call{}, rpcErr(a2awire.CodeInvalidParams, "/params/message", "name the tool: metadata.%s, or a data part {\"tool\": ..., \"arguments\": {...}}; the skills are %s", a2awire.MetadataSkillID, skillList(c))
		}
		tool = c.Tools[0].Name
	}
	t := findTool(c, tool)
	if t == nil {
		return call{}, rpcErr(a2awire.CodeInvalidParams, at, "no skill %q; the skills are %s", tool, skillList(c))
	}
	if args == nil {
		if args, err = messageArgs(t, m); err != nil {
			return call{}, err
		}
	}
	return call{tool: tool, args: args}, nil
}

// namedTool returns the tool a message names, where it names it, and the
// arguments when a data part gives them with the tool: step 1, a data
// part {"tool": name, "arguments": {...}}; step 2, metadata.skillId of
// the message, then of the request. No name is ("", nil, "", nil).
func namedTool(m *message, reqMeta json.RawMessage) (string, []byte, string, *Error) {
	for i, p := range m.parts {
		var d struct {
			Tool      *string         `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if p.data == nil || p.data[0] != '{' || json.Unmarshal(p.data, &d) != nil || d.Tool == nil {
			continue
		}
		at := "/params/message/parts/" + strconv.Itoa(i) + "/data"
		args := bytes.TrimSpace(d.Arguments)
		switch {
		case len(args) == 0 || string(args) == "null":
			args = []byte("{}")
		case args[0] != '{':
			return "", nil, "", rpcErr(a2awire.CodeInvalidParams, at+"/arguments", "must be an object")
		}
		return *d.Tool, args, at + "/tool", nil
	}
	for _, src := range []struct {
		raw json.RawMessage
		at  string
	}{{m.metadata, "/params/message/metadata/" + a2awire.MetadataSkillID}, {reqMeta, "/params/metadata/" + a2awire.MetadataSkillID}} {
		var meta map[string]json.RawMessage
		if len(src.raw) == 0 || json.Unmarshal(src.raw, &meta) != nil || meta[a2awire.MetadataSkillID] == nil {
			continue
		}
		var id string
		if json.Unmarshal(meta[a2awire.MetadataSkillID], &id) != nil {
			return "", nil, "", rpcErr(a2awire.CodeInvalidParams, src.at, "must be a string")
		}
		return id, nil, src.at, nil
	}
	return "", nil, "", nil
}

// messageArgs builds the arguments of t from m when no data part named
// the tool: step 3, the one data part that is an object is the
// arguments; step 4, else the text of the text parts (joined by
// newlines) becomes the one string property textProperty finds.
func messageArgs(t *adp.Tool, m *message) ([]byte, *Error) {
	var data []byte
	var texts []string
	for i, p := range m.parts {
		switch {
		case p.text != nil:
			texts = append(texts, *p.text)
		case data != nil:
			return nil, rpcErr(a2awire.CodeInvalidParams, "/params/message/parts/"+strconv.Itoa(i), "at most one data part: it holds the arguments of %q", t.Name)
		case p.data[0] != '{':
			return nil, rpcErr(a2awire.CodeInvalidParams, "/params/message/parts/"+strconv.Itoa(i)+"/data", "the arguments of %q must be a JSON object", t.Name)
		default:
			data = p.data
		}
	}
	if data != nil {
		return data, nil
	}
	prop, ok := textProperty(t.InputSchema)
	if !ok {
		return nil, rpcErr(a2awire.CodeInvalidParams, "/params/message/parts", "skill %q takes the arguments its input schema describes, not text: send them as a data part", t.Name)
	}
	b, _ := json.Marshal(map[string]string{prop: strings.Join(texts, "\n")})
	return b, nil
}

// DefaultTextProperty is the property a text goes to when the tool's
// input schema names no properties.
const DefaultTextProperty = "text"

// textProperty finds where a text goes in the arguments a schema
// describes: with no schema, or an object schema without properties,
// DefaultTextProperty; else the one required property when it is a
// string; else, with nothing required, the one property that is a
// string. Any other schema takes no text (ok false).
func textProperty(schema json.RawMessage) (string, bool) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return DefaultTextProperty, true
	}
	var s struct {
		Type       json.RawMessage `json:"type"`
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || (len(s.Type) > 0 && string(s.Type) != `"object"`) {
		return "", false
	}
	isString := func(name string) bool {
		p, ok := s.Properties[name]
		return ok && string(p.Type) == `"string"`
	}
	switch {
	case len(s.Properties) == 0 && len(s.Required) == 0:
		return DefaultTextProperty, true
	case len(s.Required) == 1:
		if !isString(s.Required[0]) {
			return "", false
		}
		return s.Required[0], true
	case len(s.Required) > 1:
		return "", false
	}
	found := ""
	for name := range s.Properties {
		if isString(name) {
			if found != "" {
				return "", false
			}
			found = name
		}
	}
	return found, found != ""
}

func findTool(c *adp.Card, name string) *adp.Tool {
	for i := range c.Tools {
		if c.Tools[i].Name == name {
			return &c.Tools[i]
		}
	}
	return nil
}

// skillList names the skills of c for an error message.
func skillList(c *adp.Card) string {
	if len(c.Tools) == 0 {
		return "none"
	}
	names := make([]string, 0, len(c.Tools))
	for _, t := range c.Tools {
		names = append(names, strconv.Quote(t.Name))
	}
	if len(names) > 20 {
		names = append(names[:20], "...")
	}
	return strings.Join(names, ", ")
}
