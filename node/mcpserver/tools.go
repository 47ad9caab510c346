package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/httpapi"
)

// Tool names.
const (
	ToolDiscover      = "discover_agents"
	ToolDescribe      = "describe_agent"
	ToolInvoke        = "invoke_agent"
	ToolRate          = "rate_agent"
	ToolMyCard        = "my_card"
	ToolUpdateMyCard  = "update_my_card"
	ToolNetworkStatus = "network_status"
)

// maxProgressMessage bounds the text of one chunk in a progress
// notification; the whole chunk is in the tool result.
const maxProgressMessage = 4096

func (s *Server) addTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)}
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolDiscover, Title: "Find agents", Annotations: readOnly, Description: `Find agents on the ADP agent network that can do a task. ` +
		`Use this first whenever the user needs something another agent could do (translate, search, summarize, book, compute...). ` +
		`Describe the need in "query" in plain words and/or give skill tags (like "translation/en-fr"). ` +
		`Returns ranked candidates: each with its agent id, name, description, score (0 to 1, higher is better), the evidence behind the score, ` +
		`its tools (name, description, input schema) and a ready invoke_agent call. Pass an agent id and tool name from here to invoke_agent.`}, s.discover)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolDescribe, Title: "Describe an agent", Annotations: readOnly, Description: `Fetch the current signed card of one agent, from the agent itself when it is reachable. ` +
		`Use it before invoke_agent when you need an agent's full tool list and input schemas, or to check its endpoints and constraints. ` +
		`Optionally limit the answer to some top-level card fields (for example ["tools"]). Returns the card as JSON.`}, s.describe)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolInvoke, Title: "Call an agent's tool", Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}, Description: `Call one tool of a remote agent and return its reply. ` +
		`Use it after discover_agents or describe_agent told you the agent id, the tool name and the tool's input schema; pass the tool's arguments as a JSON object. ` +
		`If you send a progress token, a streaming reply is reported chunk by chunk as progress notifications and all chunks are returned at the end. ` +
		`A failure of the agent (not found, busy, timeout, refused input) comes back as an error result with the reason.`}, s.invoke)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolRate, Title: "Rate an agent", Annotations: &mcp.ToolAnnotations{IdempotentHint: false, OpenWorldHint: ptr(false)}, Description: `Record a rating of 1 to 5 stars for an agent after calling it (5: did the job well, 1: useless or wrong). ` +
		`Ratings feed this node's ranking of agents in discover_agents. Returns the agent's rating count and mean after this rating.`}, s.rate)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolMyCard, Title: "This node's card", Annotations: readOnly, Description: `Show the signed card this node publishes for its own agent: the id other agents use to reach it, its name, description, skill tags and tools. ` +
		`Use it to answer "who am I on the network" or before update_my_card.`}, s.myCard)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolUpdateMyCard, Title: "Change this node's card", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}, Description: `Change how this node's own agent presents itself on the network: its name, description, skill tags or status. ` +
		`Only the fields you give change; the node re-signs the card and publishes the new version. Returns the new signed card.`}, s.updateMyCard)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolNetworkStatus, Title: "Network status", Annotations: readOnly, Description: `Tell whether this node is connected to the agent network: its agent id, connected peers, held cards, and whether it is a directory peer. ` +
		`Use it when discover_agents finds nothing or calls fail, to see whether the node has any peers.`}, s.status)
}

func ptr[T any](v T) *T { return &v }

// DiscoverInput is the input of discover_agents.
type DiscoverInput struct {
	Query        string   `json:"query,omitempty" jsonschema:"what the agent should do, in plain words"`
	Tags         []string `json:"tags,omitempty" jsonschema:"skill tags wanted, for example translation/en-fr; a tag ending in /* matches a whole branch"`
	RequiredTags []string `json:"required_tags,omitempty" jsonschema:"skill tags every candidate must have"`
	ExcludedTags []string `json:"excluded_tags,omitempty" jsonschema:"skill tags no candidate may have"`
	Protocols    []string `json:"protocols,omitempty" jsonschema:"endpoint protocols a candidate must offer, for example aitp or a2a"`
	Limit        int      `json:"limit,omitempty" jsonschema:"most candidates to return, 1 to 100 (default 10)"`
	MinScore     *float64 `json:"min_score,omitempty" jsonschema:"lowest score to return, 0 to 1 (default 0.1)"`
	Scope        string   `json:"scope,omitempty" jsonschema:"local: only the cards this node holds; network (default): also ask directory peers"`
}

// DiscoverOutput is the output of discover_agents.
type DiscoverOutput struct {
	Candidates []Candidate `json:"candidates" jsonschema:"best first"`
	Warnings   []string    `json:"warnings,omitempty"`
}

