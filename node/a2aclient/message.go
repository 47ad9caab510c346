package a2aclient

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/adpnode/adpnode/internal/jsonerr"
	"github.com/adpnode/adpnode/node/a2awire"
)

// newMessage is the user message that calls tool with args: one data
// part {"tool": tool, "arguments": args} and the tool's name as the skill
// id in the metadata, in the 1.0 shape or, for legacy, the 0.3 one (kind
// discriminators, lower-case role).
func newMessage(id string, legacy bool, tool string, args json.RawMessage) map[string]any {
	data := map[string]any{a2awire.PartTool: tool, a2awire.PartArguments: args}
	m := map[string]any{
		"messageId": id,
		"metadata":  map[string]any{a2awire.MetadataSkillID: tool},
	}
	if legacy {
		m["kind"], m["role"] = "message", "user"
		m["parts"] = []any{map[string]any{"kind": "data", "data": data}}
	} else {
		m["role"] = "ROLE_USER"
		m["parts"] = []any{map[string]any{"data": data, "mediaType": a2awire.MediaJSON}}
	}
	return m
}

// envelope is a JSON-RPC 2.0 response.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// decodeResponse checks a JSON-RPC response to the request id and returns
// its result, or its error as a *RemoteError. The steps, cheapest first:
//  1. one JSON object;
//  2. jsonrpc is "2.0";
//  3. the id is the request's (a string); an error may carry a null id
//     (the server could not read the request);
//  4. exactly one of result and error, an error with an integer code.
func decodeResponse(raw []byte, id string) (json.RawMessage, error) {
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&env); err != nil {
		return nil, badReply("not a JSON-RPC response object")
	}
	if !jsonerr.AtEnd(dec) {
		return nil, badReply("data after the JSON-RPC response")
	}
	if env.JSONRPC != "2.0" {
		return nil, badReply(`jsonrpc is not "2.0"`)
	}
	var got string
	idOK := json.Unmarshal(env.ID, &got) == nil && got == id
	hasResult := len(env.Result) > 0 && !bytes.Equal(env.Result, []byte("null"))
	switch {
	case env.Error != nil && hasResult:
		return nil, badReply("a response with both result and error")
	case env.Error != nil:
		if !idOK && !bytes.Equal(env.ID, []byte("null")) && len(env.ID) > 0 {
			return nil, badReply("the error answers another request id")
		}
		if env.Error.Code == nil {
			return nil, badReply("an error without a code")
		}
		return nil, &RemoteError{Code: *env.Error.Code, Message: clip(env.Error.Message)}
	case !idOK:
		return nil, badReply("the response answers another request id")
	case !hasResult:
		return nil, badReply("a response without result or error")
	}
	return env.Result, nil
}

// part is a message or artifact part in either shape: 1.0 (one of text,
// raw, url, data; mediaType) or 0.3 (kind text, data or file).
type part struct {
	Kind      string           `json:"kind"`
	Text      *string          `json:"text"`
	Data      json.RawMessage  `json:"data"`
	Raw       *string          `json:"raw"`
	URL       *string          `json:"url"`
	MediaType string           `json:"mediaType"`
	File      *json.RawMessage `json:"file"`
}

type message struct {
	Kind  string `json:"kind"`
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type artifact struct {
	Parts []part `json:"parts"`
}

type status struct {
	State   string   `json:"state"`
	Message *message `json:"message"`
}

type task struct {
	Kind      string     `json:"kind"`
	ID        string     `json:"id"`
	Status    *status    `json:"status"`
	Artifacts []artifact `json:"artifacts"`
}

type statusUpdate struct {
	Status *status `json:"status"`
	Final  bool    `json:"final"` // 0.3
}

type artifactUpdate struct {
	Artifact *artifact `json:"artifact"`
}

// event is one reply of a call: a send's result or one event of a
// stream. Exactly one member is set.
type event struct {
	task     *task
	message  *message
	status   *statusUpdate
	artifact *artifactUpdate
}

// decodeEvent reads a result: 1.0 wraps it in a member named after its
// type (task, message, statusUpdate, artifactUpdate); 0.3 sends the
// object with a kind member.
func decodeEvent(raw json.RawMessage) (*event, error) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		return nil, badReply("the result is not an object")
	}
	var kind string
	if k, ok := o["kind"]; ok {
		if err := json.Unmarshal(k, &kind); err != nil {
			return nil, badReply("kind is not a string")
		}
	}
	body := raw
	if kind == "" {
		for _, k := range []string{"task", "message", "statusUpdate", "artifactUpdate"} {
			if v, ok := o[k]; ok {
				kind, body = k, v
				break
			}
		}
	}
	ev := &event{}
	var target any
	switch kind {
	case "task":
		ev.task = &task{}
		target = ev.task
	case "message":
		ev.message = &message{}
		target = ev.message
	case "statusUpdate", "status-update":
		ev.status = &statusUpdate{}
		target = ev.status
	case "artifactUpdate", "artifact-update":
		ev.artifact = &artifactUpdate{}
		target = ev.artifact
	default:
		return nil, badReply("the result is neither a task nor a message")
	}
	if err := json.Unmarshal(body, target); err != nil {
		return nil, badReply("the %s does not have the A2A shape", kindWord(kind))
	}
	return ev, nil
}

