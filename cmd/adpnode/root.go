package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is the release, set at build time with
// -ldflags "-X main.version=v1.2.3"; by default the module version.
var version = ""

// buildVersion returns version, else the main module's version from the
// build information.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:     "adpnode",
		Short:   "Agent Description Protocol node: describe, find and call agents over libp2p",
		Long:    "Agent Description Protocol node: describe, find and call agents over libp2p.\n\n" + exitHelp,
		Version: buildVersion(),
		// Errors are printed once, by execute, with their exit status.
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().Duration("timeout", defaultTimeout, "give up on a node that does not answer within this time (0: wait for ever); invoke waits at least its --timeout-ms plus 5s")
	root.PersistentFlags().Bool("json", false, "print JSON; errors become {\"error\": {...}} on standard output")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	// Offline tools: keys, card files, benchmarks.
	root.AddCommand(newKeyCmd(), newCardCmd(), newBenchCmd())
	// The node and the commands that talk to a running node's API.
	root.AddCommand(
		newInitCmd(),
		newRunCmd(),
		newStatusCmd(),
		newPeersCmd(),
		newDiscoverCmd(),
		newDescribeCmd(),
		newInvokeCmd(),
		newRateCmd(),
		newAdvertiseCmd(),
		newMCPCmd(),
		newUICmd(),
	)
	card := cardCommand(root)
	card.AddCommand(newCardAPICmds()...)
	card.AddCommand(newCardConvertCmd())
	// Local testnets.
	root.AddCommand(newTestnetCmd())
	return root
}

// cardCommand returns root's `card` command, creating it when no other
// file has added one.
func cardCommand(root *cobra.Command) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == "card" {
			return c
		}
	}
	c := &cobra.Command{Use: "card", Short: "Work with Agent Cards"}
	root.AddCommand(c)
	return c
}
