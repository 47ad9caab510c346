package webreg

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/adpnode/adpnode/internal/jsonerr"
	"github.com/adpnode/adpnode/internal/ratelimit"
)

// RegisterPath is the local API route of Handler.
const RegisterPath = "/v1/web/register"

// MaxRequestBytes bounds a registration request body.
const MaxRequestBytes = 4 << 10

// Request is the body of a registration.
type Request struct {
	URL string `json:"url"`
}

// apiError is the body of a refusal, in the node's API error model (code,
// message and the JSON Pointer at fault), written here so that the
// registry depends on nothing that holds cards.
type apiError struct {
	status  int
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
}

func (e *apiError) Error() string { return e.Message }

func newError(status int, path, msg string) *apiError {
	code := "invalid_request"
	switch {
	case status == http.StatusTooManyRequests:
		code = "rate_limited"
	case status >= 500:
		code = "internal"
	}
	return &apiError{status: status, Code: code, Message: msg, Path: path}
}

func writeError(w http.ResponseWriter, e *apiError) {
	b, _ := json.Marshal(e) // strings only: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(e.status)
	_, _ = w.Write(append(b, '\n'))
}

// Handler answers POST RegisterPath: {"url": "..."} in, the
// Registration out (201), errors in the API's error model with the JSON
// Pointer of the value at fault. The requester is the source IP.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeError(w, newError(http.StatusMethodNotAllowed, "", req.Method+" not allowed"))
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, MaxRequestBytes+1))
		if err != nil || len(body) > MaxRequestBytes {
			writeError(w, newError(http.StatusRequestEntityTooLarge, "", "request body larger than "+strconv.Itoa(MaxRequestBytes)+" bytes"))
			return
		}
		in, bad := decodeRequest(body)
		if bad != nil {
			writeError(w, bad)
			return
		}
		ip := ratelimit.SourceIP(req)
		reg, err := r.Register(req.Context(), in.URL, ip.String(), ip)
		if err != nil {
			writeRefusal(w, err)
			return
		}
		b, _ := json.Marshal(reg) // plain strings and times: cannot fail
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(append(b, '\n'))
	})
}

func decodeRequest(body []byte) (*Request, *apiError) {
	var in Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		path, msg := jsonerr.Describe(err)
		return nil, newError(http.StatusBadRequest, path, msg)
	}
	if !jsonerr.AtEnd(dec) {
		return nil, newError(http.StatusBadRequest, "", "trailing data after the JSON object")
	}
	if in.URL == "" {
		return nil, newError(http.StatusBadRequest, "/url", "required: the URL of an A2A agent card or an ANP agent description")
	}
	return &in, nil
}

// writeRefusal maps a Register error to its HTTP status.
func writeRefusal(w http.ResponseWriter, err error) {
	status := http.StatusUnprocessableEntity
	var re *RateError
	switch {
	case errors.As(err, &re):
		ratelimit.SetRetryAfter(w.Header(), re.RetryAfter)
		status = http.StatusTooManyRequests
	case errors.Is(err, ErrRefusedURL):
		status = http.StatusBadRequest
	case errors.Is(err, ErrFetch):
		status = http.StatusBadGateway
	case errors.Is(err, ErrFull):
		status = http.StatusInsufficientStorage
	}
	path := ""
	if status == http.StatusBadRequest {
		path = "/url"
	}
	writeError(w, newError(status, path, err.Error()))
}
