package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node/httpapi"
)

// Exit statuses, documented in the root command's help and the README.
const (
	exitOK          = 0
	exitRemote      = 1 // the node or the agent answered with an error, or a local operation failed
	exitUsage       = 2 // bad command line: unknown command or flag, wrong arguments, a value out of range
	exitUnreachable = 3 // no node answered: not running, stale api file, stopped, or too slow
)

const exitHelp = `Exit status:
  0  success
  1  the node or the agent answered with an error, or a local operation failed
  2  usage error: unknown command or flag, wrong arguments, a value out of range
  3  no node answered: none running, a stale api file, or no answer within --timeout

With --json, a failure prints {"error": {"code", "message", "exit"}} on
standard output, where the result would have been, and nothing on
standard error; a command whose JSON answer is itself a verdict (card
verify, card validate) prints that verdict instead.`

// usageError is a command line the command cannot run.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// ranError marks an error returned by a command's RunE: any other error
// from cobra is about the command line.
type ranError struct{ err error }

func (e *ranError) Error() string { return e.err.Error() }
func (e *ranError) Unwrap() error { return e.err }

// markRunErrors wraps every RunE under cmd so that its errors are told
// apart from cobra's own (unknown command, bad flag, wrong arguments).
func markRunErrors(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := run(c, args); err != nil {
				return &ranError{err}
			}
			return nil
		}
	}
	for _, c := range cmd.Commands() {
		markRunErrors(c)
	}
}

// exitCode maps a command's error to the process's exit status.
func exitCode(err error) int {
	var (
		ran   *ranError
		usage *usageError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case !errors.As(err, &ran):
		return exitUsage
	case errors.Is(err, httpapi.ErrNoAnswer), errors.Is(err, errNoNode):
		return exitUnreachable
	}
	return exitRemote
}

// errorCode is the "code" of a JSON error: the API's code for an API
// error, else a word for the exit status.
func errorCode(err error, status int) string {
	var ae *httpapi.Error
	if errors.As(err, &ae) && ae.Code != "" {
		return ae.Code
	}
	switch status {
	case exitUsage:
		return "usage"
	case exitUnreachable:
		return "unreachable"
	}
	return "failed"
}

// reportError prints err for people on stderr, or under --json as one
// JSON object on stdout, and returns the exit status.
func reportError(err error, asJSON bool, stdout, stderr io.Writer) int {
	status := exitCode(err)
	if status == exitOK {
		return status
	}
	msg := err.Error()
	// A command that printed its JSON verdict (errReported) has given
	// its answer on stdout; the message goes to stderr only.
	if asJSON && !errors.Is(err, errReported) {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"code": errorCode(err, status), "message": msg, "exit": status,
		}})
		fmt.Fprintf(stdout, "%s\n", termtext.EscapeJSON(b))
		return status
	}
	// An error may quote a peer's or an agent's text.
	fmt.Fprintln(stderr, "adpnode:", termtext.EscapeLines(msg))
	if status == exitUsage {
		fmt.Fprintln(stderr, "Run 'adpnode --help' for usage.")
	}
	return status
}