// Candidate is one agent found by discover_agents.
type Candidate struct {
	AgentID     string        `json:"agent_id"`
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Score       float64       `json:"score" jsonschema:"relevance from 0 to 1"`
	Evidence    Evidence      `json:"evidence"`
	Tools       []ToolRef     `json:"tools" jsonschema:"the tools invoke_agent can call on this agent"`
	HowToCall   string        `json:"how_to_call"`
	Endpoints   []EndpointRef `json:"endpoints,omitempty"`
}

// Evidence is why a candidate scored as it did.
type Evidence struct {
	MatchedTags     []string           `json:"matched_tags,omitempty"`
	ExpandedTags    []string           `json:"expanded_tags,omitempty"`
	MatchedExamples []string           `json:"matched_examples,omitempty"`
	ScoreComponents map[string]float64 `json:"score_components,omitempty" jsonschema:"the score's parts by name (tag, context, example, reputation, availability, rating, freshness)"`
	Stale           bool               `json:"stale,omitempty" jsonschema:"the card has passed its expiry and the agent may be gone"`
}

// ToolRef is a tool of an agent's card.
type ToolRef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"input_schema,omitempty"`
	Streaming   bool   `json:"streaming,omitempty"`
}

// EndpointRef is an endpoint of an agent's card.
type EndpointRef struct {
	Protocol string `json:"protocol"`
	URI      string `json:"uri,omitempty"`
}

// cardTools is the part of a card discover_agents reads.
type cardTools struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
		Streaming   bool            `json:"streaming"`
	} `json:"tools"`
	Endpoints []EndpointRef `json:"endpoints"`
}

func (s *Server) discover(ctx context.Context, _ *mcp.CallToolRequest, in DiscoverInput) (*mcp.CallToolResult, *DiscoverOutput, error) {
	body, err := json.Marshal(struct {
		DiscoverInput
		Scope           string `json:"scope,omitempty"`
		IncludeEvidence bool   `json:"include_evidence"`
		Detail          string `json:"detail"`
	}{DiscoverInput: in, IncludeEvidence: true, Detail: adp.DetailFull})
	if err != nil {
		return nil, nil, err
	}
	req, err := adp.ParseDiscoverRequest(body)
	if err != nil {
		return nil, nil, fmt.Errorf("bad discover_agents arguments: %w", err)
	}
	resp, err := s.node.Discover(ctx, req, in.Scope)
	if err != nil {
		return nil, nil, toolError("discover_agents", err)
	}
	out := &DiscoverOutput{Candidates: []Candidate{}, Warnings: resp.Warnings}
	for _, r := range resp.Results {
		out.Candidates = append(out.Candidates, candidateOf(r))
	}
	return nil, out, nil
}

func candidateOf(r adp.DiscoverResult) Candidate {
	c := Candidate{AgentID: r.ID, Name: r.Name, Description: r.Description, Score: r.Score, Tools: []ToolRef{},
		Evidence: Evidence{MatchedTags: r.MatchedTags, ExpandedTags: r.ExpandedTags, ScoreComponents: r.ScoreComponents}}
	if r.Freshness != nil {
		c.Evidence.Stale = r.Freshness.Stale
	}
	for _, ex := range r.MatchedExamples {
		c.Evidence.MatchedExamples = append(c.Evidence.MatchedExamples, ex.Text)
	}
	var card cardTools
	if json.Unmarshal(r.AgentCard, &card) == nil {
		for _, t := range card.Tools {
			ref := ToolRef{Name: t.Name, Description: t.Description, Streaming: t.Streaming}
			if len(t.InputSchema) > 0 {
				ref.InputSchema = json.RawMessage(t.InputSchema)
			}
			c.Tools = append(c.Tools, ref)
		}
		c.Endpoints = card.Endpoints
	}
	switch {
	case len(c.Tools) > 0:
		c.HowToCall = fmt.Sprintf(`invoke_agent {"agent": %q, "tool": %q, "arguments": {...}} with arguments matching the tool's input_schema`, r.ID, c.Tools[0].Name)
	default:
		c.HowToCall = fmt.Sprintf(`describe_agent {"agent": %q} to list its tools, then invoke_agent`, r.ID)
	}
	return c
}

// DescribeInput is the input of describe_agent.
type DescribeInput struct {
	Agent  string   `json:"agent" jsonschema:"the agent id (agent://...) from discover_agents"`
	Fields []string `json:"fields,omitempty" jsonschema:"top-level card fields to return (for example tools); all when empty"`
}