// kindWord names a result kind in messages.
func kindWord(kind string) string {
	switch kind {
	case "statusUpdate", "status-update":
		return "status update"
	case "artifactUpdate", "artifact-update":
		return "artifact update"
	}
	return kind
}

// final returns the value of a send's result: a message's parts, or a
// completed task's artifacts (its status message when it has none). A
// task in any other state is a *TaskError.
func (ev *event) final() (json.RawMessage, error) {
	switch {
	case ev.message != nil:
		return partsValue(ev.message.Parts)
	case ev.task != nil:
		st, err := ev.task.state()
		if err != nil {
			return nil, err
		}
		if st != a2awire.StateCompleted {
			return nil, taskError(st, ev.task.Status.Message)
		}
		return ev.task.value()
	}
	return nil, badReply("a stream event where a task or message was expected")
}

// state returns the task's state in the 1.0 spelling.
func (t *task) state() (string, error) {
	if t.Status == nil {
		return "", badReply("a task without status")
	}
	return normalizeState(t.Status.State)
}

// value is a completed task's result: its artifacts' parts, in order, or
// else its status message's.
func (t *task) value() (json.RawMessage, error) {
	var parts []part
	for _, a := range t.Artifacts {
		parts = append(parts, a.Parts...)
	}
	if len(parts) == 0 && t.Status != nil && t.Status.Message != nil {
		parts = t.Status.Message.Parts
	}
	return partsValue(parts)
}

// normalizeState returns a state in the 1.0 spelling: "completed" and
// "input-required" (0.3) become TASK_STATE_COMPLETED and
// TASK_STATE_INPUT_REQUIRED. An unknown state is a bad reply.
func normalizeState(s string) (string, error) {
	switch s = a2awire.State10(s); s {
	case a2awire.StateSubmitted, a2awire.StateWorking, a2awire.StateCompleted, a2awire.StateFailed, a2awire.StateCanceled, a2awire.StateInputRequired, a2awire.StateRejected, a2awire.StateAuthRequired:
		return s, nil
	}
	return "", badReply("unknown task state %q", clip(s))
}

// terminal reports whether a task in state st is done (or waits for
// something the call cannot give).
func terminal(st string) bool { return st != a2awire.StateSubmitted && st != a2awire.StateWorking }

// taskError is the error of a task that ended in st, with the text of its
// status message.
func taskError(st string, m *message) error {
	e := &TaskError{State: st}
	if m != nil {
		var texts []string
		for _, p := range m.Parts {
			if p.Text != nil {
				texts = append(texts, *p.Text)
			}
		}
		e.Message = clip(strings.Join(texts, " "))
	}
	if st == a2awire.StateSubmitted || st == a2awire.StateWorking {
		e.Message = "the agent answered before the task finished"
	}
	return e
}

// partsValue maps parts to one JSON value: no part is null, one part is
// its value, several are an array of their values. A data part's value
// is its data, a text part's its text as a JSON string, a file (url or
// raw bytes) an object {"url"|"raw": ..., "mediaType": ...}.
func partsValue(parts []part) (json.RawMessage, error) {
	vals := make([]json.RawMessage, 0, len(parts))
	for _, p := range parts {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	switch len(vals) {
	case 0:
		return json.RawMessage("null"), nil
	case 1:
		return vals[0], nil
	}
	return json.Marshal(vals)
}

func (p part) value() (json.RawMessage, error) {
	switch {
	case p.Data != nil && !bytes.Equal(p.Data, []byte("null")):
		return p.Data, nil
	case p.Text != nil:
		return json.Marshal(*p.Text)
	case p.URL != nil:
		return json.Marshal(map[string]string{"url": *p.URL, "mediaType": p.MediaType})
	case p.Raw != nil:
		return json.Marshal(map[string]string{"raw": *p.Raw, "mediaType": p.MediaType})
	case p.File != nil:
		var f struct {
			Bytes    *string `json:"bytes"`
			URI      *string `json:"uri"`
			MimeType string  `json:"mimeType"`
		}
		if json.Unmarshal(*p.File, &f) == nil {
			if f.URI != nil {
				return json.Marshal(map[string]string{"url": *f.URI, "mediaType": f.MimeType})
			}
			if f.Bytes != nil {
				return json.Marshal(map[string]string{"raw": *f.Bytes, "mediaType": f.MimeType})
			}
		}
	}
	return nil, badReply("a part with no text, data or file")
}
