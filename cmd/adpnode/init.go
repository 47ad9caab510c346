package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node"
)

func newInitCmd() *cobra.Command {
	var (
		dataDir, name, description, cardFile string
		skills                               []string
		demoTools                            bool
	)
	cmd := &cobra.Command{
		Use:   "init --data-dir DIR --name NAME [--description TEXT] [--skills a,b] [--card FILE]",
		Short: "Create a node's identity key and signed Agent Card",
		Long: `Create DIR/identity.key (a new Ed25519 key, mode 0600) and DIR/card.json,
the agent's card signed with that key. --card uses a card file as the
template; its id, did, seq, timestamps and signature are replaced.`,
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
			id, err := node.Init(dataDir, opts)
			if err != nil {
				return err
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
	f.BoolVar(&demoTools, "demo-tools", false, "add the demo agent's tools (echo, wordcount, reverse) to the card")
	return cmd
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