// CardOutput is a card (describe_agent, my_card, update_my_card).
type CardOutput struct {
	Card any `json:"card" jsonschema:"the signed ADP Agent Card, or the requested fields of it"`
}

func (s *Server) describe(ctx context.Context, _ *mcp.CallToolRequest, in DescribeInput) (*mcp.CallToolResult, *CardOutput, error) {
	if in.Agent == "" {
		return nil, nil, argError("agent", "required: an agent id such as agent://k51...")
	}
	raw, err := s.node.Describe(ctx, in.Agent, in.Fields)
	if err != nil {
		return nil, nil, toolError("describe_agent", err)
	}
	return nil, &CardOutput{Card: json.RawMessage(raw)}, nil
}

// InvokeInput is the input of invoke_agent.
type InvokeInput struct {
	Agent     string         `json:"agent" jsonschema:"the agent id (agent://...) from discover_agents"`
	Tool      string         `json:"tool" jsonschema:"the name of one of the agent's tools"`
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"the tool's arguments, matching its input schema"`
	TimeoutMS int            `json:"timeout_ms,omitempty" jsonschema:"how long to wait for the reply, 1 to 600000 ms (default 30000)"`
}

// InvokeOutput is the output of invoke_agent.
type InvokeOutput struct {
	Agent     string  `json:"agent"`
	Tool      string  `json:"tool"`
	Result    any     `json:"result,omitempty" jsonschema:"the tool's reply (the last chunk of a streamed reply)"`
	Chunks    []any   `json:"chunks,omitempty" jsonschema:"every chunk of a streamed reply, in order"`
	LatencyMS float64 `json:"latency_ms,omitempty"`
}

func (s *Server) invoke(ctx context.Context, req *mcp.CallToolRequest, in InvokeInput) (*mcp.CallToolResult, *InvokeOutput, error) {
	switch {
	case in.Agent == "":
		return nil, nil, argError("agent", "required: an agent id such as agent://k51...")
	case in.Tool == "":
		return nil, nil, argError("tool", "required: the name of one of the agent's tools")
	}
	args := []byte("{}")
	if in.Arguments != nil {
		var err error
		if args, err = json.Marshal(in.Arguments); err != nil {
			return nil, nil, argError("arguments", err.Error())
		}
	}
	call := &httpapi.InvokeRequest{Agent: in.Agent, Method: in.Tool, Body: args, TimeoutMS: in.TimeoutMS}
	out := &InvokeOutput{Agent: in.Agent, Tool: in.Tool}
	token := req.Params.GetProgressToken()
	if token == nil {
		resp, err := s.node.Invoke(ctx, call, nil)
		if err != nil {
			return nil, nil, toolError("invoke_agent", err)
		}
		out.Result, out.LatencyMS = json.RawMessage(resp.Body), resp.LatencyMS
		return nil, out, nil
	}
	call.Stream = true
	kept := 0 // bytes of the chunks in out.Chunks
	_, err := s.node.Invoke(ctx, call, func(chunk json.RawMessage) error {
		if kept += len(chunk); kept > s.cfg.maxStream {
			return fmt.Errorf("%w: more than %d bytes", ErrReplyTooLarge, s.cfg.maxStream)
		}
		out.Chunks = append(out.Chunks, json.RawMessage(append([]byte(nil), chunk...)))
		msg := string(chunk)
		if len(msg) > maxProgressMessage {
			msg = msg[:maxProgressMessage] + "…"
		}
		return req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(len(out.Chunks)), Message: msg,
		})
	})
	if err != nil {
		return nil, nil, toolError("invoke_agent", err)
	}
	if n := len(out.Chunks); n > 0 {
		out.Result = out.Chunks[n-1]
	}
	return nil, out, nil
}

// RateInput is the input of rate_agent.
type RateInput struct {
	Agent string `json:"agent" jsonschema:"the agent id (agent://...)"`
	Stars int    `json:"stars" jsonschema:"1 (useless) to 5 (did the job well)"`
}

// RateOutput is the output of rate_agent.
type RateOutput struct {
	Agent       string  `json:"agent"`
	Stars       int     `json:"stars"`
	RatingCount int     `json:"rating_count"`
	RatingMean  float64 `json:"rating_mean"`
}

func (s *Server) rate(ctx context.Context, _ *mcp.CallToolRequest, in RateInput) (*mcp.CallToolResult, *RateOutput, error) {
	if in.Agent == "" {
		return nil, nil, argError("agent", "required: an agent id such as agent://k51...")
	}
	r, err := s.node.Rate(ctx, in.Agent, in.Stars)
	if err != nil {
		return nil, nil, toolError("rate_agent", err)
	}
	return nil, &RateOutput{Agent: r.Agent, Stars: r.Stars, RatingCount: r.RatingCount, RatingMean: r.RatingMean}, nil
}

// MyCardInput is the (empty) input of my_card.
type MyCardInput struct{}

func (s *Server) myCard(ctx context.Context, _ *mcp.CallToolRequest, _ MyCardInput) (*mcp.CallToolResult, *CardOutput, error) {
	raw, err := s.node.OwnCard(ctx)
	if err != nil {
		return nil, nil, toolError("my_card", err)
	}
	return nil, &CardOutput{Card: json.RawMessage(raw)}, nil
}

// UpdateCardInput is the input of update_my_card: the fields to change.
type UpdateCardInput struct {
	Name        *string  `json:"name,omitempty" jsonschema:"the agent's display name"`
	Description *string  `json:"description,omitempty" jsonschema:"what the agent does, in a few sentences"`
	Skills      []string `json:"skills,omitempty" jsonschema:"skill tags, replacing the current ones (for example translation/en-fr)"`
	Status      *string  `json:"status,omitempty" jsonschema:"active, deprecated or inactive"`
}

func (s *Server) updateMyCard(ctx context.Context, _ *mcp.CallToolRequest, in UpdateCardInput) (*mcp.CallToolResult, *CardOutput, error) {
	if in.Name == nil && in.Description == nil && in.Skills == nil && in.Status == nil {
		return nil, nil, argError("", "give at least one of name, description, skills, status")
	}
	raw, err := s.node.OwnCard(ctx)
	if err != nil {
		return nil, nil, toolError("update_my_card", err)
	}
	var card map[string]json.RawMessage
	if err := json.Unmarshal(raw, &card); err != nil {
		return nil, nil, fmt.Errorf("update_my_card: the node's card is not a JSON object: %w", err)
	}
	set := func(k string, v any) {
		b, _ := json.Marshal(v)
		card[k] = b
	}
	if in.Name != nil {
		set("name", *in.Name)
	}
	if in.Description != nil {
		set("description", *in.Description)
	}
	if in.Skills != nil {
		set("skills", in.Skills)
	}
	if in.Status != nil {
		set("status", *in.Status)
	}
	delete(card, "signature")
	body, err := json.Marshal(card)
	if err != nil {
		return nil, nil, err
	}
	signed, err := s.node.UpdateCard(ctx, body)
	if err != nil {
		return nil, nil, toolError("update_my_card", err)
	}
	return nil, &CardOutput{Card: json.RawMessage(signed)}, nil
}

// StatusInput is the (empty) input of network_status.
type StatusInput struct{}

// StatusOutput is the output of network_status.
type StatusOutput struct {
	AgentID   string   `json:"agent_id"`
	PeerID    string   `json:"peer_id"`
	Name      string   `json:"name"`
	Peers     int      `json:"peers" jsonschema:"connected peers; 0 means the node is alone and discovery sees only its own cards"`
	Cards     int      `json:"cards" jsonschema:"agent cards this node holds"`
	Directory bool     `json:"directory" jsonschema:"whether this node serves as a directory peer"`
	Addrs     []string `json:"addrs"`
}

func (s *Server) status(ctx context.Context, _ *mcp.CallToolRequest, _ StatusInput) (*mcp.CallToolResult, *StatusOutput, error) {
	st, err := s.node.Status(ctx)
	if err != nil {
		return nil, nil, toolError("network_status", err)
	}
	return nil, &StatusOutput{AgentID: st.AgentID, PeerID: st.PeerID, Name: st.Name, Peers: st.Peers, Cards: st.Cards,
		Directory: st.Directory, Addrs: st.Addrs}, nil
}

// argError is a refused tool argument.
func argError(arg, reason string) error {
	if arg == "" {
		return fmt.Errorf("%w: %s", ErrBadArgument, reason)
	}
	return fmt.Errorf("%w %q: %s", ErrBadArgument, arg, reason)
}

// toolError turns a failure of the node into a tool error text a host
// can show: what failed, the error code, the argument at fault and the
// reason (for a remote agent, its status and message).
func toolError(tool string, err error) error {
	return fmt.Errorf("%s failed: %s", tool, describeError(err))
}

// describeError renders err; an API error by its code, argument and
// message.
func describeError(err error) string {
	var ae *httpapi.Error
	if !errors.As(err, &ae) {
		return err.Error()
	}
	s := ae.Code
	if ae.Path != "" {
		s += " (argument " + ae.Path + ")"
	}
	if ae.Message != "" {
		s += ": " + ae.Message
	}
	return s
}

// isNotFound reports whether err is the node's "not found".
func isNotFound(err error) bool {
	var ae *httpapi.Error
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}
