//go:build unix

package testnet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// launch starts bin with args detached from the caller: in its own process
// group (so a Ctrl-C in the caller's terminal does not reach it), stdin
// from /dev/null, stdout and stderr appended to logPath. It returns the
// process id and does not wait for the process.
func launch(bin string, args, env []string, logPath string) (int, error) {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("testnet: open log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(inheritedEnv(), env...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("testnet: start %s: %w", filepath.Base(bin), err)
	}
	pid := cmd.Process.Pid
	// Release drops the handle without waiting: the node outlives the
	// command that started it. A caller that stays alive reaps it in
	// alive (see reap).
	_ = cmd.Process.Release()
	waitExec(pid)
	return pid, nil
}

// execSettleTimeout bounds waitExec. The window it waits out lasts
// microseconds on an idle machine and milliseconds on a loaded one; the
// bound only keeps launch from hanging on a process that never shows one.
const execSettleTimeout = 5 * time.Second

// waitExec waits until /proc/<pid>/cmdline shows the arguments of the
// program pid executed. cmd.Start returns as soon as execve has passed the
// point of no return (the kernel closes the close-on-exec pipe through which
// the child would report a failure), but the kernel sets up the new
// program's argument area only afterwards: in between, the command line
// reads empty, and alive, which identifies a node by the data directory on
// its command line, would take the starting node for an exited one. It
// returns at once when the process has exited (a zombie's command line
// stays empty) or when there is no procfs.
func waitExec(pid int) {
	_ = WaitFor(func() bool {
		b, err := cmdline(pid)
		if err != nil || len(b) > 0 {
			return true
		}
		state := procState(pid)
		return state == 0 || state == 'Z' || state == 'X'
	}, execSettleTimeout)
}

// cmdline returns the NUL-separated arguments of pid from
// /proc/<pid>/cmdline.
func cmdline(pid int) ([]byte, error) {
	return os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
}

// inheritedEnv is this process's environment without ADPNODE_* variables:
// a node of the testnet is configured by its command line and the
// testnet's own variables, never by a configuration the user's shell
// holds for some other node (ADPNODE_CONFIG, ADPNODE_AGENT_URL...).
func inheritedEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ADPNODE_") {
			out = append(out, kv)
		}
	}
	return out
}

// alive reports whether pid is a running process (not a zombie) whose
// command line names dataDir, so a recycled process id never counts as (or
// gets signalled as) a testnet node.
func alive(pid int, dataDir string) bool {
	if pid <= 0 {
		return false
	}
	reap(pid)
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	args, err := cmdline(pid)
	if err != nil {
		// No procfs (macOS): trust the signal probe.
		_, statErr := os.Stat("/proc/self")
		return statErr != nil
	}
	if state := procState(pid); state == 'Z' || state == 'X' {
		return false
	}
	for _, arg := range bytes.Split(args, []byte{0}) {
		if string(arg) == dataDir {
			return true
		}
	}
	return false
}

// reap collects pid's exit status when it is a child of this process, so
// that a stopped node does not linger as a zombie while its parent (a test,
// say) keeps running. It does nothing for other processes.
func reap(pid int) {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}

// procState returns the state letter of /proc/<pid>/stat, or 0.
func procState(pid int) byte {
	state, _ := procStat(pid)
	return state
}

// pfExiting is PF_EXITING in the kernel's task flags (linux/sched.h): the
// task has begun to exit.
const pfExiting = 0x4

// procStat returns the state letter and the task flags of
// /proc/<pid>/stat, or 0 and 0.
func procStat(pid int) (state byte, flags uint64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// The command name is in parentheses and may contain spaces. After it
	// come state, ppid, pgrp, session, tty_nr, tpgid and flags.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) > 6 {
		flags, _ = strconv.ParseUint(f[6], 10, 64)
	}
	return b[i+2], flags
}

// rssBytes returns the resident set size of pid from /proc/<pid>/status
// (VmRSS), or 0 when it is not available.
func rssBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return procKB(string(b), "VmRSS:")
}

// pssBytes returns the proportional set size of pid from
// /proc/<pid>/smaps_rollup: resident memory with pages shared among
// processes (the executable the nodes share, above all) divided among
// them; 0 when not available.
func pssBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	return procKB(string(b), "Pss:")
}

// procKB returns the "Key:   N kB" value of a /proc file in bytes, or 0.
func procKB(text, key string) int64 {
	return procValue(text, key) * 1024
}

// procThreads returns the number of threads of pid from /proc/<pid>/status
// (Threads), or 0 when it is not available.
func procThreads(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return procValue(string(b), "Threads:")
}

// procValue returns the number after key in a "Key:   N [unit]" line of a
// /proc file, or 0.
func procValue(text, key string) int64 {
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, key)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 1 {
			return 0
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return v
	}
	return 0
}

// stop sends SIGTERM to the node's process group, waits up to grace for it
// to exit, then sends SIGKILL and waits again, each time until every
// thread has exited (see gone). It does nothing when the process is already
// gone.
func stop(ctx context.Context, pid int, dataDir string, grace time.Duration) error {
	if gone(pid, dataDir) {
		return nil
	}
	signalGroup(pid, syscall.SIGTERM)
	if waitGone(ctx, pid, dataDir, grace) {
		return nil
	}
	signalGroup(pid, syscall.SIGKILL)
	if waitGone(ctx, pid, dataDir, 5*time.Second) {
		return nil
	}
	return fmt.Errorf("%w: process %d survived SIGKILL", ErrTimeout, pid)
}

// signalGroup signals the process group led by pid (launch makes every node
// a group leader), falling back to the process alone.
func signalGroup(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig)
	}
}

// waitGone polls until the process is gone, d passes or ctx ends.
func waitGone(ctx context.Context, pid int, dataDir string, d time.Duration) bool {
	err := pollCond(ctx, d, func() bool { return gone(pid, dataDir) })
	return err == nil
}

// gone reports whether the node process pid has exited with every thread,
// so that it holds nothing a restarted node needs: the store's directory
// lock, the listen ports. alive does not tell: a process that has begun to
// exit drops its memory (its command line then reads empty) and then its
// leader thread reads as a zombie while the other threads may still be
// exiting, but the process's files, with the locks and sockets they hold,
// are released only as its last thread exits, and the kernel drops an
// exited thread from the group's count (Threads in /proc/<pid>/status) only
// after that. A process that is not exiting but does not name dataDir is
// another program under a recycled process id: the node is gone.
func gone(pid int, dataDir string) bool {
	if alive(pid, dataDir) {
		return false
	}
	state, flags := procStat(pid)
	if state == 0 || flags&pfExiting == 0 {
		return true
	}
	return state == 'Z' && procThreads(pid) <= 1
}
