package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/node/httpapi"
)

// Resource URIs: every card, the node's own included, is
// adp://agents/{id}, where id is the agent id without its "agent://"
// scheme, path-escaped.
const (
	resourcePrefix   = "adp://agents/"
	resourceTemplate = resourcePrefix + "{id}"
	agentScheme      = "agent://"
	cardMIME         = "application/json"
)

// AgentURI returns the resource URI of an agent id.
func AgentURI(agentID string) string {
	return resourcePrefix + url.PathEscape(strings.TrimPrefix(agentID, agentScheme))
}

// agentIDOf returns the agent id a resource URI names.
func agentIDOf(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, resourcePrefix)
	if !ok || rest == "" {
		return "", fmt.Errorf("%w: resource URI must be %s", ErrBadArgument, resourceTemplate)
	}
	id, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("%w: resource URI: %v", ErrBadArgument, err)
	}
	if !strings.Contains(id, "://") {
		id = agentScheme + id
	}
	return id, nil
}

// resources keeps the server's listed resources equal to the node's own
// card and its first MaxListedCards held cards. Adding or removing one
// makes the SDK notify every session (debounced) with
// notifications/resources/list_changed.
type resources struct {
	srv  *mcp.Server
	node Node
	log  *slog.Logger

	mu     sync.Mutex
	listed map[string]bool // URIs now listed
	ownID  string
}

func newResources(srv *mcp.Server, node Node, log *slog.Logger) *resources {
	r := &resources{srv: srv, node: node, log: log, listed: map[string]bool{}}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: resourceTemplate, Name: "agent-card", Title: "ADP Agent Card",
		Description: "The signed ADP Agent Card of an agent: its name, description, skill tags, tools with input schemas, and endpoints. id is the agent id without agent://.",
		MIMEType:    cardMIME,
	}, r.read)
	return r
}

// pollLoop syncs at once and then every interval until ctx ends.
func (r *resources) pollLoop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := r.sync(ctx); err != nil && ctx.Err() == nil {
			r.log.Debug("mcp: card list", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sync reads the node's cards and adds and removes resources to match.
func (r *resources) sync(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r.mu.Lock()
	ownID := r.ownID
	r.mu.Unlock()
	if ownID == "" {
		st, err := r.node.Status(ctx)
		if err != nil {
			return err
		}
		ownID = st.AgentID
	}
	page, err := r.node.CardPage(ctx, MaxListedCards)
	if err != nil {
		return err
	}
	want := map[string]*mcp.Resource{
		AgentURI(ownID): {URI: AgentURI(ownID), Name: "my-card", Title: "This node's own card", MIMEType: cardMIME,
			Description: "The signed card this node publishes for its own agent (" + ownID + ")."},
	}
	for _, c := range page.Cards {
		uri := AgentURI(c.ID)
		if _, ok := want[uri]; ok {
			continue
		}
		want[uri] = &mcp.Resource{URI: uri, Name: c.Name, Title: c.Name, MIMEType: cardMIME,
			Description: fmt.Sprintf("Agent card of %q (%s), held by this node (source %s).", c.Name, c.ID, c.Source)}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ownID = ownID
	var gone []string
	for uri := range r.listed {
		if want[uri] == nil {
			gone = append(gone, uri)
			delete(r.listed, uri)
		}
	}
	if len(gone) > 0 {
		r.srv.RemoveResources(gone...)
	}
	for uri, res := range want {
		if !r.listed[uri] {
			r.listed[uri] = true
			r.srv.AddResource(res, r.read)
		}
	}
	return nil
}

// read answers resources/read of adp://agents/{id}: the own card, or a
// held (or network-found) card.
func (r *resources) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, err := agentIDOf(uri)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	r.mu.Lock()
	own := id == r.ownID
	r.mu.Unlock()
	var text []byte
	if own {
		text, err = r.node.OwnCard(ctx)
	} else {
		var cv *httpapi.CardView
		if cv, err = r.node.CardByID(ctx, id); err == nil {
			text = cv.AgentCard
		}
	}
	if err != nil {
		if isNotFound(err) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, fmt.Errorf("reading %s: %s", uri, describeError(err))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: cardMIME, Text: string(text)}}}, nil
}
