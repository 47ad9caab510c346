//go:build linux

package eval

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTimeID is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTimeID = 3

// ThreadCPU returns the CPU time consumed by the calling OS thread
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), or -1 when unavailable.
// Callers pin the goroutine with runtime.LockOSThread. Unlike wall time,
// it is not inflated by other processes competing for the CPUs.
func ThreadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return time.Duration(ts.Nano())
}
