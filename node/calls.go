package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/nodeapi"
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
		return nil, fmt.Errorf("node: card from %s: %w", p, wrapUnreachable(p, err))
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
		return selectFields(n.Card(), fields)
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
		return nil, fmt.Errorf("node: describe %s: %w", id, wrapUnreachable(p, err))
	}
	return c.Raw(), nil
}

// selectFields returns the card, or only the named top-level fields plus id
// and name.
func selectFields(c *adp.Card, fields []string) (json.RawMessage, error) {
	if len(fields) == 0 {
		return c.Raw(), nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(c.Raw(), &all); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{"id": all["id"], "name": all["name"]}
	for _, f := range fields {
		if v, ok := all[f]; ok {
			out[f] = v
		}
	}
	return json.Marshal(out)
}

// InvokeResult is the reply of a tool call.
type InvokeResult = nodeapi.InvokeResult

// Invoke calls method on agentID with body and records the outcome in the
// interaction records (calls, failures, latency, last seen).
func (n *Node) Invoke(ctx context.Context, agentID, method string, body []byte) (*InvokeResult, error) {
	p, id, err := n.remotePeer(agentID)
	if err != nil {
		return nil, err
	}
	if id == n.agentID {
		return nil, nodeapi.Argument(nodeapi.ErrSelf, "/agent", "a node does not invoke its own agent; call the agent directly")
	}
	defer n.callStarted(id)()
	start := time.Now()
	reply, err := n.invokeRoutes(ctx, p, id, method, body)
	lat := time.Since(start)
	n.recordCall(id, method, err, lat)
	if err != nil {
		return nil, err
	}
	return &InvokeResult{Body: asJSON(reply), Latency: lat}, nil
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
	defer n.callStarted(id)()
	start := time.Now()
	err = n.streamRoutes(ctx, p, id, method, body, fn)
	n.recordCall(id, method, err, time.Since(start))
	return err
}

func (n *Node) stream(ctx context.Context, p peer.ID, method string, body []byte, fn func(json.RawMessage) error) error {
	opts := n.callOptions(adp.AgentID(p), method)
	rs, err := n.client.Stream(ctx, p, method, body, opts...)
	for try := 0; try < maxRedials && n.redial(p, err); try++ {
		rs, err = n.client.Stream(ctx, p, method, body, opts...)
	}
	if err != nil {
		return wrapUnreachable(p, err)
	}
	defer rs.Close()
	for {
		chunk, err := rs.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(asJSON(chunk)); err != nil {
			return err
		}
	}
}

// callRecord is one outbound call for the interaction records.
type callRecord struct {
	agentID string
	ok      bool
	latency time.Duration
}

// callOptions marks a call idempotent (one retry after a lost stream)
// when the agent's held card says the tool is.
func (n *Node) callOptions(agentID, method string) []aitp.CallOption {
	if t := n.heldTool(agentID, method); t != nil && t.Idempotent != nil && *t.Idempotent {
		return []aitp.CallOption{aitp.Idempotent()}
	}
	return nil
}

// heldTool returns the tool named method on agentID's held card, or nil.
func (n *Node) heldTool(agentID, method string) *adp.Tool {
	c := n.store.Held(agentID)
	if c == nil {
		return nil
	}
	for i := range c.Tools {
		if c.Tools[i].Name == method {
			return &c.Tools[i]
		}
	}
	return nil
}

// recordCall counts the call in the metrics (the method as a label only
// when the callee's card lists it, see metrics) and queues it for the
// interaction records (written by statsLoop, off the call path: a store
// write waits for its fsync).
func (n *Node) recordCall(agentID, method string, err error, lat time.Duration) {
	status := aitp.StatusOK
	if err != nil {
		status = aitp.StatusError
		if st, ok := aitp.StatusOf(err); ok {
			status = st
		}
	}
	known := isADPMethod(method) || n.heldTool(agentID, method) != nil
	n.metrics.calls.WithLabelValues(n.metrics.callMethods.label(method, known), status.Label()).Inc()
	// A dispatch-level refusal (no such tool, bad request) says nothing
	// about the agent's health; only served calls and transport failures count.
	if status == aitp.StatusNotFound || status == aitp.StatusInvalidRequest || status == aitp.StatusUnauthorized {
		return
	}
	n.live.Called(agentID, err == nil) // pushed with the record by statsLoop
	select {
	case n.calls <- callRecord{agentID: agentID, ok: err == nil, latency: lat}:
	default:
		n.log.Debug("interaction record dropped: queue full", "agent", agentID)
	}
}

// statsLoop writes queued call records to the store until the node closes.
func (n *Node) statsLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-n.calls:
			if err := n.store.RecordCall(ctx, c.agentID, c.ok, c.latency); err != nil {
				if ctx.Err() == nil {
					n.log.Debug("record call", "agent", c.agentID, "err", err)
				}
				continue
			}
			n.pushSignals(c.agentID)
		}
	}
}

