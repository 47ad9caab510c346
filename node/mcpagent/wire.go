package mcpagent

import "time"

// AITP error codes this package answers with beyond aitp's own (the
// status of each is in doc.go).
const (
	// CodeToolError is the code of a tool result with isError: true.
	CodeToolError = "tool_error"
	// CodeUnavailable is the code of a call made while the server is down.
	CodeUnavailable = "unavailable"
)

// MetaCaller is the _meta key of a tools/call that carries the calling
// agent's id ("agent://k51...").
const MetaCaller = "io.adp/caller"

// States reported by Status.
const (
	StateStarting   = "starting"
	StateRunning    = "running"
	StateRestarting = "restarting"
	StateClosed     = "closed"
)

// Defaults of the options.
const (
	// DefaultMinBackoff is the first wait before a restart.
	DefaultMinBackoff = 200 * time.Millisecond
	// DefaultMaxBackoff bounds the wait between restarts.
	DefaultMaxBackoff = 30 * time.Second
	// DefaultStablePeriod is how long a session must live for the backoff
	// to start again from MinBackoff.
	DefaultStablePeriod = time.Minute
	// DefaultCallTimeout applies to a call that came without a deadline.
	DefaultCallTimeout = 30 * time.Second
	// connectTimeout bounds one connect (initialize and the tool list).
	connectTimeout = 30 * time.Second
	// terminateWait is how long a command gets after its stdin is closed
	// before it is sent SIGTERM.
	terminateWait = 2 * time.Second
	// maxMessage bounds a tool error message copied into an AITP error.
	maxMessage = 1024
	// stderrTail is how much of a command's stderr is kept for the last error.
	stderrTail = 512
)
