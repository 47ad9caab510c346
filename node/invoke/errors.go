package invoke

import (
	"context"
	"errors"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/a2awire"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// ErrUnreachable wraps a failure to reach an agent (nodeapi.ErrUnreachable).
var ErrUnreachable = nodeapi.ErrUnreachable

// Unreachable wraps err, from a call to p, in ErrUnreachable unless it is
// a remote answer (*aitp.Error), a reply that could not be decoded or
// verified (package adp's errors), or the caller's own deadline or
// cancellation. It returns nil for nil.
func Unreachable(p peer.ID, err error) error {
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
	case errors.Is(e.err, swarm.ErrNoGoodAddresses) && errors.Is(e.err, swarm.ErrGaterDisallowedConnection):
		// Of a node's own gates only p2phost's hole-punch gate refuses an
		// address: a relayed one, before hole punching has started.
		return "agent " + e.agent + " is not reachable yet (this node knows no direct address of it that it can dial, and dials relayed ones only once its hole punching has started, at most " +
			p2phost.DefaultPunchWait.String() + " after the node started)"
	case errors.Is(e.err, a2aclient.ErrUnreachable), errors.Is(e.err, a2aclient.ErrRefusedURL):
		return "agent " + e.agent + " is not reachable (" + a2aText(e.err) + ")"
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

// a2aError maps an A2A call's failure to the node's errors: an endpoint
// that cannot be reached (or whose address the node refuses to call) is
// ErrUnreachable, and the answers are the AITP statuses they correspond
// to.
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
		return &aitp.Error{Status: aitp.StatusError, Code: aitp.CodeInternal, Message: "the A2A endpoint's reply is unusable: " + a2aText(err)}
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

// a2aText is an a2aclient error's text without the package's prefix.
func a2aText(err error) string {
	return strings.TrimPrefix(err.Error(), "a2a: ")
}
