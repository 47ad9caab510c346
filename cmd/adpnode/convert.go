package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/spf13/cobra"
)

// convertError is the --json output of card convert when it fails.
type convertError struct {
	Error    string        `json:"error"`
	Problems []adp.Problem `json:"problems,omitempty"`
}

// newCardConvertCmd returns `card convert`, which translates an agent
// description between ADP and the formats of package bridge.
func newCardConvertCmd() *cobra.Command {
	var from, to string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "convert --from FORMAT --to FORMAT [DOC]",
		Short: "Convert an agent description between adp, a2a, mcp, oasf, agentcard, profile and oasf-record",
		Long: `Convert reads a document in the --from format from DOC (standard input when
absent or "-") and prints it in the --to format. Formats:

  adp        ADP Agent Card
  a2a        A2A AgentCard (protocol 1.0; 0.3 is read too), as served at /.well-known/agent-card.json
  mcp        MCP tools/list result {"tools": [...]}
  oasf       OASF AgentDescriptor
  agentcard  AgentCard draft (application/agentcard+json), as served at /.well-known/agentcard
  profile    discovery-profile Agent Metadata
  oasf-record  OASF record (schema 0.8.0), as the AGNTCY directory stores it

Fields a format cannot express travel under "urn:adp:card" in its extension
point (and, on import, in the card's extensions[<format>]), so converting
there and back keeps them; see package bridge. A card converted to adp is
unsigned: sign it with 'adpnode card sign'. Problems are reported with the
JSON Pointer of each offending value; the exit status is 1.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := runConvert(cmd, args, from, to)
			if err != nil {
				if asJSON {
					if werr := writeJSONLine(cmd.OutOrStdout(), convertError{Error: firstLine(err), Problems: problemsOf(err)}); werr != nil {
						return werr
					}
					return errReported
				}
				return err
			}
			var buf bytes.Buffer
			if asJSON {
				err = json.Compact(&buf, out)
			} else {
				err = json.Indent(&buf, out, "", "  ")
			}
			if err != nil {
				return err
			}
			buf.WriteByte('\n')
			_, err = cmd.OutOrStdout().Write(termtext.EscapeJSON(buf.Bytes()))
			return err
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "format of the input: adp, a2a, mcp, oasf, agentcard or profile (required)")
	cmd.Flags().StringVar(&to, "to", "", "format of the output: adp, a2a, mcp, oasf, agentcard or profile (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print the document on one line; on failure print {"error", "problems": [{"path", "message"}]}`)
	return cmd
}

func runConvert(cmd *cobra.Command, args []string, from, to string) ([]byte, error) {
	if from == "" || to == "" {
		return nil, usagef("--from and --to are required")
	}
	f, err := bridge.ParseFormat(from)
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	t, err := bridge.ParseFormat(to)
	if err != nil {
		return nil, fmt.Errorf("--to: %w", err)
	}
	data, name, err := readArg(cmd, args, bridge.MaxDocSize)
	if err != nil {
		return nil, err
	}
	out, err := bridge.Convert(f, t, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
