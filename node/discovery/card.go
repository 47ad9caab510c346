package discovery

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/scoring"
)

// cardAtDetail returns the card as a result carries it (discovery profile
// §5.1, §7.4):
//   - full: the card exactly as received, signature included;
//   - summary: id, name, description, version, skills, status, did, the
//     tools' names and descriptions, endpoints' protocol, uri and
//     methods, constraints and metadata; no schemas, examples,
//     extensions, endpoint auth or unknown fields;
//   - minimal: id, name, status and the endpoints' protocol and uri,
//     enough to continue resolution.
func cardAtDetail(c *adp.Card, detail string) (json.RawMessage, error) {
	if detail == adp.DetailFull {
		if raw := c.Raw(); raw != nil {
			return raw, nil
		}
		return c.MarshalJSON()
	}
	type endpoint struct {
		Protocol string   `json:"protocol"`
		URI      string   `json:"uri"`
		Methods  []string `json:"methods,omitempty"`
	}
	type tool struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
	}
	type constraints struct {
		MaxConcurrentTasks *int     `json:"max_concurrent_tasks,omitempty"`
		MaxInputTokens     *int     `json:"max_input_tokens,omitempty"`
		SupportedLanguages []string `json:"supported_languages,omitempty"`
		RateLimit          string   `json:"rate_limit,omitempty"`
	}
	type metadata struct {
		CreatedAt string `json:"created_at,omitempty"`
		UpdatedAt string `json:"updated_at,omitempty"`
		TTL       *int64 `json:"ttl,omitempty"`
	}
	type subset struct {
		ID          string       `json:"id"`
		Name        string       `json:"name"`
		Description string       `json:"description,omitempty"`
		Version     string       `json:"version,omitempty"`
		Skills      []string     `json:"skills,omitempty"`
		Status      string       `json:"status,omitempty"`
		DID         string       `json:"did,omitempty"`
		Tools       []tool       `json:"tools,omitempty"`
		Endpoints   []endpoint   `json:"endpoints,omitempty"`
		Constraints *constraints `json:"constraints,omitempty"`
		Metadata    *metadata    `json:"metadata,omitempty"`
	}
	s := subset{ID: c.ID, Name: c.Name, Status: c.Status}
	for _, ep := range c.Endpoints {
		e := endpoint{Protocol: ep.Protocol, URI: ep.URI}
		if detail != adp.DetailMinimal {
			e.Methods = ep.Methods
		}
		s.Endpoints = append(s.Endpoints, e)
	}
	if detail != adp.DetailMinimal {
		s.Description, s.Version, s.Skills, s.DID = c.Description, c.Version, c.Skills, c.DID
		for _, t := range c.Tools {
			s.Tools = append(s.Tools, tool{Name: t.Name, Description: t.Description})
		}
		if k := c.Constraints; k != nil {
			s.Constraints = &constraints{k.MaxConcurrentTasks, k.MaxInputTokens, k.SupportedLanguages, k.RateLimit}
		}
		if m := c.Metadata; m != nil {
			s.Metadata = &metadata{m.CreatedAt, m.UpdatedAt, m.TTL}
		}
	}
	return json.Marshal(s)
}

// DocFromCard is the searchable view of a card: name, description,
// skills, tools with the text of their input schemas, examples,
// endpoint protocols, status, max_concurrent_tasks and times. Nothing the
// card says about its own reputation is used.
func DocFromCard(c *adp.Card, indexedAt, expiresAt time.Time) scoring.Doc {
	d := scoring.Doc{
		ID: c.ID, Name: c.Name, Description: c.Description, Tags: c.Skills, Status: c.Status,
		IndexedAt: indexedAt, ExpiresAt: expiresAt, Revoked: c.IsRevocation(),
	}
	for _, t := range c.Tools {
		d.Tools = append(d.Tools, scoring.ToolText{Name: t.Name, Description: t.Description, InputProps: scoring.SchemaText(t.InputSchema)})
	}
	for _, e := range c.Examples {
		d.Examples = append(d.Examples, scoring.ExampleText{ID: e.ID, Text: e.Text, Tags: e.Tags})
	}
	for _, ep := range c.Endpoints {
		if !slices.Contains(d.Protocols, ep.Protocol) {
			d.Protocols = append(d.Protocols, ep.Protocol)
		}
	}
	if c.Constraints != nil && c.Constraints.MaxConcurrentTasks != nil {
		d.MaxConcurrent = max(*c.Constraints.MaxConcurrentTasks, 0)
	}
	if c.Metadata != nil && c.Metadata.UpdatedAt != "" {
		if t, err := time.Parse(time.RFC3339, c.Metadata.UpdatedAt); err == nil {
			d.UpdatedAt = t
		}
	}
	return d
}
