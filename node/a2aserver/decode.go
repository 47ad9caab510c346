package a2aserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adpnode/adpnode/internal/jsonerr"
	"github.com/adpnode/adpnode/node/a2awire"
)

// This file decodes a request body: the JSON-RPC envelope, then the
// params of each method, checked member by member. Every refusal names
// the JSON Pointer of the member at fault. Unknown members are ignored,
// as A2A asks of receivers.

// request is a decoded JSON-RPC request.
type request struct {
	id     json.RawMessage // a string or a number, as sent
	method string
	params json.RawMessage
}

// decodeRequest reads the envelope. The id it returns (nil when unknown)
// is the one to answer with, also when the envelope is refused.
func decodeRequest(body []byte) (*request, json.RawMessage, *Error) {
	body = bytes.TrimSpace(body)
	if !utf8.Valid(body) {
		return nil, nil, rpcErr(a2awire.CodeParseError, "", "the body is not valid UTF-8")
	}
	if len(body) > 0 && body[0] == '[' {
		return nil, nil, rpcErr(a2awire.CodeInvalidRequest, "", "batch requests are not supported; send one request per HTTP request")
	}
	var env struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&env); err != nil {
		path, msg := jsonerr.Describe(err)
		code := a2awire.CodeParseError
		if path != "" || strings.HasPrefix(msg, "the body must be") {
			code = a2awire.CodeInvalidRequest
		}
		return nil, nil, rpcErr(code, path, "%s", msg)
	}
	if !jsonerr.AtEnd(dec) {
		return nil, nil, rpcErr(a2awire.CodeParseError, "", "trailing data after the request")
	}
	id, err := checkID(env.ID)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case env.JSONRPC == nil || *env.JSONRPC != "2.0":
		return nil, id, rpcErr(a2awire.CodeInvalidRequest, "/jsonrpc", `must be "2.0"`)
	case env.Method == nil || *env.Method == "":
		return nil, id, rpcErr(a2awire.CodeInvalidRequest, "/method", "required: a string")
	case id == nil:
		return nil, nil, rpcErr(a2awire.CodeInvalidRequest, "/id", "required: A2A methods are requests, not notifications")
	}
	return &request{id: id, method: *env.Method, params: env.Params}, id, nil
}

// checkID accepts a JSON-RPC id: a string of at most MaxIDLen octets or
// a number. Absent and null give nil.
func checkID(raw json.RawMessage) (json.RawMessage, *Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil || len(s) > MaxIDLen {
			return nil, rpcErr(a2awire.CodeInvalidRequest, "/id", "must be a string of at most %d octets or a number", MaxIDLen)
		}
		return raw, nil
	default:
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil || len(raw) > 64 {
			return nil, rpcErr(a2awire.CodeInvalidRequest, "/id", "must be a string or a number")
		}
		return raw, nil
	}
}

