//go:build !linux

package eval

import "time"

// ThreadCPU is not available on this OS: it returns -1.
func ThreadCPU() time.Duration { return -1 }
