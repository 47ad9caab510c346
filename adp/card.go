package adp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Card is an Agent Card (ADP section 3) with the discovery profile's
// optional examples and status.
//
// Decoding keeps every field it does not know, at the top level and inside
// tools, endpoints, constraints, metadata and examples, in the Extra maps,
// and every extension namespace in Extensions, so decode then encode loses
// nothing. Slices distinguish absent (nil) from present and empty (non-nil,
// length 0); this matters for Tools and Endpoints, whose presence as empty
// arrays marks a revocation (ADP 6.4). Empty strings are treated as absent.
//
// A Card parsed by ParseCard or signed by Sign remembers the exact bytes it
// came from (Raw); Verify checks the signature over those bytes. Changing
// the fields afterwards does not change Raw: call Sign again. A Card is not
// safe for concurrent mutation; concurrent reads are safe.
type Card struct {
	ID          string
	Name        string
	Description string
	Version     string
	Skills      []string
	Tools       []Tool
	Endpoints   []Endpoint
	Constraints *Constraints
	DID         string
	Metadata    *Metadata
	Extensions  map[string]json.RawMessage
	Examples    []Example
	Status      string
	Seq         *uint64
	Signature   string
	Extra       map[string]json.RawMessage

	// raw is the exact input of ParseCard or the output of Sign.
	raw []byte
	// unsigned lists the byte ranges of raw that make up the card without
	// its signature member (set when raw has one).
	unsigned [][2]int
}

// Tool is a tool descriptor (ADP 3.4).
type Tool struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Streaming    *bool
	Idempotent   *bool
	Extra        map[string]json.RawMessage
}

// Endpoint is an endpoint descriptor (ADP 3.5). Protocols this package does
// not know are kept as they are.
type Endpoint struct {
	Protocol string
	URI      string
	Methods  []string
	Auth     string
	Priority *int
	Extra    map[string]json.RawMessage
}

// Constraints are the advisory operational constraints (ADP 3.7).
type Constraints struct {
	MaxConcurrentTasks *int
	MaxInputTokens     *int
	SupportedLanguages []string
	RateLimit          string
	Extra              map[string]json.RawMessage
}

// Metadata is the card's temporal metadata (ADP 3.1, 6.3). CreatedAt and
// UpdatedAt are RFC 3339 timestamps; TTL is in seconds.
type Metadata struct {
	CreatedAt string
	UpdatedAt string
	TTL       *int64
	Extra     map[string]json.RawMessage
}

// Example is an example task (discovery profile 4.5).
type Example struct {
	ID    string
	Text  string
	Tags  []string
	Extra map[string]json.RawMessage
}

// ParseCard decodes an Agent Card. It rejects input larger than MaxCardSize
// (ErrTooLarge), nested deeper than MaxDepth (ErrTooDeep), malformed JSON,
// invalid UTF-8 or duplicate keys (ErrMalformed), and fields of the wrong
// JSON type (a *ValidationError listing each one). It does not check the
// rules of Validate nor the signature. The card keeps a copy of data (Raw).
func ParseCard(data []byte) (*Card, error) {
	if len(data) > MaxCardSize {
		return nil, fmt.Errorf("%w: card is %d octets, limit %d", ErrTooLarge, len(data), MaxCardSize)
	}
	buf := bytes.Clone(data)
	members, err := scanObject(buf, MaxDepth)
	if err != nil {
		return nil, err
	}
	c := &Card{raw: buf}
	var d decoder
	for _, m := range members {
		c.decodeMember(&d, m)
	}
	if err := d.err(); err != nil {
		return nil, err
	}
	if c.Signature != "" {
		c.unsigned = unsignedRanges(members)
	}
	return c, nil
}

// unsignedRanges returns the byte ranges of the members other than
// "signature".
func unsignedRanges(members []member) [][2]int {
	out := make([][2]int, 0, len(members))
	for _, m := range members {
		if m.key != "signature" {
			out = append(out, [2]int{m.start, m.end})
		}
	}
	return out
}