// asJSON returns b when it is JSON and b as a JSON string otherwise.
func asJSON(b []byte) json.RawMessage {
	if len(b) > 0 && json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
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
	return stored, wrapUnreachable(p, err)
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
	n.pushSignals(id)
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

// call is client.Call with transport failures wrapped in ErrUnreachable.
// A dial that failed for want of addresses (they expired meanwhile) is
// tried again once they are re-learned from p's held card: nothing was
// sent.
func (n *Node) call(ctx context.Context, p peer.ID, method string, body []byte, opts ...aitp.CallOption) ([]byte, error) {
	reply, err := n.client.Call(ctx, p, method, body, opts...)
	for try := 0; try < maxRedials && n.redial(p, err); try++ {
		reply, err = n.client.Call(ctx, p, method, body, opts...)
	}
	return reply, wrapUnreachable(p, err)
}

// maxRedials bounds the attempts redial allows after a call's first: one
// after re-learning p's addresses, one more if that attempt joined a dial
// begun before they were learned.
const maxRedials = 2

// redial reports whether the call that failed with err, never sent, may
// be tried again at once:
//   - a dial that found no address for p while p has addresses now: they
//     are re-learned from p's held card, or else from the DHT; if the
//     peerstore holds some already, the failed dial began before they were
//     added (a call joins a dial to the same peer that is under way, such
//     as a background describe);
//   - a dial refused by libp2p's dial backoff (a dial to p failed moments
//     ago, typically while p restarted): p's current addresses are looked
//     up in the DHT and the backoff is cleared, so a peer that came back
//     is reached without waiting for it to expire;
//   - a dial that failed on every address: the call is tried again when
//     the DHT knows addresses of p that the peerstore did not (p moved).
func (n *Node) redial(p peer.ID, err error) bool {
	if err == nil || p == n.host.ID() {
		return false
	}
	var de *swarm.DialError
	switch {
	case errors.Is(err, swarm.ErrNoAddresses):
		if len(n.host.Peerstore().Addrs(p)) > 0 {
			return true
		}
		return n.learnAddrs(p, adp.AgentID(p)) || n.findPeer(p)
	case errors.Is(err, swarm.ErrDialBackoff):
		n.findPeer(p)
		if sw, ok := n.host.Network().(*swarm.Swarm); ok {
			sw.Backoff().Clear(p)
		}
		return true
	case errors.As(err, &de):
		return n.findPeer(p)
	}
	return false
}

// findPeerTimeout bounds the DHT lookup of a peer's addresses on a call.
const findPeerTimeout = 3 * time.Second

// findPeer looks p up in the DHT (its signed peer record, as the peers
// closest to it know it), adds the addresses found to the peerstore and
// reports whether any was new.
func (n *Node) findPeer(p peer.ID) bool {
	ctx, cancel := context.WithTimeout(n.ctx, findPeerTimeout)
	defer cancel()
	ai, err := n.dht.FindPeer(ctx, p)
	if err != nil {
		n.log.Debug("find peer", "peer", p, "err", err)
		return false
	}
	known := n.host.Peerstore().Addrs(p)
	fresh := false
	for _, a := range ai.Addrs {
		if !slices.ContainsFunc(known, a.Equal) {
			fresh = true
		}
	}
	if fresh {
		n.host.Peerstore().AddAddrs(p, ai.Addrs, peerstore.RecentlyConnectedAddrTTL)
	}
	return fresh
}

// wrapUnreachable marks an error that is neither a remote answer, nor a
// malformed or unverifiable reply, nor the caller's own deadline as a
// failure to reach the agent.
func wrapUnreachable(p peer.ID, err error) error {
	var re *aitp.Error
	if err == nil || errors.As(err, &re) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || badReply(err) {
		return err
	}
	return &unreachableError{agent: adp.AgentID(p), err: err}
}

// unreachableError is a failure to reach an agent, said in the user's
// words; the transport's error stays available to errors.Is and As.
type unreachableError struct {
	agent string
	err   error
}

func (e *unreachableError) Error() string {
	switch {
	case errors.Is(e.err, swarm.ErrDialBackoff):
		return "agent " + e.agent + " is not reachable (recent attempts to connect failed; the node waits before trying again)"
	case errors.Is(e.err, swarm.ErrNoAddresses):
		return "agent " + e.agent + " is not reachable (no address is known for it)"
	case errors.Is(e.err, aitp.ErrCircuitOpen):
		return "agent " + e.agent + " is not reachable (it failed repeatedly; calls resume after a cool-down)"
	case errors.Is(e.err, a2aclient.ErrUnreachable), errors.Is(e.err, a2aclient.ErrRefusedURL):
		return "agent " + e.agent + " is not reachable (" + errText(e.err) + ")"
	}
	return "agent " + e.agent + " is not reachable (the connection failed or was lost)"
}

// Unwrap returns ErrUnreachable and the transport's error.
func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// badReply reports an error about what a peer answered (package adp's
// decoding and verification), as opposed to a failure to reach it.
func badReply(err error) bool {
	for _, e := range []error{adp.ErrMalformed, adp.ErrInvalid, adp.ErrTooLarge, adp.ErrTooDeep, adp.ErrUnsigned, adp.ErrBadSignature, adp.ErrBadID, adp.ErrBadDID} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
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
