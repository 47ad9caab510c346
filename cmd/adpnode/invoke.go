package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
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
				return c.stream(cmd.Context(), in, cmd.OutOrStdout())
			}
			raw, err := c.do(cmd.Context(), "POST", "/v1/invoke", in)
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			var out struct {
				Body json.RawMessage `json:"body"`
			}
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

// stream posts an invoke with stream true and copies each NDJSON line to
// out as it arrives. A final {"error": ...} line becomes the error.
func (c *apiClient) stream(ctx context.Context, in any, out io.Writer) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/v1/invoke", bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("node API unreachable: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxAPIReply))
		e := &apiError{Status: resp.StatusCode}
		if json.Unmarshal(raw, e) != nil || e.Code == "" {
			e.Code, e.Message = "http_error", string(bytes.TrimSpace(raw))
		}
		return e
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var final struct {
			Error *apiError `json:"error"`
		}
		if json.Unmarshal(line, &final) == nil && final.Error != nil && final.Error.Code != "" {
			final.Error.Status = resp.StatusCode
			return final.Error
		}
		if _, err := fmt.Fprintf(out, "%s\n", termtext.EscapeJSON(line)); err != nil {
			return err
		}
	}
	return sc.Err()
}
