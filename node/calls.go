package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/invoke"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/toolserver"
	"github.com/adpnode/adpnode/store"
)

// normalizeAgentID accepts an agent id in every form a user may give it
// (agent://k51..., agent://12D3KooW..., or the bare k51... or 12D3KooW...
// peer id) and returns its canonical agent://k51... form.
func normalizeAgentID(id string) (string, error) {
	if !strings.Contains(id, ":") {
		id = adp.AgentIDScheme + id
	}
	return adp.NormalizeAgentID(id)
}

// remotePeer resolves an agent id to a peer other than this node.
func (n *Node) remotePeer(agentID string) (peer.ID, string, error) {
	id, err := normalizeAgentID(agentID)
	if err != nil {
		return "", "", err
	}
	p, err := adp.PeerIDFromAgentID(id)
	if err != nil {
		return "", "", err
	}
	if id != n.agentID {
		n.learnAddrs(p, id)
	}
	return p, id, nil
}

// fetchFromOwner asks p for its full card (adp.describe, which verifies
// it and checks that it is p's own card) and hands it to the intake.
func (n *Node) fetchFromOwner(ctx context.Context, p peer.ID) (*adp.Card, error) {
	c, err := service.Describe(ctx, n.client, p)
	if err != nil {
		return nil, fmt.Errorf("node: card from %s: %w", p, invoke.Unreachable(p, err))
	}
	n.keep(ctx, c, intake.From{Source: store.SourceAdvertise, Origin: c.ID, Owner: p, Network: n.networkOf(p), SyncLater: true})
	return c, nil
}

// Describe returns the card of agentID as its owner describes it: the full
// card, or the requested fields plus id and name. The own card is answered
// locally. A full card is verified and stored.
func (n *Node) Describe(ctx context.Context, agentID string, fields []string) (json.RawMessage, error) {
	if len(fields) > service.MaxDescribeFields {
		return nil, nodeapi.Argument(nodeapi.ErrInvalidArgument, "/fields", fmt.Sprintf("at most %d fields", service.MaxDescribeFields))
	}
	p, id, err := n.remotePeer(agentID)
	if err != nil {
		return nil, err
	}
	if id == n.agentID {
		if len(fields) == 0 {
			return n.Card().Raw(), nil
		}
		return service.SelectFields(n.Card().Raw(), fields)
	}
	if len(fields) == 0 {
		c, err := n.fetchFromOwner(ctx, p)
		if err != nil {
			return nil, err
		}
		return c.Raw(), nil
	}
	c, err := service.Describe(ctx, n.client, p, fields...)
	if err != nil {
		return nil, fmt.Errorf("node: describe %s: %w", id, invoke.Unreachable(p, err))
	}
	return c.Raw(), nil
}

// InvokeResult is the reply of a tool call.
type InvokeResult = nodeapi.InvokeResult

// Invoke calls method on agentID with body (package node/invoke) and
// records the outcome in the interaction records (calls, failures,
// latency, last seen).
func (n *Node) Invoke(ctx context.Context, agentID, method string, body []byte) (*InvokeResult, error) {
	p, id, err := n.remotePeer(agentID)
	if err != nil {
		return nil, err
	}
	if id == n.agentID {
		return nil, nodeapi.Argument(nodeapi.ErrSelf, "/agent", "a node does not invoke its own agent; call the agent directly")
	}
	defer n.feed.CallStarted(id)()
	start := time.Now()
	reply, err := n.invoke.Invoke(ctx, p, id, method, body)
	lat := time.Since(start)
	n.recordCall(id, method, err, lat)
	if err != nil {
		return nil, err
	}
	return &InvokeResult{Body: reply, Latency: lat}, nil
}

// InvokeStream calls method on agentID accepting a streamed reply; each
// chunk goes to fn in order. An error from fn ends the call.
func (n *Node) InvokeStream(ctx context.Context, agentID, method string, body []byte, fn func(chunk json.RawMessage) error) error {
	p, id, err := n.remotePeer(agentID)
	if err != nil {
		return err
	}
	if id == n.agentID {
		return nodeapi.Argument(nodeapi.ErrSelf, "/agent", "a node does not invoke its own agent")
	}
	defer n.feed.CallStarted(id)()
	start := time.Now()
	err = n.invoke.InvokeStream(ctx, p, id, method, body, fn)
	n.recordCall(id, method, err, time.Since(start))
	return err
}

// recordCall counts the call in the metrics (the method as a label only
// when the callee's card lists it, see metrics) and hands its outcome to
// the feed (liveness and the interaction records).
func (n *Node) recordCall(agentID, method string, err error, lat time.Duration) {
	status := aitp.StatusOK
	if err != nil {
		status = aitp.StatusError
		if st, ok := aitp.StatusOf(err); ok {
			status = st
		}
	}
	known := toolserver.IsADPMethod(method) || n.invoke.Tool(agentID, method) != nil
	n.metrics.Calls.WithLabelValues(n.metrics.CallMethods.Label(method, known), status.Label()).Inc()
	n.feed.Called(agentID, err, lat)
}

// Advertise sends the own card to agentID (adp.advertise) and reports
// whether the receiver stored it.
func (n *Node) Advertise(ctx context.Context, agentID string) (bool, error) {
	p, id, err := n.remotePeer(agentID)
	if err != nil {
		return false, err
	}
	if id == n.agentID {
		return false, nodeapi.Argument(nodeapi.ErrSelf, "/agent", "cannot advertise to self")
	}
	return n.advertiseTo(ctx, p)
}

func (n *Node) advertiseTo(ctx context.Context, p peer.ID) (bool, error) {
	stored, err := service.Advertise(ctx, n.client, p, n.Card())
	return stored, invoke.Unreachable(p, err)
}

// Rate records this node's rating (1..5 stars) of agentID.
func (n *Node) Rate(ctx context.Context, agentID string, stars int) error {
	id, err := normalizeAgentID(agentID)
	if err != nil {
		return err
	}
	if stars < 1 || stars > 5 {
		return nodeapi.Argument(nodeapi.ErrInvalidArgument, "/stars", "must be 1 to 5")
	}
	if id == n.agentID {
		return nodeapi.Argument(nodeapi.ErrSelf, "/agent", "a node does not rate its own agent")
	}
	if err := n.store.Rate(ctx, id, n.agentID, stars); err != nil {
		return err
	}
	n.feed.Push(id)
	return nil
}

// Stats returns the interaction records of agentID.
func (n *Node) Stats(ctx context.Context, agentID string) (store.Stats, error) {
	id, err := normalizeAgentID(agentID)
	if err != nil {
		return store.Stats{}, err
	}
	return n.store.Stats(ctx, id)
}

// ImportCard stores a signed card that reached the node by other means (a
// file, an operator). It goes through the intake like any card from the
// network.
func (n *Node) ImportCard(ctx context.Context, c *adp.Card) (bool, error) {
	raw := c.Raw()
	if raw == nil {
		return false, adp.ErrUnsigned
	}
	_, stored, err := n.intake.Admit(ctx, raw, intake.From{Source: store.SourceImport, Origin: "import"})
	if errors.Is(err, intake.ErrOwnCard) {
		return false, nodeapi.Argument(nodeapi.ErrSelf, "/id", "the own card changes only through UpdateCard")
	}
	return stored, err
}
