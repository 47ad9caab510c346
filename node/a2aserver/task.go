package a2aserver

import (
	"encoding/json"
	"time"

	"github.com/adpnode/adpnode/node/a2awire"
)

// This file is the server's own model of tasks and messages, apart from
// either wire version (encode.go writes it in 1.0 or 0.3 shapes).

// state is a task's lifecycle state; the values are A2A 1.0's TaskState
// numbers.
type state int

const (
	stateSubmitted state = 1
	stateWorking   state = 2
	stateCompleted state = 3
	stateFailed    state = 4
	stateCanceled  state = 5
)

// terminal reports whether a task in s has finished for good.
func (s state) terminal() bool {
	return s == stateCompleted || s == stateFailed || s == stateCanceled
}

// stateNames are each state in the 1.0 spelling (a2awire.State03 gives
// the 0.3 one).
var stateNames = map[state]string{
	stateSubmitted: a2awire.StateSubmitted,
	stateWorking:   a2awire.StateWorking,
	stateCompleted: a2awire.StateCompleted,
	stateFailed:    a2awire.StateFailed,
	stateCanceled:  a2awire.StateCanceled,
}

// name is s as each version writes it.
func (s state) name(version string) string {
	if version == a2awire.Version03 {
		return a2awire.State03(stateNames[s])
	}
	return stateNames[s]
}

// part is one piece of content: text, or data (any JSON value).
type part struct {
	text   *string
	data   json.RawMessage
	length int // octets, for the reply bound
}

func textPart(s string) part { return part{text: &s, length: len(s)} }

// replyPart turns one reply (or one chunk of it) into a part: a JSON
// string becomes a text part, any other JSON value a data part.
func replyPart(raw json.RawMessage) part {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return textPart(s)
	}
	return part{data: raw, length: len(raw)}
}

// message is one turn: the client's (role user) or the agent's.
type message struct {
	id, contextID, taskID string
	agent                 bool // role agent, else user
	parts                 []part
	metadata              json.RawMessage
}

// artifact is the reply of the tool: one part per reply chunk.
type artifact struct {
	id, name string
	parts    []part
}

// task is one tool call as A2A sees it. Values handed out of the store
// are copies whose slices are never written again.
type task struct {
	id, contextID string
	state         state
	statusMsg     *message // the agent's message about the state (a failure)
	updated       time.Time
	artifacts     []artifact
	history       []message
}

// clone returns a copy of t that later changes to t do not reach.
func (t *task) clone() task {
	c := *t
	c.artifacts = make([]artifact, len(t.artifacts))
	for i, a := range t.artifacts {
		a.parts = a.parts[:len(a.parts):len(a.parts)]
		c.artifacts[i] = a
	}
	c.history = t.history[:len(t.history):len(t.history)]
	return c
}

// withHistory returns t with at most n messages of history (the most
// recent); n < 0 keeps all.
func (t task) withHistory(n int) task {
	if n >= 0 && len(t.history) > n {
		t.history = t.history[len(t.history)-n:]
	}
	return t
}