// UnmarshalJSON decodes a card as ParseCard does.
func (c *Card) UnmarshalJSON(data []byte) error {
	p, err := ParseCard(data)
	if err != nil {
		return err
	}
	*c = *p
	return nil
}

// Raw returns the exact bytes the card was parsed from or last signed into,
// or nil for a card built in code. The caller must not modify them.
func (c *Card) Raw() []byte { return c.raw }

func (c *Card) decodeMember(d *decoder, m member) {
	v := m.value
	switch m.key {
	case "id":
		c.ID = d.str("/id", v)
	case "name":
		c.Name = d.str("/name", v)
	case "description":
		c.Description = d.str("/description", v)
	case "version":
		c.Version = d.str("/version", v)
	case "skills":
		c.Skills = d.strs("/skills", v)
	case "tools":
		elems, ok := d.array("/tools", v)
		if ok {
			c.Tools = make([]Tool, len(elems))
			for i, e := range elems {
				c.Tools[i].decode(d, fmt.Sprintf("/tools/%d", i), e)
			}
		}
	case "endpoints":
		elems, ok := d.array("/endpoints", v)
		if ok {
			c.Endpoints = make([]Endpoint, len(elems))
			for i, e := range elems {
				c.Endpoints[i].decode(d, fmt.Sprintf("/endpoints/%d", i), e)
			}
		}
	case "constraints":
		c.Constraints = new(Constraints)
		c.Constraints.decode(d, "/constraints", v)
	case "did":
		c.DID = d.str("/did", v)
	case "metadata":
		c.Metadata = new(Metadata)
		c.Metadata.decode(d, "/metadata", v)
	case "extensions":
		c.Extensions, _ = d.object("/extensions", v)
	case "examples":
		elems, ok := d.array("/examples", v)
		if ok {
			c.Examples = make([]Example, len(elems))
			for i, e := range elems {
				c.Examples[i].decode(d, fmt.Sprintf("/examples/%d", i), e)
			}
		}
	case "status":
		c.Status = d.str("/status", v)
	case "seq":
		if n, ok := d.int("/seq", v, 0, MaxSeq); ok {
			u := uint64(n)
			c.Seq = &u
		}
	case "signature":
		c.Signature = d.str("/signature", v)
	default:
		if c.Extra == nil {
			c.Extra = make(map[string]json.RawMessage)
		}
		c.Extra[m.key] = v
	}
}

func (t *Tool) decode(d *decoder, path string, raw json.RawMessage) {
	d.fields(path, raw, &t.Extra, func(k, p string, v json.RawMessage) bool {
		switch k {
		case "name":
			t.Name = d.str(p, v)
		case "description":
			t.Description = d.str(p, v)
		case "input_schema":
			t.InputSchema = d.schema(p, v)
		case "output_schema":
			t.OutputSchema = d.schema(p, v)
		case "streaming":
			t.Streaming = d.bool(p, v)
		case "idempotent":
			t.Idempotent = d.bool(p, v)
		default:
			return false
		}
		return true
	})
}

func (e *Endpoint) decode(d *decoder, path string, raw json.RawMessage) {
	d.fields(path, raw, &e.Extra, func(k, p string, v json.RawMessage) bool {
		switch k {
		case "protocol":
			e.Protocol = d.str(p, v)
		case "uri":
			e.URI = d.str(p, v)
		case "methods":
			e.Methods = d.strs(p, v)
		case "auth":
			e.Auth = d.str(p, v)
		case "priority":
			if n, ok := d.int(p, v, -MaxSeq, MaxSeq); ok {
				i := int(n)
				e.Priority = &i
			}
		default:
			return false
		}
		return true
	})
}

