package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

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
				return fmt.Errorf("JSON argument is not valid JSON")
			}
			c, err := af.client()
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
	cmd.Flags().IntVar(&timeoutMS, "timeout-ms", 0, "call deadline in milliseconds (default 30000)")
	return cmd
}

// invokeStream posts an invoke with stream true and copies each NDJSON line to
// out as it arrives. A final {"error": ...} line becomes the error.
func invokeStream(ctx context.Context, c *httpapi.Client, in any, out io.Writer) error {
	return c.Stream(ctx, "/v1/invoke", in, func(line []byte) error {
		_, err := fmt.Fprintf(out, "%s\n", termtext.EscapeJSON(line))
		return err
	})
}
