package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/mcpagent"
)

func newInitCmd() *cobra.Command {
	var (
		dataDir, name, description, cardFile string
		fromMCPCommand, fromMCPURL           string
		skills                               []string
		demoTools                            bool
	)
	cmd := &cobra.Command{
		Use:   "init --data-dir DIR --name NAME [--description TEXT] [--skills a,b] [--card FILE]",
		Short: "Create a node's identity key and signed Agent Card",
		Long: `Create DIR/identity.key (a new Ed25519 key, mode 0600) and DIR/card.json,
the agent's card signed with that key. --card uses a card file as the
template; its id, did, seq, timestamps and signature are replaced.
--from-mcp-command (or --from-mcp-url) starts that MCP server once and
takes the template from its initialize answer (name, version,
instructions as the description) and its tool list, as the node run with
--agent-mcp-command will serve them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" {
				dataDir = defaultDataDir()
			}
			opts := node.InitOptions{Name: name, Description: description, DemoTools: demoTools}
			if cmd.Flags().Changed("skills") {
				opts.Skills = skills
			}
			if cardFile != "" {
				c, err := readCardFile(cardFile)
				if err != nil {
					return err
				}
				opts.Card = c
			}
			if fromMCPCommand != "" || fromMCPURL != "" {
				c, err := describeMCP(cmd.Context(), fromMCPCommand, fromMCPURL)
				if err != nil {
					return err
				}
				opts.Card = c
			}
			id, err := node.Init(dataDir, opts)
			if err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				p, err := adp.PeerIDFromAgentID(id)
				if err != nil {
					return err
				}
				return writeJSONLine(cmd.OutOrStdout(), initJSON{AgentID: id, PeerID: p.String(), DataDir: dataDir})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "agent %s\ndata dir %s\n", id, dataDir)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data-dir", "", "data directory (default $ADPNODE_DATA_DIR or ~/.adpnode)")
	f.StringVar(&name, "name", "", "agent name (required unless --card has one)")
	f.StringVar(&description, "description", "", "agent description")
	f.StringSliceVar(&skills, "skills", nil, "skill tags, comma separated (e.g. nlp/translation,summarize)")
	f.StringVar(&cardFile, "card", "", "card JSON file to use as the template")
	f.StringVar(&fromMCPCommand, "from-mcp-command", "", "build the card from this MCP server (a command line run over stdio)")
	f.StringVar(&fromMCPURL, "from-mcp-url", "", "build the card from this Streamable HTTP MCP server")
	cmd.MarkFlagsMutuallyExclusive("card", "from-mcp-command", "from-mcp-url")
	f.BoolVar(&demoTools, "demo-tools", false, "add the demo agent's tools (echo, wordcount, reverse) to the card")
	return cmd
}

// describeMCP returns the card template of an MCP server, given by a
// command line or a URL.
func describeMCP(ctx context.Context, command, url string) (*adp.Card, error) {
	opt := mcpagent.URL(url)
	if command != "" {
		argv, err := mcpagent.SplitCommand(command)
		if err != nil {
			return nil, err
		}
		opt = mcpagent.Command(argv...)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := mcpagent.Describe(ctx, opt)
	if err != nil {
		return nil, fmt.Errorf("MCP server: %w", err)
	}
	return c, nil
}

// readCardFile parses a card file ("-" for stdin), bounded in size.
func readCardFile(path string) (*adp.Card, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := openFile(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	raw, err := io.ReadAll(io.LimitReader(r, adp.MaxCardSize+1))
	if err != nil {
		return nil, err
	}
	c, err := adp.ParseCard(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// initJSON is the --json answer of adpnode init.
type initJSON struct {
	AgentID string `json:"agent_id"`
	PeerID  string `json:"peer_id"`
	DataDir string `json:"data_dir"`
}