// decodeParams decodes params into v (a pointer to a struct); absent
// params are an error.
func decodeParams(raw json.RawMessage, v any) *Error {
	if len(raw) == 0 || string(raw) == "null" {
		return rpcErr(a2awire.CodeInvalidParams, "/params", "required: an object")
	}
	if raw[0] != '{' {
		return rpcErr(a2awire.CodeInvalidParams, "/params", "must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		path, msg := jsonerr.Describe(err)
		return rpcErr(a2awire.CodeInvalidParams, "/params"+path, "%s", msg)
	}
	return nil
}

// wirePartIn is a part as either version sends it.
type wirePartIn struct {
	Kind string          `json:"kind"` // 0.3: text, data, file
	Text *string         `json:"text"`
	Data json.RawMessage `json:"data"`
	Raw  json.RawMessage `json:"raw"`  // 1.0 file content
	URL  json.RawMessage `json:"url"`  // 1.0 file reference
	File json.RawMessage `json:"file"` // 0.3 file
}

type wireMessageIn struct {
	Kind      string            `json:"kind"` // 0.3: "message"
	MessageID string            `json:"messageId"`
	ContextID string            `json:"contextId"`
	TaskID    string            `json:"taskId"`
	Role      string            `json:"role"`
	Parts     []json.RawMessage `json:"parts"` // wirePartIn each, decoded one by one for their paths
	Metadata  json.RawMessage   `json:"metadata"`
}

type wireConfigIn struct {
	HistoryLength     *int            `json:"historyLength"`
	ReturnImmediately bool            `json:"returnImmediately"` // 1.0
	Blocking          *bool           `json:"blocking"`          // 0.3
	PushConfig        json.RawMessage `json:"taskPushNotificationConfig"`
	PushConfig03      json.RawMessage `json:"pushNotificationConfig"`
}

// sendParams are the params of SendMessage (1.0 SendMessageRequest) and
// message/send (0.3 MessageSendParams).
type sendParams struct {
	Message       *wireMessageIn  `json:"message"`
	Configuration *wireConfigIn   `json:"configuration"`
	Metadata      json.RawMessage `json:"metadata"`
}

// taskParams are the params of GetTask and CancelTask (and 0.3's
// tasks/get and tasks/cancel).
type taskParams struct {
	ID            *string `json:"id"`
	HistoryLength *int    `json:"historyLength"`
}

// sendRequest is a checked send: the message, how much history to
// return, and whether to wait for the end of the task.
type sendRequest struct {
	msg         message
	history     int // -1: all
	immediately bool
	// metadata is the request's metadata, where a skillId may be.
	metadata json.RawMessage
}

// checkSend checks the params of a send for version.
func checkSend(raw json.RawMessage, version string) (*sendRequest, *Error) {
	var p sendParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Message == nil {
		return nil, rpcErr(a2awire.CodeInvalidParams, "/params/message", "required: an object")
	}
	out := &sendRequest{history: -1, metadata: p.Metadata}
	if c := p.Configuration; c != nil {
		if len(c.PushConfig) > 0 && string(c.PushConfig) != "null" || len(c.PushConfig03) > 0 && string(c.PushConfig03) != "null" {
			return nil, rpcErr(a2awire.CodePushNotificationNotSupported, "/params/configuration", "push notifications are not supported; use SendStreamingMessage or GetTask")
		}
		if c.HistoryLength != nil {
			if *c.HistoryLength < 0 {
				return nil, rpcErr(a2awire.CodeInvalidParams, "/params/configuration/historyLength", "must not be negative")
			}
			out.history = *c.HistoryLength
		}
		out.immediately = c.ReturnImmediately || (version == a2awire.Version03 && c.Blocking != nil && !*c.Blocking)
	}
	if err := checkObject(p.Metadata, "/params/metadata"); err != nil {
		return nil, err
	}
	m, err := checkMessage(p.Message, version)
	if err != nil {
		return nil, err
	}
	out.msg = *m
	return out, nil
}

// checkMessage checks a client's message.
func checkMessage(w *wireMessageIn, version string) (*message, *Error) {
	const at = "/params/message"
	user := "ROLE_USER"
	if version == a2awire.Version03 {
		user = "user"
		if w.Kind != "" && w.Kind != "message" {
			return nil, rpcErr(a2awire.CodeInvalidParams, at+"/kind", `must be "message"`)
		}
	}
	switch {
	case w.MessageID == "" || len(w.MessageID) > MaxIDLen:
		return nil, rpcErr(a2awire.CodeInvalidParams, at+"/messageId", "required: a string of 1 to %d octets", MaxIDLen)
	case len(w.ContextID) > MaxIDLen:
		return nil, rpcErr(a2awire.CodeInvalidParams, at+"/contextId", "at most %d octets", MaxIDLen)
	case len(w.TaskID) > MaxIDLen:
		return nil, rpcErr(a2awire.CodeInvalidParams, at+"/taskId", "at most %d octets", MaxIDLen)
	case w.Role != user:
		return nil, rpcErr(a2awire.CodeInvalidParams, at+"/role", "must be %q: a client sends user messages", user)
	case len(w.Parts) == 0:
		return nil, rpcErr(a2awire.CodeInvalidParams, at+"/parts", "required: at least one part")
	case len(w.Parts) > MaxParts:
		return nil, rpcErr(a2awire.CodeInvalidParams, at+"/parts", "at most %d parts", MaxParts)
	}
	if err := checkObject(w.Metadata, at+"/metadata"); err != nil {
		return nil, err
	}
	m := &message{id: w.MessageID, contextID: w.ContextID, taskID: w.TaskID, metadata: w.Metadata}
	for i, raw := range w.Parts {
		pat := at + "/parts/" + strconv.Itoa(i)
		var wp wirePartIn
		if err := json.Unmarshal(raw, &wp); err != nil {
			path, msg := jsonerr.Describe(err)
			return nil, rpcErr(a2awire.CodeInvalidParams, pat+path, "%s", msg)
		}
		p, err := checkPart(&wp, version, pat)
		if err != nil {
			return nil, err
		}
		m.parts = append(m.parts, p)
	}
	return m, nil
}

// checkPart checks one part: text or data. File parts (raw, url, 0.3
// file) are refused: a tool takes JSON arguments.
func checkPart(w *wirePartIn, version, at string) (part, *Error) {
	has := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	fileErr := rpcErr(a2awire.CodeContentTypeNotSupported, at, "file parts are not supported: a tool takes text or JSON data")
	if version == a2awire.Version03 {
		switch w.Kind {
		case "text":
			if w.Text == nil {
				return part{}, rpcErr(a2awire.CodeInvalidParams, at+"/text", "required: a string")
			}
			return textPart(*w.Text), nil
		case "data":
			if !has(w.Data) || w.Data[0] != '{' {
				return part{}, rpcErr(a2awire.CodeInvalidParams, at+"/data", "required: an object")
			}
			return part{data: w.Data, length: len(w.Data)}, nil
		case "file":
			return part{}, fileErr
		}
		return part{}, rpcErr(a2awire.CodeInvalidParams, at+"/kind", `must be "text", "data" or "file"`)
	}
	n := 0
	for _, set := range []bool{w.Text != nil, has(w.Data), has(w.Raw), has(w.URL)} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return part{}, rpcErr(a2awire.CodeInvalidParams, at, "must have exactly one of text, raw, url and data")
	case w.Text != nil:
		return textPart(*w.Text), nil
	case has(w.Data):
		return part{data: w.Data, length: len(w.Data)}, nil
	}
	return part{}, fileErr
}

// checkObject accepts an absent member or a JSON object.
func checkObject(raw json.RawMessage, at string) *Error {
	if len(raw) == 0 || string(raw) == "null" || raw[0] == '{' {
		return nil
	}
	return rpcErr(a2awire.CodeInvalidParams, at, "must be an object")
}

// checkTask checks the params of a task method: the task id and how much
// history to return (-1: all).
func checkTask(raw json.RawMessage) (string, int, *Error) {
	var p taskParams
	if err := decodeParams(raw, &p); err != nil {
		return "", 0, err
	}
	switch {
	case p.ID == nil || *p.ID == "" || len(*p.ID) > MaxIDLen:
		return "", 0, rpcErr(a2awire.CodeInvalidParams, "/params/id", "required: a string of 1 to %d octets", MaxIDLen)
	case p.HistoryLength != nil && *p.HistoryLength < 0:
		return "", 0, rpcErr(a2awire.CodeInvalidParams, "/params/historyLength", "must not be negative")
	}
	history := -1
	if p.HistoryLength != nil {
		history = *p.HistoryLength
	}
	return *p.ID, history, nil
}
