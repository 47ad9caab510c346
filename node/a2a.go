package node

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/a2awire"
	"github.com/adpnode/adpnode/node/route"
)

// invokeRoutes calls method on agent id (peer p) through the targets its
// held card offers (package route: ADP priority, AITP first on a tie),
// moving to the next target only when one is not reachable. An agent
// whose card lists only A2A endpoints is called over A2A and never over
// AITP.
func (n *Node) invokeRoutes(ctx context.Context, p peer.ID, id, method string, body []byte) ([]byte, error) {
	var err error
	for _, t := range route.Order(n.store.Held(id), method) {
		var reply []byte
		if t.Transport == route.AITP {
			reply, err = n.call(ctx, p, method, body, n.callOptions(id, method)...)
		} else {
			reply, err = n.a2a.Send(ctx, a2aEndpoint(t), method, body)
			err = a2aError(id, err)
		}
		if !errors.Is(err, ErrUnreachable) || ctx.Err() != nil {
			return reply, err
		}
		n.log.Debug("target not reachable", "agent", id, "method", method, "err", err)
	}
	return nil, err
}

// streamRoutes is invokeRoutes for a streamed reply: it moves to the next
// target only when one was not reachable before any chunk reached fn.
func (n *Node) streamRoutes(ctx context.Context, p peer.ID, id, method string, body []byte, fn func(json.RawMessage) error) error {
	var err error
	emitted := false
	count := func(c json.RawMessage) error {
		emitted = true
		return fn(c)
	}
	for _, t := range route.Order(n.store.Held(id), method) {
		if t.Transport == route.AITP {
			err = n.stream(ctx, p, method, body, count)
		} else {
			err = a2aError(id, n.a2a.Stream(ctx, a2aEndpoint(t), method, body, count))
		}
		if emitted || !errors.Is(err, ErrUnreachable) || ctx.Err() != nil {
			return err
		}
		n.log.Debug("target not reachable", "agent", id, "method", method, "err", err)
	}
	return err
}

func a2aEndpoint(t route.Target) a2aclient.Endpoint {
	ep := a2aclient.Endpoint{URL: t.URL, ProtocolVersion: t.Version}
	if t.REST {
		ep.Binding = a2awire.BindingREST
	}
	return ep
}

// a2aError maps an A2A call's failure to the node's errors: an endpoint
// that cannot be reached (or whose address the node refuses to call) is
// ErrUnreachable, and the answers are the AITP statuses they correspond
// to, so that the HTTP API, the MCP server and the interaction records
// treat them as they treat an AITP agent's.
func a2aError(agentID string, err error) error {
	var (
		re *a2aclient.RemoteError
		te *a2aclient.TaskError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		st, code := a2aCodeStatus(re.Code)
		return &aitp.Error{Status: st, Code: code, Message: "the A2A agent answered: " + re.Message}
	case errors.As(err, &te):
		st, code := a2aStateStatus(te.State)
		return &aitp.Error{Status: st, Code: code, Message: te.Error()}
	case errors.Is(err, a2aclient.ErrUnreachable), errors.Is(err, a2aclient.ErrRefusedURL):
		return &unreachableError{agent: agentID, err: err}
	case errors.Is(err, a2aclient.ErrBadReply):
		return &aitp.Error{Status: aitp.StatusError, Code: aitp.CodeInternal, Message: "the A2A endpoint's reply is unusable: " + errText(err)}
	}
	return err
}

// a2aCodeStatus maps a JSON-RPC error code to an AITP status and code.
func a2aCodeStatus(code int) (aitp.Status, string) {
	switch code {
	case a2awire.CodeParseError, a2awire.CodeInvalidRequest, a2awire.CodeInvalidParams,
		a2awire.CodeUnsupportedOperation, a2awire.CodeContentTypeNotSupported:
		return aitp.StatusInvalidRequest, aitp.CodeInvalidRequest
	case a2awire.CodeMethodNotFound, a2awire.CodeTaskNotFound:
		return aitp.StatusNotFound, aitp.CodeNotFound
	}
	return aitp.StatusError, aitp.CodeInternal
}

// a2aStateStatus maps the state a task ended in without a result to an
// AITP status and code.
func a2aStateStatus(state string) (aitp.Status, string) {
	switch state {
	case a2awire.StateRejected, a2awire.StateInputRequired:
		return aitp.StatusInvalidRequest, aitp.CodeInvalidRequest
	case a2awire.StateAuthRequired:
		return aitp.StatusUnauthorized, aitp.CodeUnauthorized
	case a2awire.StateCanceled:
		return aitp.StatusError, aitp.CodeCanceled
	}
	return aitp.StatusError, aitp.CodeInternal
}

// errText is an a2aclient error's text without the package's prefix.
func errText(err error) string {
	s := err.Error()
	if len(s) > 5 && s[:5] == "a2a: " {
		return s[5:]
	}
	return s
}
