package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node/discovery"
)

func newDiscoverCmd() *cobra.Command {
	var (
		af       apiFlags
		tags     []string
		query    string
		limit    int
		evidence bool
		scope    string
		detail   string
		filters  discoverFilters
	)
	cmd := &cobra.Command{
		Use:   "discover [--tags a,b] [--query TEXT] [--limit N] [--evidence] [--scope local|network]",
		Short: "Find agents by skill tags and free text",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if scope != "local" && scope != "network" {
				return fmt.Errorf("--scope must be local or network, got %q", scope)
			}
			req := map[string]any{}
			if len(tags) > 0 {
				req["tags"] = tags
			}
			if query != "" {
				req["query"] = query
			}
			if limit > 0 {
				req["limit"] = limit
			}
			if evidence {
				req["include_evidence"] = true
			}
			if detail != "" {
				req["detail"] = detail
			}
			filters.apply(cmd, req)
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "POST", "/v1/discover?scope="+url.QueryEscape(scope), req)
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			return printDiscover(cmd, raw, evidence)
		},
	}
	af.register(cmd)
	f := cmd.Flags()
	f.StringSliceVar(&tags, "tags", nil, "skill tags, comma separated")
	f.StringVar(&query, "query", "", "free-text description of the task")
	f.IntVar(&limit, "limit", 0, "maximum results (default 10, at most 100)")
	f.BoolVar(&evidence, "evidence", false, "include the score components and matched examples")
	f.StringVar(&scope, "scope", "local", "local (cards this node holds) or network (also directory peers and DHT tag providers)")
	f.StringVar(&detail, "detail", "", "card detail in results: minimal, summary or full")
	filters.register(cmd)
	return cmd
}

// discoverFilters are the discover flags that filter and probe: each one
// set on the command line goes into the request, so the node applies the
// client's choice and reports it in applied_filters.
type discoverFilters struct {
	minScore, floor    float64
	required, excluded []string
	protocols          []string
	probe              bool
}

func (d *discoverFilters) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Float64Var(&d.minScore, "min-score", adp.DefaultMinScore, "drop results scoring below this (0..1)")
	f.Float64Var(&d.floor, "relevance-floor", 0, "drop results less relevant than this fraction of the best one (0..1; default: the node's floor, divided by the query's aspects)")
	f.StringSliceVar(&d.required, "required-tags", nil, "tags every result must have, comma separated")
	f.StringSliceVar(&d.excluded, "excluded-tags", nil, "tags no result may have, comma separated")
	f.StringSliceVar(&d.protocols, "protocols", nil, "endpoint protocols, a result has at least one (e.g. aitp,https)")
	f.BoolVar(&d.probe, "probe", true, "ping the top candidates before answering and report their round trip")
}

func (d *discoverFilters) apply(cmd *cobra.Command, req map[string]any) {
	f := cmd.Flags()
	if f.Changed("min-score") {
		req["min_score"] = d.minScore
	}
	if f.Changed("relevance-floor") {
		req["constraints"] = map[string]any{adp.ConstraintRelevanceFloor: d.floor}
	}
	for k, v := range map[string][]string{"required_tags": d.required, "excluded_tags": d.excluded, "protocols": d.protocols} {
		if len(v) > 0 {
			req[k] = v
		}
	}
	if d.probe {
		req["probe"] = true
	}
}

func printDiscover(cmd *cobra.Command, raw []byte, evidence bool) error {
	var resp adp.DiscoverResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return fmt.Errorf("decoding API reply: %w", err)
	}
	out := cmd.OutOrStdout()
	if len(resp.Results) == 0 {
		fmt.Fprintln(out, "no agents found")
	} else {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		probed := slices.ContainsFunc(resp.Results, func(r adp.DiscoverResult) bool { return r.Probe != nil })
		header := "SCORE\tNAME\tMATCHED TAGS\tAGENT\tVIA"
		if probed {
			header += "\tPROBE"
		}
		if evidence {
			header += "\tCOMPONENTS"
		}
		fmt.Fprintln(w, header)
		for _, r := range resp.Results {
			via := "local"
			if r.OriginService != "" {
				via = short(r.OriginService)
			}
			line := fmt.Sprintf("%.3f\t%s\t%s\t%s\t%s", r.Score, termtext.Escape(r.Name), termtext.Escape(matchedTags(r)), termtext.Escape(r.ID), termtext.Escape(via))
			if probed {
				line += "\t" + formatProbe(r.Probe)
			}
			if evidence {
				line += "\t" + formatComponents(r.ScoreComponents)
			}
			fmt.Fprintln(w, line)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	printWarnings(cmd.ErrOrStderr(), resp.Warnings)
	if len(resp.UnsupportedFilters) > 0 {
		fmt.Fprintln(cmd.ErrOrStderr(), "unsupported filters:", termtext.Escape(strings.Join(resp.UnsupportedFilters, ", ")))
	}
	return nil
}

// redactedWarning begins the warning the node adds to every answer whose
// detail is not "full" (discovery.RedactionWarning). Table output never shows
// the cards, so it is noise there; --json keeps it.
const redactedWarning = discovery.RedactionWarning

// printWarnings writes a discovery's warnings to w (stderr), one per
// line, leaving out the redaction notice.
func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		if strings.HasPrefix(s, redactedWarning) {
			continue
		}
		fmt.Fprintln(w, "warning:", termtext.Escape(strings.TrimSpace(s)))
	}
}

func formatComponents(m map[string]float64) string {
	var parts []string
	for _, k := range []string{"tag", "context", "example", "reputation", "availability", "rating", "freshness"} {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%.2f", k, v))
		}
	}
	return strings.Join(parts, " ")
}

// formatProbe shows a probe's round trip and free capacity, or that the
// agent did not answer; "-" when it was not probed.
func formatProbe(p *adp.Probe) string {
	switch {
	case p == nil:
		return "-"
	case !p.OK:
		return "no answer"
	}
	s := fmt.Sprintf("%.1fms", p.RTTMillis)
	if p.FreeCapacity != nil {
		s += fmt.Sprintf(" free=%d", *p.FreeCapacity)
	}
	return s
}

// matchedTags lists a result's matched query tags, those matched through
// alias, parent or prefix expansion marked with a "~".
func matchedTags(r adp.DiscoverResult) string {
	tags := slices.Clone(r.MatchedTags)
	for _, t := range r.ExpandedTags {
		tags = append(tags, "~"+t)
	}
	return strings.Join(tags, ",")
}

// short abbreviates a long agent id for a table column.
func short(id string) string {
	if len(id) <= 24 {
		return id
	}
	return id[:16] + "…" + id[len(id)-6:]
}
