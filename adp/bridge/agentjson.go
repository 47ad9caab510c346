package bridge

import (
	"slices"

	"github.com/adpnode/adpnode/adp"
)

// agentScheme prefixes ADP agent ids.
const agentScheme = "agent://"

// AgentJSON builds the agent descriptor of the agent:// URI draft (Section
// 5 and Appendix A), served at AgentJSONWellKnownPath for a single-agent
// host. Its fields follow the draft's example: name, description, url (the
// agent:// id), version, capabilities (one per tool: name, description,
// input and output schemas, JSON content types), skills ({id, name} per
// skill tag), authentication.schemes (the distinct endpoint auth values)
// and, as the draft's "transport or invocation hints", the ADP endpoints.
// The draft defines no reverse mapping and neither does this package.
func AgentJSON(c *adp.Card) ([]byte, error) {
	d := doc{"name": c.Name, "url": c.ID}
	d.setStr("description", c.Description)
	d.setStr("version", c.Version)
	caps := make([]doc, 0, len(c.Tools))
	for _, t := range c.Tools {
		cp := doc{"name": t.Name, "contentTypes": doc{
			"inputFormat":  []string{"application/json"},
			"outputFormat": []string{"application/json"},
		}}
		cp.setStr("description", t.Description)
		if t.InputSchema != nil {
			cp["input"] = t.InputSchema
		}
		if t.OutputSchema != nil {
			cp["output"] = t.OutputSchema
		}
		caps = append(caps, cp)
	}
	d["capabilities"] = caps
	if len(c.Skills) > 0 {
		skills := make([]doc, 0, len(c.Skills))
		for _, s := range c.Skills {
			skills = append(skills, doc{"id": s, "name": s})
		}
		d["skills"] = skills
	}
	var schemes []string
	for _, e := range c.Endpoints {
		if e.Auth != "" && !slices.Contains(schemes, e.Auth) {
			schemes = append(schemes, e.Auth)
		}
	}
	if schemes != nil {
		d["authentication"] = doc{"schemes": schemes}
	}
	if len(c.Endpoints) > 0 {
		eps := make([]*adp.Endpoint, len(c.Endpoints))
		for i := range c.Endpoints {
			eps[i] = &c.Endpoints[i]
		}
		d["endpoints"] = eps
	}
	return marshal(d)
}

// AgentsJSON builds the multi-agent registry of the agent:// URI draft
// (Section 5.1), served at AgentsJSONWellKnownPath: {"agents": {name: url
// of its agent.json}}.
func AgentsJSON(agents map[string]string) ([]byte, error) {
	if agents == nil {
		agents = map[string]string{}
	}
	return marshal(doc{"agents": agents})
}
