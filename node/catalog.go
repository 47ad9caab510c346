package node

import (
	"context"
	"fmt"
	"net/http"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/webreg"
)

// newWebRegistry is a directory's registry of cards registered from the
// web (package node/webreg): fetched under the A2A client's address
// policy, their did:wba DIDs checked by the node's resolver. Nil on a node
// that is not a directory.
func (n *Node) newWebRegistry() (*webreg.Registry, error) {
	if !n.cfg.Directory {
		return nil, nil
	}
	r, err := webreg.New(webreg.WithPrivateAddresses(n.cfg.A2AAllowPrivate), webreg.WithLogger(n.log),
		webreg.WithDIDCheck(func(ctx context.Context, c *adp.Card) bool { return n.DomainVerified(ctx, c) == DomainVerified }))
	if err != nil {
		return nil, fmt.Errorf("node: web registry: %w", err)
	}
	return r, nil
}

// catalogHandler is the AI Catalog manifest and search (package
// node/aicatalog) over the node's own discovery (scope local) and, on a
// directory, its web registrations, the manifest linking to baseURL (""
// = the request's Host).
func (n *Node) catalogHandler(baseURL string) http.Handler {
	opts := []aicatalog.Option{aicatalog.WithLogger(n.log)}
	if baseURL != "" {
		opts = append(opts, aicatalog.WithURL(baseURL))
	}
	sources := []aicatalog.Source{heldSource{n}}
	if n.webReg != nil {
		sources = append(sources, n.webReg)
	}
	self := func() aicatalog.Self {
		c := n.Card()
		return aicatalog.Self{Name: c.Name, Description: c.Description, AgentID: c.ID}
	}
	return aicatalog.NewHandler(self, sources, opts...)
}

// WebRegistry is the directory's registry of web cards (nil on a node
// that is not a directory).
func (n *Node) WebRegistry() *webreg.Registry { return n.webReg }

// heldSource is the node's own discovery as an aicatalog.Source: the
// cards it holds, every one signed by an adpnode key.
type heldSource struct{ n *Node }

func (s heldSource) Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	return s.n.Discover(ctx, req, discovery.ScopeLocal)
}

func (s heldSource) Origin(agentID string) aicatalog.Origin {
	o := aicatalog.Origin{Provenance: "self", Signed: true}
	if rec, err := s.n.HeldCard(context.Background(), agentID); err == nil {
		o.Provenance = string(rec.Source)
	}
	return o
}

// webRegHandler is the local API's POST webreg.RegisterPath (nil on a node
// that is not a directory). Registration is not offered on the public
// server: fetching a URL for an anonymous client is the one thing there
// that would make the node reach out to the network.
func (n *Node) webRegHandler() http.Handler {
	if n.webReg == nil {
		return nil
	}
	return n.webReg.Handler()
}
