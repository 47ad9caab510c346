//go:build unix

package testnet

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adpnode/adpnode/node/httpapi"
)

// startFake launches a shell that names dataDir on its command line and
// ignores nothing: a stand-in for a node process.
func startFake(t *testing.T, dataDir, script string) int {
	t.Helper()
	pid, _ := startFakeLog(t, dataDir, script)
	return pid
}

// startFakeLog is startFake that also returns the process's log file.
func startFakeLog(t *testing.T, dataDir, script string) (int, string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatalf("need sh: %v", err)
	}
	log := filepath.Join(t.TempDir(), "log")
	pid, err := launch("/bin/sh", []string{"-c", script, "fake-node", "--data-dir", dataDir}, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		reap(pid)
	})
	return pid, log
}

func TestStopTerminatesProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pid, log := startFakeLog(t, dir, "sleep 60 & echo $!; wait")
	var child int
	if err := WaitFor(func() bool {
		b, _ := os.ReadFile(log)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return child > 0
	}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if !alive(pid, dir) {
		t.Fatal("fresh process not alive")
	}
	if alive(pid, dir+"-other") {
		t.Fatal("alive matched a process that does not name the data dir")
	}
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		t.Fatalf("process group %d (%v), want its own group %d", pgid, err, pid)
	}
	if rssBytes(pid) <= 0 || pssBytes(pid) <= 0 {
		t.Error("no RSS or PSS for a running process")
	}
	if err := stop(context.Background(), pid, dir, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if alive(pid, dir) {
		t.Fatal("process alive after stop")
	}
	// The group's other member (sleep) got the signal too.
	if err := WaitFor(func() bool { st := procState(child); return st == 0 || st == 'Z' }, 5*time.Second); err != nil {
		t.Errorf("child %d of the node's process group survived stop: %v", child, err)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	dir := t.TempDir()
	pid, log := startFakeLog(t, dir, `trap "" TERM; echo ready; while :; do sleep 0.05; done`)
	if err := WaitFor(func() bool {
		b, _ := os.ReadFile(log)
		return string(b) == "ready\n"
	}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := stop(context.Background(), pid, dir, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if alive(pid, dir) {
		t.Fatal("process survived stop")
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("stop returned after %v, before the grace period: SIGTERM was not ignored?", d)
	}
}

func TestStopOfDeadProcessIsNoop(t *testing.T) {
	if err := stop(context.Background(), 0, "/nowhere", time.Second); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pid := startFake(t, dir, "exit 0")
	if err := WaitFor(func() bool { return !alive(pid, dir) }, 5*time.Second); err != nil {
		t.Fatalf("exited child still counted alive (zombie not reaped?): %v", err)
	}
	if err := stop(context.Background(), pid, dir, time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Version: manifestVersion, CreatedAt: time.Unix(1700000000, 0).UTC(), Binary: "/x/bin/adpnode",
		Nodes: []NodeInfo{{Index: 0, Name: "a", AgentID: "agent://k51", DataDir: "/x/node-0", PID: 42, Bootstrap: true, Args: []string{"run"}}}}
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Nodes[0].PID != 42 || got.Binary != m.Binary || !got.CreatedAt.Equal(m.CreatedAt) {
		t.Errorf("read back %+v", got)
	}
	if _, err := readManifest(t.TempDir()); !errors.Is(err, ErrNotRunning) {
		t.Errorf("missing manifest: %v, want ErrNotRunning", err)
	}
	bad := filepath.Join(t.TempDir())
	os.WriteFile(filepath.Join(bad, ManifestFile), []byte(`{"version":1,"nodes":[{"index":3}]}`), 0o644)
	if _, err := readManifest(bad); err == nil {
		t.Error("manifest with a wrong node index accepted")
	}
	os.WriteFile(filepath.Join(bad, ManifestFile), []byte(`{"version":1,"nodes":[],"surprise":1}`), 0o644)
	if _, err := readManifest(bad); err == nil {
		t.Error("manifest with an unknown field accepted")
	}
}

func TestClearDirRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"node-0", "node-12", "bin"} {
		if err := os.MkdirAll(filepath.Join(dir, d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if err := clearDir(dir); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("clearDir with a foreign file: %v, want ErrNotOurs", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node-0")); err != nil {
		t.Fatal("clearDir removed something before refusing")
	}
	os.Remove(filepath.Join(dir, "notes.txt"))
	if err := clearDir(dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %d entries", len(entries))
	}
	if ownedEntry("node-x") || ownedEntry("nodes") || !ownedEntry("node-7") {
		t.Error("ownedEntry misclassifies node directories")
	}
}

func TestCardIDs(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"records", `{"count":2,"cards":[{"id":"a","agent_card":{"id":"a"}},{"agent_card":{"id":"b"}}]}`, []string{"a", "b"}},
		{"array of cards", `[{"id":"a"},{"id":"c"}]`, []string{"a", "c"}},
		{"nested card", `{"cards":[{"card":{"id":"d"}}]}`, []string{"d"}},
		{"empty", `{"cards":[]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cardIDs(json.RawMessage(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for _, id := range tc.want {
				if !got[id] {
					t.Errorf("missing %s in %v", id, got)
				}
			}
		})
	}
	if _, err := cardIDs(json.RawMessage(`"nope"`)); err == nil {
		t.Error("a string listing was accepted")
	}
}

func TestWaitFor(t *testing.T) {
	n := 0
	if err := WaitFor(func() bool { n++; return n >= 3 }, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(func() bool { return false }, 20*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("never-true condition: %v, want ErrTimeout", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := pollCond(ctx, time.Minute, func() bool { return false }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled poll: %v", err)
	}
}

func TestReadAPIFileAcceptsLoopbackOnly(t *testing.T) {
	dir := t.TempDir()
	if readAPIFile(dir) != "" {
		t.Error("no file, want empty")
	}
	os.WriteFile(httpapi.APIFile(dir), []byte("http://127.0.0.1:4001/\n"), 0o600)
	if got := readAPIFile(dir); got != "http://127.0.0.1:4001" {
		t.Errorf("got %q", got)
	}
	os.WriteFile(httpapi.APIFile(dir), []byte("http://evil.example:80\n"), 0o600)
	if got := readAPIFile(dir); got != "" {
		t.Errorf("non-loopback API accepted: %q", got)
	}
}

func TestNodesDoNotInheritADPNODEVariables(t *testing.T) {
	t.Setenv("ADPNODE_CONFIG", "/somewhere/else.json")
	t.Setenv("TESTNET_KEEP_ME", "1")
	env := inheritedEnv()
	for _, kv := range env {
		if strings.HasPrefix(kv, "ADPNODE_") {
			t.Errorf("inherited %s", kv)
		}
	}
	if !slices.Contains(env, "TESTNET_KEEP_ME=1") {
		t.Error("an unrelated variable was dropped")
	}
}

func TestInstallBinaryCopiesTheExecutable(t *testing.T) {
	exe, err := openExecutable("")
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	st, err := exe.Stat()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dst, err := installBinary(exe, dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if got.Size() != st.Size() || got.Mode().Perm()&0o100 == 0 {
		t.Errorf("copy is %d bytes, mode %v; want %d bytes, executable", got.Size(), got.Mode(), st.Size())
	}
	if _, err := openExecutable(filepath.Join(dir, "missing")); err == nil {
		t.Error("opening a missing executable succeeded")
	}
}

// TestLaunchedProcessIsAliveAtOnce launches many processes and looks at
// each one the moment launch returns, as StartNode's first readiness check
// does. cmd.Start returns once execve has closed the child's close-on-exec
// pipe, before the kernel has set up the new program's arguments; a
// command line read in between is empty, and alive took the starting node
// for a dead one ("exited during start").
func TestLaunchedProcessIsAliveAtOnce(t *testing.T) {
	const launches = 200
	dir := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	for i := range launches {
		pid, err := launch("/bin/sh", []string{"-c", "while :; do sleep 1; done", "fake-node", "--data-dir", dir}, nil, log)
		if err != nil {
			t.Fatal(err)
		}
		up := alive(pid, dir)
		args, _ := cmdline(pid)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		if err := WaitFor(func() bool { return !alive(pid, dir) }, 5*time.Second); err != nil {
			t.Fatalf("launch %d: process %d survived SIGKILL: %v", i, pid, err)
		}
		if !up {
			t.Fatalf("launch %d: process %d not alive right after launch (command line then %q)", i, pid, args)
		}
	}
}

// lockHolderEnv makes TestLockHolderProcess act as a node stand-in.
const lockHolderEnv = "TESTNET_LOCK_HOLDER"

// TestLockHolderProcess is not a test: run by TestStopWaitsForEveryThread
// with lockHolderEnv set, it holds an exclusive flock on the directory
// named by --data-dir (as Badger does on a node's store), keeps several
// threads busy, says "ready" and exits on SIGTERM.
func TestLockHolderProcess(t *testing.T) {
	if os.Getenv(lockHolderEnv) == "" {
		t.Skip("helper process for TestStopWaitsForEveryThread")
	}
	dir := os.Args[len(os.Args)-1]
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	for range 8 {
		go func() {
			runtime.LockOSThread()
			for {
				runtime.Gosched()
			}
		}()
	}
	os.Stdout.WriteString("ready\n")
	<-terms
	os.Exit(0)
}

// TestStopWaitsForEveryThread stops a multi-threaded process holding a
// directory lock and takes the lock the moment stop returns, as a
// restarted node's store does. The leader of a thread group reads as a
// zombie as soon as its own thread has exited, while the other threads
// may still be exiting and hold the process's files: its locks and its
// listen sockets. stop must wait for all of them.
func TestStopWaitsForEveryThread(t *testing.T) {
	const stops = 20
	dir := t.TempDir()
	for i := range stops {
		log := filepath.Join(t.TempDir(), "log")
		pid, err := launch(os.Args[0], []string{"-test.run=^TestLockHolderProcess$", "--", "--data-dir", dir}, []string{lockHolderEnv + "=1"}, log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			reap(pid)
		})
		if err := WaitFor(func() bool {
			b, _ := os.ReadFile(log)
			return strings.Contains(string(b), "ready\n")
		}, 30*time.Second); err != nil {
			b, _ := os.ReadFile(log)
			t.Fatalf("stop %d: helper not ready: %v\n%s", i, err, b)
		}
		if err := stop(context.Background(), pid, dir, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		f.Close() // releases the lock
		if err != nil {
			t.Fatalf("stop %d: the stopped process %d still holds its directory lock: %v", i, pid, err)
		}
	}
}
