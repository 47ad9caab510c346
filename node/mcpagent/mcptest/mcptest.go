// Package mcptest is a small MCP server for the tests of package mcpagent
// and of the node, and for benchmarks: in process (Server, over any
// transport) or as a stdio subprocess (the test binary re-executed with
// EnvServe set; see MaybeServeStdio). It never imports testing.
//
// Its tools:
//
//	echo  {"text": string}  -> a text content and {"text": ...} as structured content
//	fail  {}                -> a result with isError: true ("boom: the tool failed")
//	count {"n": integer}    -> n progress notifications (when asked), then "counted n"
//	grow  {}                -> adds the tool "grown" (a tools/list_changed follows)
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server identity, as the initialize answer carries it.
const (
	Name         = "mcptest"
	Version      = "0.3.1"
	Instructions = "A test server: echoes, fails, counts and grows."
)

// EnvServe, when set in the environment of a test binary whose TestMain
// calls MaybeServeStdio, makes it serve Server over stdio instead of
// running the tests.
const EnvServe = "ADPNODE_MCPTEST_SERVE"

// ErrBoom is the failure of the tool fail.
var ErrBoom = errors.New("boom: the tool failed")

// EchoIn and EchoOut are the arguments and structured result of echo.
type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// EchoOut is the structured result of echo.
type EchoOut struct {
	Text string `json:"text"`
}

// CountIn are the arguments of count.
type CountIn struct {
	N int `json:"n" jsonschema:"how many progress notifications to send"`
}

// NewServer returns a server with the tools of the package doc.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: Version}, &mcp.ServerOptions{Instructions: Instructions})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back"}, func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, EchoOut, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, EchoOut(in), nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, ErrBoom
	})
	mcp.AddTool(s, &mcp.Tool{Name: "count", Description: "Count to n, reporting progress"}, func(ctx context.Context, req *mcp.CallToolRequest, in CountIn) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			for i := 1; i <= in.N; i++ {
				p := &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.N), Message: fmt.Sprintf("step %d", i)}
				if err := req.Session.NotifyProgress(ctx, p); err != nil {
					return nil, nil, err
				}
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("counted %d", in.N)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Add the tool grown"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(s, &mcp.Tool{Name: "grown", Description: "Added by grow"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil, nil
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grew"}}}, nil, nil
	})
	return s
}

// InMemory returns a transport factory for mcpagent.Transport: each call
// connects a fresh in-memory pair to s.
func InMemory(s *mcp.Server) func() mcp.Transport {
	return func() mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			panic(fmt.Sprintf("mcptest: server connect: %v", err)) // in-memory: cannot fail
		}
		return ct
	}
}

// MaybeServeStdio serves NewServer over stdin and stdout and exits when
// EnvServe is set; otherwise it returns at once. Call it first in TestMain.
func MaybeServeStdio() {
	if os.Getenv(EnvServe) == "" {
		return
	}
	if err := NewServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Command returns the command line that runs the current executable (a
// test binary calling MaybeServeStdio) as the stdio server: "env
// ADPNODE_MCPTEST_SERVE=1 <executable>", quoted for mcpagent.SplitCommand.
func Command() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("env %s=1 '%s'", EnvServe, exe), nil
}
