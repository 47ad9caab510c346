package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/wellknown"
	"github.com/adpnode/adpnode/store"
)

// Error codes of the discovery profile's error model.
const (
	codeInvalidRequest    = "invalid_request"
	codeUnsupportedFilter = "unsupported_filter"
	codeUnauthorized      = "unauthorized"
	codeForbidden         = "forbidden"
	codeConflict          = "conflict"
	codeStaleMetadata     = "stale_metadata"
	codeNotFound          = "not_found"
	codeRateLimited       = "rate_limited"
	codeTimeout           = "timeout"
	codeInternal          = "internal"
)

// Error is an HTTP API failure in the discovery profile's error model:
// the body of every error answer, and what a Client returns for one.
// Status is the HTTP status, not part of the body.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
	// CorrelationID identifies this failure for tracing and support; the
	// API sends it in the body and in the X-Correlation-ID header.
	CorrelationID string `json:"correlation_id,omitempty"`
}

// CorrelationHeader carries an error's correlation id.
const CorrelationHeader = "X-Correlation-ID"

// newCorrelationID returns a fresh random correlation id.
func newCorrelationID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "err-" + hex.EncodeToString(b[:])
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s (HTTP %d)", e.Code, e.Status)
	if e.Path != "" {
		s += " at " + e.Path
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func badRequest(path, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: codeInvalidRequest, Path: path, Message: msg}
}

func badRequestf(path, format string, args ...any) *Error {
	return badRequest(path, fmt.Sprintf(format, args...))
}

// NewError returns an *Error of status with msg and the code of that
// status (invalid_request, not_found, rate_limited...), for the node's
// other HTTP servers, which answer in the same model.
func NewError(status int, msg string) *Error {
	code := codeInvalidRequest
	switch status {
	case http.StatusNotFound, http.StatusGone:
		code = codeNotFound
	case http.StatusTooManyRequests:
		code = codeRateLimited
	case http.StatusForbidden:
		code = codeForbidden
	case http.StatusGatewayTimeout:
		code = codeTimeout
	default:
		if status >= 500 {
			code = codeInternal
		}
	}
	return &Error{Status: status, Code: code, Message: msg}
}

// WriteError answers err in the error model (mapped by ErrorOf, with a
// correlation id), as every handler of the API does.
func WriteError(w http.ResponseWriter, err error) { writeAPIError(w, err) }

// ErrorOf maps an error from the service to the error model and an HTTP
// status: the sentinel and typed errors of packages nodeapi, discovery,
// wellknown, adp, store and aitp each have their code and status; anything else is
// a 500 "internal".
func ErrorOf(err error) *Error {
	var (
		ae  *Error
		ne  *nodeapi.ArgumentError
		ve  *adp.ValidationError
		re  *aitp.Error
		mbe *http.MaxBytesError
		ue  *adp.UnsupportedFilterError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &ne):
		if errors.Is(ne.Err, nodeapi.ErrConflict) {
			return &Error{Status: http.StatusConflict, Code: codeConflict, Path: ne.Path, Message: ne.Reason}
		}
		return &Error{Status: http.StatusBadRequest, Code: codeInvalidRequest, Path: ne.Path, Message: ne.Reason}
	case errors.As(err, &mbe), errors.Is(err, adp.ErrTooLarge):
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest, Message: err.Error()}
	case errors.As(err, &ue):
		e := &Error{Status: http.StatusBadRequest, Code: codeUnsupportedFilter, Message: ue.Error()}
		if len(ue.Paths) > 0 {
			e.Path = ue.Paths[0]
		}
		return e
	case errors.As(err, &ve):
		e := &Error{Status: http.StatusBadRequest, Code: codeInvalidRequest, Message: ve.Error()}
		if len(ve.Problems) > 0 {
			e.Path = ve.Problems[0].Path
		}
		return e
	case errors.As(err, &re):
		return remoteAPIError(re)
	case errors.Is(err, nodeapi.ErrStale):
		return &Error{Status: http.StatusConflict, Code: codeStaleMetadata, Path: "/seq", Message: err.Error()}
	case errors.Is(err, store.ErrRevoked):
		return &Error{Status: http.StatusGone, Code: codeNotFound, Message: err.Error()}
	case errors.Is(err, store.ErrNotFound), errors.Is(err, adp.ErrNotFound):
		return &Error{Status: http.StatusNotFound, Code: codeNotFound, Message: err.Error()}
	case errors.Is(err, adp.ErrBadID):
		return &Error{Status: http.StatusBadRequest, Code: codeInvalidRequest, Path: "/agent", Message: err.Error()}
	case errors.Is(err, adp.ErrMalformed), errors.Is(err, adp.ErrTooDeep), errors.Is(err, adp.ErrInvalid), errors.Is(err, store.ErrInvalid):
		return &Error{Status: http.StatusBadRequest, Code: codeInvalidRequest, Message: err.Error()}
	case errors.Is(err, wellknown.ErrBadPage):
		return &Error{Status: http.StatusBadRequest, Code: codeInvalidRequest, Message: err.Error()}
	case errors.Is(err, wellknown.ErrNotFound):
		return &Error{Status: http.StatusNotFound, Code: codeNotFound, Message: err.Error()}
	case errors.Is(err, discovery.ErrBadScope):
		return &Error{Status: http.StatusBadRequest, Code: codeInvalidRequest, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Status: http.StatusGatewayTimeout, Code: codeTimeout, Message: "the network did not answer in time"}
	case errors.Is(err, nodeapi.ErrClosed), errors.Is(err, store.ErrClosed), errors.Is(err, aitp.ErrClosed):
		return &Error{Status: http.StatusServiceUnavailable, Code: codeInternal, Message: "node is shutting down"}
	case errors.Is(err, aitp.ErrCircuitOpen):
		return &Error{Status: http.StatusServiceUnavailable, Code: codeInternal, Message: err.Error()}
	case errors.Is(err, nodeapi.ErrUnreachable), errors.Is(err, aitp.ErrConnLost), errors.Is(err, aitp.ErrAborted):
		return &Error{Status: http.StatusBadGateway, Code: codeInternal, Message: err.Error()}
	default:
		return &Error{Status: http.StatusInternalServerError, Code: codeInternal, Message: err.Error()}
	}
}

// remoteAPIError maps a remote agent's AITP failure to an HTTP status,
// keeping its code, message and path.
func remoteAPIError(re *aitp.Error) *Error {
	e := &Error{Code: re.Code, Message: re.Message, Path: re.Path}
	switch re.Status {
	case aitp.StatusInvalidRequest:
		e.Status = http.StatusBadRequest
	case aitp.StatusUnauthorized:
		e.Status = http.StatusUnauthorized
		if re.Code == codeForbidden {
			e.Status = http.StatusForbidden
		}
	case aitp.StatusNotFound:
		e.Status = http.StatusNotFound
	case aitp.StatusBusy:
		e.Status = http.StatusTooManyRequests
	case aitp.StatusTimeout:
		e.Status = http.StatusGatewayTimeout
	default:
		e.Status = http.StatusBadGateway
	}
	if e.Code == "" {
		e.Code = codeInternal
	}
	return e
}
