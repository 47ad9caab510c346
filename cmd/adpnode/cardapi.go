package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/jsonerr"
	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node/httpapi"
)

// newCardAPICmds returns the `card show`, `card set` and `card list`
// subcommands, which talk to a running node.
func newCardAPICmds() []*cobra.Command {
	var showFlags, setFlags apiFlags
	show := &cobra.Command{
		Use:   "show",
		Short: "Show the running node's own signed card",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := showFlags.client(cmd)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "GET", "/v1/card", nil)
			if err != nil {
				return err
			}
			if showFlags.json {
				_, err := cmd.OutOrStdout().Write(termtext.EscapeJSON(raw))
				return err
			}
			return printCard(cmd.OutOrStdout(), raw)
		},
	}
	showFlags.register(show)
	set := &cobra.Command{
		Use:   "set FILE",
		Short: "Replace the running node's card with FILE (\"-\" for stdin); the node bumps seq, signs and publishes it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			card, err := readCardFile(args[0])
			if err != nil {
				return err
			}
			c, err := setFlags.client(cmd)
			if err != nil {
				return err
			}
			body, err := json.Marshal(card)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "PUT", "/v1/card", json.RawMessage(body))
			if err != nil {
				return err
			}
			if setFlags.json {
				_, err := cmd.OutOrStdout().Write(termtext.EscapeJSON(raw))
				return err
			}
			return printCard(cmd.OutOrStdout(), raw)
		},
	}
	setFlags.register(set)
	return []*cobra.Command{show, set, newCardListCmd()}
}

// newCardListCmd lists the cards a running node holds (GET /v1/cards).
func newCardListCmd() *cobra.Command {
	var af apiFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the cards a running node holds, with their source and freshness",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "GET", "/v1/cards", nil)
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			var out httpapi.CardList
			if err := decodeInto(raw, &out); err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tSOURCE\tFRESH\tAGENT")
			for _, c := range out.Cards {
				fresh := "yes"
				if c.Stale {
					fresh = "stale"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", termtext.Escape(c.Name), termtext.Escape(string(c.Source)), fresh, termtext.Escape(c.ID))
			}
			fmt.Fprintf(w, "%d cards\n", out.Count)
			return w.Flush()
		},
	}
	af.register(cmd)
	return cmd
}

// decodeInto decodes an API reply.
func decodeInto(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		at, msg := jsonerr.Describe(err)
		return fmt.Errorf("the node's answer is not what this adpnode expects (at %q: %s); are the node and this command the same version?", at, msg)
	}
	return nil
}

// printCard prints a card (or a describe subset) for people.
func printCard(w io.Writer, raw []byte) error {
	var c struct {
		ID          string   `json:"id"`
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Version     string   `json:"version"`
		Status      string   `json:"status"`
		Seq         *uint64  `json:"seq"`
		Skills      []string `json:"skills"`
		Tools       []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
		Endpoints []struct {
			Protocol string `json:"protocol"`
			URI      string `json:"uri"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("decoding card: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "name\t%s\n", termtext.Escape(c.Name))
	fmt.Fprintf(tw, "agent\t%s\n", termtext.Escape(c.ID))
	if c.Description != "" {
		fmt.Fprintf(tw, "description\t%s\n", termtext.Escape(c.Description))
	}
	if c.Version != "" {
		fmt.Fprintf(tw, "version\t%s\n", termtext.Escape(c.Version))
	}
	if c.Status != "" {
		fmt.Fprintf(tw, "status\t%s\n", termtext.Escape(c.Status))
	}
	if c.Seq != nil {
		fmt.Fprintf(tw, "seq\t%d\n", *c.Seq)
	}
	if len(c.Skills) > 0 {
		fmt.Fprintf(tw, "skills\t%s\n", termtext.Escape(strings.Join(c.Skills, ", ")))
	}
	for i, t := range c.Tools {
		label := ""
		if i == 0 {
			label = "tools"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", label, termtext.Escape(t.Name), termtext.Escape(t.Description))
	}
	for i, e := range c.Endpoints {
		label := ""
		if i == 0 {
			label = "endpoints"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", label, termtext.Escape(e.Protocol), termtext.Escape(e.URI))
	}
	return tw.Flush()
}
