package a2aserver

import (
	"encoding/json"
	"time"

	"github.com/adpnode/adpnode/node/a2awire"
)

// This file writes the model of task.go in the shapes of A2A 1.0
// (ProtoJSON of a2a.proto: camelCase members, enum names, results
// wrapped in a oneof member) or of A2A 0.3 (objects tagged by "kind").

type wirePartOut struct {
	Kind      string          `json:"kind,omitempty"` // 0.3
	Text      *string         `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	MediaType string          `json:"mediaType,omitempty"` // 1.0
}

type wireMessageOut struct {
	Kind      string          `json:"kind,omitempty"` // 0.3
	MessageID string          `json:"messageId"`
	ContextID string          `json:"contextId,omitempty"`
	TaskID    string          `json:"taskId,omitempty"`
	Role      string          `json:"role"`
	Parts     []wirePartOut   `json:"parts"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

type wireStatusOut struct {
	State     string          `json:"state"`
	Message   *wireMessageOut `json:"message,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
}

type wireArtifactOut struct {
	ArtifactID string        `json:"artifactId"`
	Name       string        `json:"name,omitempty"`
	Parts      []wirePartOut `json:"parts"`
}

type wireTaskOut struct {
	Kind      string            `json:"kind,omitempty"` // 0.3
	ID        string            `json:"id"`
	ContextID string            `json:"contextId"`
	Status    wireStatusOut     `json:"status"`
	Artifacts []wireArtifactOut `json:"artifacts,omitempty"`
	History   []wireMessageOut  `json:"history,omitempty"`
}

type wireStatusUpdateOut struct {
	Kind      string        `json:"kind,omitempty"` // 0.3
	TaskID    string        `json:"taskId"`
	ContextID string        `json:"contextId"`
	Status    wireStatusOut `json:"status"`
	Final     *bool         `json:"final,omitempty"` // 0.3 only; 1.0 ends the stream instead
}

type wireArtifactUpdateOut struct {
	Kind      string          `json:"kind,omitempty"` // 0.3
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Artifact  wireArtifactOut `json:"artifact"`
	Append    bool            `json:"append,omitempty"`
	LastChunk bool            `json:"lastChunk,omitempty"`
}

// encoder writes the model in one version's shapes.
type encoder struct{ version string }

func (e encoder) legacy() bool { return e.version == a2awire.Version03 }

func (e encoder) kind(k string) string {
	if e.legacy() {
		return k
	}
	return ""
}

func (e encoder) part(p part) wirePartOut {
	if p.text != nil {
		return wirePartOut{Kind: e.kind("text"), Text: p.text}
	}
	// A 0.3 DataPart holds an object; another JSON value goes as its text.
	if e.legacy() && (len(p.data) == 0 || p.data[0] != '{') {
		s := string(p.data)
		return wirePartOut{Kind: "text", Text: &s}
	}
	return wirePartOut{Kind: e.kind("data"), Data: p.data, MediaType: e.mediaType()}
}

func (e encoder) mediaType() string {
	if e.legacy() {
		return ""
	}
	return a2awire.MediaJSON
}

func (e encoder) parts(ps []part) []wirePartOut {
	out := make([]wirePartOut, len(ps))
	for i, p := range ps {
		out[i] = e.part(p)
	}
	return out
}

func (e encoder) message(m *message) *wireMessageOut {
	if m == nil {
		return nil
	}
	role := map[bool][2]string{false: {"ROLE_USER", "user"}, true: {"ROLE_AGENT", "agent"}}[m.agent]
	r := role[0]
	if e.legacy() {
		r = role[1]
	}
	return &wireMessageOut{Kind: e.kind("message"), MessageID: m.id, ContextID: m.contextID, TaskID: m.taskID, Role: r, Parts: e.parts(m.parts), Metadata: m.metadata}
}

func (e encoder) status(t *task) wireStatusOut {
	return wireStatusOut{State: t.state.name(e.version), Message: e.message(t.statusMsg), Timestamp: t.updated.UTC().Format(time.RFC3339Nano)}
}

func (e encoder) artifact(a artifact, parts []part) wireArtifactOut {
	return wireArtifactOut{ArtifactID: a.id, Name: a.name, Parts: e.parts(parts)}
}

func (e encoder) task(t task) wireTaskOut {
	out := wireTaskOut{Kind: e.kind("task"), ID: t.id, ContextID: t.contextID, Status: e.status(&t)}
	for _, a := range t.artifacts {
		out.Artifacts = append(out.Artifacts, e.artifact(a, a.parts))
	}
	for i := range t.history {
		out.History = append(out.History, *e.message(&t.history[i]))
	}
	return out
}

// sendResult is the result of SendMessage (1.0: {"task": Task}) or of
// message/send (0.3: the Task itself).
func (e encoder) sendResult(t task) any {
	if e.legacy() {
		return e.task(t)
	}
	return map[string]any{"task": e.task(t)}
}

// statusEvent is a stream event for t's current status.
func (e encoder) statusEvent(t *task) any {
	ev := wireStatusUpdateOut{Kind: e.kind("status-update"), TaskID: t.id, ContextID: t.contextID, Status: e.status(t)}
	if e.legacy() {
		final := t.state.terminal()
		ev.Final = &final
	}
	if e.legacy() {
		return ev
	}
	return map[string]any{"statusUpdate": ev}
}

// artifactEvent is a stream event carrying parts of artifact a; append
// says they follow parts sent before.
func (e encoder) artifactEvent(t *task, a artifact, parts []part, appendTo bool) any {
	ev := wireArtifactUpdateOut{Kind: e.kind("artifact-update"), TaskID: t.id, ContextID: t.contextID, Artifact: e.artifact(a, parts), Append: appendTo}
	if e.legacy() {
		return ev
	}
	return map[string]any{"artifactUpdate": ev}
}
