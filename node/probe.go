package node

import "github.com/adpnode/adpnode/node/probe"

// ProbeBudget bounds the time probing adds to a discovery, and ProbeTop
// is the number of top results probed (package node/probe).
const (
	ProbeBudget = probe.Budget
	ProbeTop    = probe.Top
)