func (c *Constraints) decode(d *decoder, path string, raw json.RawMessage) {
	d.fields(path, raw, &c.Extra, func(k, p string, v json.RawMessage) bool {
		switch k {
		case "max_concurrent_tasks":
			if n, ok := d.int(p, v, 0, MaxSeq); ok {
				i := int(n)
				c.MaxConcurrentTasks = &i
			}
		case "max_input_tokens":
			if n, ok := d.int(p, v, 0, MaxSeq); ok {
				i := int(n)
				c.MaxInputTokens = &i
			}
		case "supported_languages":
			c.SupportedLanguages = d.strs(p, v)
		case "rate_limit":
			c.RateLimit = d.str(p, v)
		default:
			return false
		}
		return true
	})
}

func (m *Metadata) decode(d *decoder, path string, raw json.RawMessage) {
	d.fields(path, raw, &m.Extra, func(k, p string, v json.RawMessage) bool {
		switch k {
		case "created_at":
			m.CreatedAt = d.str(p, v)
		case "updated_at":
			m.UpdatedAt = d.str(p, v)
		case "ttl":
			if n, ok := d.int(p, v, 0, MaxSeq); ok {
				m.TTL = &n
			}
		default:
			return false
		}
		return true
	})
}

func (e *Example) decode(d *decoder, path string, raw json.RawMessage) {
	d.fields(path, raw, &e.Extra, func(k, p string, v json.RawMessage) bool {
		switch k {
		case "id":
			e.ID = d.str(p, v)
		case "text":
			e.Text = d.str(p, v)
		case "tags":
			e.Tags = d.strs(p, v)
		default:
			return false
		}
		return true
	})
}

// fields decodes the members of the object raw at path: decode decodes
// member k at JSON Pointer p and reports whether k is a known member; the
// others are kept in *extra.
func (d *decoder) fields(path string, raw json.RawMessage, extra *map[string]json.RawMessage, decode func(k, p string, v json.RawMessage) bool) {
	members, ok := d.members(path, raw)
	if !ok {
		return
	}
	for _, m := range members {
		if !decode(m.key, path+"/"+escapePointer(m.key), m.value) {
			if *extra == nil {
				*extra = make(map[string]json.RawMessage)
			}
			(*extra)[m.key] = m.value
		}
	}
}

// part is a nested card object that decodes itself at a JSON Pointer.
type part[T any] interface {
	*T
	decode(d *decoder, path string, raw json.RawMessage)
}

// unmarshalPart decodes one nested object on its own (outside a card) with
// the same strictness as ParseCard, and stores it in dst only on success.
func unmarshalPart[T any, P part[T]](dst P, data []byte) error {
	if len(data) > MaxCardSize {
		return fmt.Errorf("%w: %d octets, limit %d", ErrTooLarge, len(data), MaxCardSize)
	}
	buf := bytes.Clone(data)
	if _, err := scanObject(buf, MaxDepth); err != nil {
		return err
	}
	var (
		d decoder
		n T
	)
	P(&n).decode(&d, "", bytes.TrimSpace(buf))
	if err := d.err(); err != nil {
		return err
	}
	*dst = n
	return nil
}

// UnmarshalJSON decodes a tool descriptor as ParseCard does.
func (t *Tool) UnmarshalJSON(data []byte) error { return unmarshalPart(t, data) }

// UnmarshalJSON decodes an endpoint descriptor as ParseCard does.
func (e *Endpoint) UnmarshalJSON(data []byte) error { return unmarshalPart(e, data) }

// UnmarshalJSON decodes constraints as ParseCard does.
func (c *Constraints) UnmarshalJSON(data []byte) error { return unmarshalPart(c, data) }

// UnmarshalJSON decodes metadata as ParseCard does.
func (m *Metadata) UnmarshalJSON(data []byte) error { return unmarshalPart(m, data) }

// UnmarshalJSON decodes an example as ParseCard does.
func (e *Example) UnmarshalJSON(data []byte) error { return unmarshalPart(e, data) }
