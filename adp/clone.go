package adp

import (
	"encoding/json"
	"slices"
)

// Clone returns a deep copy of the card, Raw included.
func (c *Card) Clone() *Card {
	if c == nil {
		return nil
	}
	n := *c
	n.raw = slices.Clone(c.raw)
	n.unsigned = slices.Clone(c.unsigned)
	n.Skills = slices.Clone(c.Skills)
	n.Extensions = cloneRawMap(c.Extensions)
	n.Extra = cloneRawMap(c.Extra)
	if c.Seq != nil {
		s := *c.Seq
		n.Seq = &s
	}
	if c.Tools != nil {
		n.Tools = make([]Tool, len(c.Tools))
		for i, t := range c.Tools {
			t.InputSchema = slices.Clone(t.InputSchema)
			t.OutputSchema = slices.Clone(t.OutputSchema)
			t.Streaming = clonePtr(t.Streaming)
			t.Idempotent = clonePtr(t.Idempotent)
			t.Extra = cloneRawMap(t.Extra)
			n.Tools[i] = t
		}
	}
	if c.Endpoints != nil {
		n.Endpoints = make([]Endpoint, len(c.Endpoints))
		for i, e := range c.Endpoints {
			e.Methods = slices.Clone(e.Methods)
			e.Priority = clonePtr(e.Priority)
			e.Extra = cloneRawMap(e.Extra)
			n.Endpoints[i] = e
		}
	}
	if c.Constraints != nil {
		k := *c.Constraints
		k.MaxConcurrentTasks = clonePtr(k.MaxConcurrentTasks)
		k.MaxInputTokens = clonePtr(k.MaxInputTokens)
		k.SupportedLanguages = slices.Clone(k.SupportedLanguages)
		k.Extra = cloneRawMap(k.Extra)
		n.Constraints = &k
	}
	if c.Metadata != nil {
		m := *c.Metadata
		m.TTL = clonePtr(m.TTL)
		m.Extra = cloneRawMap(m.Extra)
		n.Metadata = &m
	}
	if c.Examples != nil {
		n.Examples = make([]Example, len(c.Examples))
		for i, e := range c.Examples {
			e.Tags = slices.Clone(e.Tags)
			e.Extra = cloneRawMap(e.Extra)
			n.Examples[i] = e
		}
	}
	return &n
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func cloneRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
