// Command adpnode runs an Agent Description Protocol node.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// execute runs the command line args and returns the exit status (see
// exitHelp).
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	markRunErrors(root)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	asJSON := false
	if cmd != nil {
		asJSON, _ = cmd.Flags().GetBool("json")
	}
	return reportError(err, asJSON, stdout, stderr)
}
