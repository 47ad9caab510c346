package invoke

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/a2awire"
)

// TestA2AError: an A2A agent's answers become the AITP statuses they
// correspond to, and an endpoint that cannot be reached is unreachable.
func TestA2AError(t *testing.T) {
	for _, tt := range []struct {
		err         error
		status      aitp.Status
		unreachable bool
	}{
		{&a2aclient.RemoteError{Code: a2awire.CodeInvalidParams, Message: "bad"}, aitp.StatusInvalidRequest, false},
		{&a2aclient.RemoteError{Code: a2awire.CodeMethodNotFound}, aitp.StatusNotFound, false},
		{&a2aclient.RemoteError{Code: a2awire.CodeTaskNotFound}, aitp.StatusNotFound, false},
		{&a2aclient.RemoteError{Code: -32000}, aitp.StatusError, false},
		{&a2aclient.TaskError{State: a2awire.StateRejected}, aitp.StatusInvalidRequest, false},
		{&a2aclient.TaskError{State: a2awire.StateAuthRequired}, aitp.StatusUnauthorized, false},
		{&a2aclient.TaskError{State: a2awire.StateCanceled}, aitp.StatusError, false},
		{fmt.Errorf("%w: x", a2aclient.ErrBadReply), aitp.StatusError, false},
		{fmt.Errorf("%w: http://x: refused", a2aclient.ErrUnreachable), 0, true},
		{fmt.Errorf("%w: 10.0.0.1 is private", a2aclient.ErrRefusedURL), 0, true},
	} {
		err := a2aError("agent://k51x", tt.err)
		if tt.unreachable {
			if !errors.Is(err, ErrUnreachable) || !strings.HasPrefix(err.Error(), "agent agent://k51x is not reachable (") || strings.Contains(err.Error(), "a2a: ") {
				t.Errorf("%v -> %v, want unreachable in words", tt.err, err)
			}
			continue
		}
		var e *aitp.Error
		if !errors.As(err, &e) || e.Status != tt.status {
			t.Errorf("%v -> %v, want status %v", tt.err, err, tt.status)
		}
	}
	if a2aError("x", nil) != nil {
		t.Error("nil error mapped")
	}
}
