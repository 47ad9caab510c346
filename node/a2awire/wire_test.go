package a2awire_test

import (
	"testing"

	"github.com/adpnode/adpnode/node/a2awire"
)

func TestStateSpellings(t *testing.T) {
	for _, tc := range []struct{ v10, v03 string }{
		{a2awire.StateSubmitted, "submitted"},
		{a2awire.StateWorking, "working"},
		{a2awire.StateCompleted, "completed"},
		{a2awire.StateFailed, "failed"},
		{a2awire.StateCanceled, "canceled"},
		{a2awire.StateInputRequired, "input-required"},
		{a2awire.StateRejected, "rejected"},
		{a2awire.StateAuthRequired, "auth-required"},
	} {
		if got := a2awire.State03(tc.v10); got != tc.v03 {
			t.Errorf("State03(%q) = %q, want %q", tc.v10, got, tc.v03)
		}
		if got := a2awire.State10(tc.v03); got != tc.v10 {
			t.Errorf("State10(%q) = %q, want %q", tc.v03, got, tc.v10)
		}
		if got := a2awire.State10(tc.v10); got != tc.v10 {
			t.Errorf("State10(%q) = %q, want it unchanged", tc.v10, got)
		}
	}
}

func TestReasonsRoundTrip(t *testing.T) {
	codes := []int{
		a2awire.CodeParseError, a2awire.CodeInvalidRequest, a2awire.CodeMethodNotFound,
		a2awire.CodeInvalidParams, a2awire.CodeInternalError, a2awire.CodeTaskNotFound,
		a2awire.CodeTaskNotCancelable, a2awire.CodePushNotificationNotSupported,
		a2awire.CodeUnsupportedOperation, a2awire.CodeContentTypeNotSupported, a2awire.CodeVersionNotSupported,
	}
	for _, c := range codes {
		r := a2awire.Reason(c)
		if r == "" {
			t.Errorf("code %d has no reason", c)
			continue
		}
		if back, ok := a2awire.CodeOfReason(r); !ok || back != c {
			t.Errorf("CodeOfReason(%q) = %d, %v; want %d", r, back, ok, c)
		}
	}
	if got := a2awire.Reason(-1); got != "" {
		t.Errorf("Reason(-1) = %q, want none", got)
	}
	if _, ok := a2awire.CodeOfReason("NOT_A_REASON"); ok {
		t.Error("CodeOfReason of an unknown reason reported ok")
	}
}
