package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node/httpapi"
)

func newInvokeCmd() *cobra.Command {
	var (
		af        apiFlags
		stream    bool
		timeoutMS int
	)
	cmd := &cobra.Command{
		Use:   "invoke AGENT METHOD [JSON]",
		Short: "Call a tool of another agent and print the reply",
		Long:  "Call METHOD on AGENT with the JSON body (default {}; \"-\" reads it from stdin) and print the reply body.",
		Args:  cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			body := []byte("{}")
			if len(args) == 3 {
				body = []byte(args[2])
				if args[2] == "-" {
					var err error
					if body, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<20)); err != nil {
						return err
					}
				}
			}
			if !json.Valid(body) {
				return usagef("the JSON argument is not valid JSON")
			}
			if timeoutMS < 0 || timeoutMS > httpapi.MaxInvokeTimeoutMS {
				return usagef("--timeout-ms must be 0 to %d (10 minutes), not %d", httpapi.MaxInvokeTimeoutMS, timeoutMS)
			}
			c, err := af.clientWithin(cmd, invokeTimeout(cmd, timeoutMS))
			if err != nil {
				return err
			}
			in := map[string]any{"agent": args[0], "method": args[1], "body": json.RawMessage(body)}
			if timeoutMS > 0 {
				in["timeout_ms"] = timeoutMS
			}
			if stream {
				in["stream"] = true
				return invokeStream(cmd.Context(), c, in, cmd.OutOrStdout())
			}
			raw, err := c.Do(cmd.Context(), "POST", "/v1/invoke", in)
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			var out httpapi.InvokeResponse
			if err := decodeInto(raw, &out); err != nil {
				return err
			}
			return printJSON(cmd.OutOrStdout(), out.Body)
		},
	}
	af.register(cmd)
	cmd.Flags().BoolVar(&stream, "stream", false, "accept a streamed reply and print each chunk as it arrives")
	cmd.Flags().IntVar(&timeoutMS, "timeout-ms", 0, "call deadline in milliseconds, at most 600000 (default 30000); the command waits this long plus 5s, or --timeout if longer")
	return cmd
}

// invokeTimeout is how long invoke waits for the node: the call's own
// deadline (timeoutMS, or the node's default) plus replyMargin, or
// --timeout when that is longer or 0 (no limit).
func invokeTimeout(cmd *cobra.Command, timeoutMS int) time.Duration {
	overall := commandTimeout(cmd)
	call := httpapi.DefaultInvokeTimeout
	if timeoutMS > 0 {
		call = time.Duration(timeoutMS) * time.Millisecond
	}
	if overall == 0 || overall >= call+replyMargin {
		return overall
	}
	return call + replyMargin
}

// invokeStream posts an invoke with stream true and copies each NDJSON line to
// out as it arrives. A final {"error": ...} line becomes the error.
func invokeStream(ctx context.Context, c *httpapi.Client, in any, out io.Writer) error {
	return c.Stream(ctx, "/v1/invoke", in, func(line []byte) error {
		_, err := fmt.Fprintf(out, "%s\n", termtext.EscapeJSON(line))
		return err
	})
}
