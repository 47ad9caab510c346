package a2aclient

import (
	"encoding/json"
	"net/http"

	"github.com/adpnode/adpnode/node/a2awire"
)

func restPath(legacy, stream bool) string {
	p := restSend
	if stream {
		p = restStream
	}
	if legacy {
		p = legacyRESTPrefix + p
	}
	return p
}

// restResult is the result of a REST reply or event: the JSON itself
// (SendMessageResponse, StreamResponse; 0.3: the object with its kind).
func restResult(raw []byte) (json.RawMessage, error) {
	if !json.Valid(raw) {
		return nil, badReply("the reply is not JSON")
	}
	return raw, nil
}

// restFailure reads the error of a REST answer that is not 2xx: a
// google.rpc.Status {"error": {"code", "status", "message", "details"}}.
// Its code is the ErrorInfo reason's JSON-RPC code, or else the HTTP
// status's (400 invalid params, 404 method not found, 501 unsupported
// operation, other internal error). A 404 without that body says the
// route does not exist: "method not found", so that Send tries the 0.3
// path. Gateway failures (502, 503, 504) and other bodies are not remote
// errors.
func restFailure(status int, raw []byte) error {
	var body struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &body) != nil || body.Error == nil {
		if status == http.StatusNotFound {
			return &RemoteError{Code: a2awire.CodeMethodNotFound, Message: "no A2A REST route here (HTTP 404)"}
		}
		return nil
	}
	e := body.Error
	switch e.Code {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return nil
	}
	for _, d := range e.Details {
		if code, ok := a2awire.CodeOfReason(d.Reason); ok {
			return &RemoteError{Code: code, Message: clip(e.Message)}
		}
	}
	code := a2awire.CodeInternalError
	switch e.Code {
	case http.StatusBadRequest:
		code = a2awire.CodeInvalidParams
	case http.StatusNotFound:
		code = a2awire.CodeMethodNotFound
	case http.StatusNotImplemented:
		code = a2awire.CodeUnsupportedOperation
	}
	return &RemoteError{Code: code, Message: clip(e.Message)}
}
