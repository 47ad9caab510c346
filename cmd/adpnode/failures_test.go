package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/httpapi"
)

// internals are what no output may show a user: Go type and field names,
// protobuf field names and the CID library's words.
var internals = regexp.MustCompile(`\bnode\.[A-Za-z]|httpapi\.|nodeapi\.|struct field|Go struct|crypto\.pb|proto:|invalid cid|selected encoding|dial backoff|Cannot acquire directory lock|json: cannot`)

// cliResult is one command line's outcome through execute, as a shell
// sees it.
type cliResult struct {
	code        int
	out, errOut string
	took        time.Duration
}

func execCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	var out, errOut bytes.Buffer
	start := time.Now()
	code := execute(args, strings.NewReader(""), &out, &errOut)
	return cliResult{code: code, out: out.String(), errOut: errOut.String(), took: time.Since(start)}
}

// silentListener accepts connections (or leaves them in the kernel's
// backlog, as a stopped process does) and never answers.
func silentListener(t *testing.T, accept bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	if accept {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		}()
	}
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}

// closedPort returns an address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// freshAgentID is the id of an agent that was never online.
func freshAgentID(t *testing.T) string {
	t.Helper()
	_, pub, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := peer.IDFromPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return adp.AgentID(p)
}

// writeFile writes data to dir/name with mode perm.
func writeFile(t *testing.T, dir, name, data string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCLIFailures runs every failure a user may meet and checks that the
// command returns within its deadline, with the documented exit status
// and a message that names the problem in the user's words.
func TestCLIFailures(t *testing.T) {
	ctx := t.Context()
	dirA, dirB := t.TempDir(), t.TempDir()
	if _, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirA, "--name", "Echo", "--description", "Echoes texts", "--skills", "text/echo", "--demo-tools"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirB, "--name", "Caller"); err != nil {
		t.Fatal(err)
	}
	stopA := runInBackground(t, dirA, "--demo-agent")
	out, _, err := nodeCLI(t, ctx, "status", "--data-dir", dirA, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		AgentID string   `json:"agent_id"`
		Addrs   []string `json:"addrs"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	runInBackground(t, dirB, "--bootstrap", st.Addrs[0])
	apiB, err := httpapi.ReadAPIFile(dirB)
	if err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 20*time.Second, func() error {
		r := execCLI(t, "describe", "--data-dir", dirB, st.AgentID)
		if r.code != 0 {
			return &cliError{r}
		}
		return nil
	})

	empty := t.TempDir()
	stale := t.TempDir()
	writeFile(t, stale, httpapi.APIFileName, closedPort(t)+"\n", 0o600)
	badKey := t.TempDir()
	writeFile(t, badKey, "identity.key", "not a key at all", 0o600)
	writeFile(t, badKey, "card.json", "{}", 0o600)
	garbageKey := writeFile(t, t.TempDir(), "k.key", "\x08\x01junk", 0o600)
	accepting := silentListener(t, true)
	backlog := silentListener(t, false)
	missing := filepath.Join(t.TempDir(), "missing.json")

	type tc struct {
		name   string
		args   []string
		code   int
		within time.Duration
		want   []string // substrings of stdout+stderr
	}
	cases := []tc{
		{"no node", []string{"status", "--data-dir", empty}, 3, 5 * time.Second, []string{"no running node", empty}},
		{"stale api file", []string{"peers", "--data-dir", stale}, 3, 5 * time.Second, []string{"no running node", "nothing listens"}},
		{"accepts, never answers", []string{"status", "--api-url", accepting, "--timeout", "1s"}, 3, 5 * time.Second, []string{"did not answer within 1s"}},
		{"stopped node", []string{"discover", "--api-url", backlog, "--timeout", "1s", "--tags", "x"}, 3, 5 * time.Second, []string{"did not answer within 1s"}},
		{"invoke waits its timeout plus margin", []string{"invoke", "--api-url", accepting, "--timeout", "1s", "--timeout-ms", "500", st.AgentID, "echo"}, 3, 10 * time.Second, []string{"did not answer within 5.5s"}},
		{"timeout-ms negative", []string{"invoke", "--data-dir", dirB, "--timeout-ms", "-1", st.AgentID, "echo"}, 2, 5 * time.Second, []string{"--timeout-ms must be 0 to 600000"}},
		{"timeout-ms too large", []string{"invoke", "--data-dir", dirB, "--timeout-ms", "600001", st.AgentID, "echo"}, 2, 5 * time.Second, []string{"--timeout-ms must be 0 to 600000"}},
		{"unknown flag", []string{"status", "--no-such-flag"}, 2, 5 * time.Second, []string{"unknown flag", "--help"}},
		{"missing argument", []string{"describe"}, 2, 5 * time.Second, []string{"accepts 1 arg"}},
		{"remote body type", []string{"invoke", "--data-dir", dirB, st.AgentID, "wordcount", `{"text":5}`}, 1, 20 * time.Second, []string{"/text", "want a string, got a number"}},
		{"bad agent id", []string{"describe", "--data-dir", dirB, "agent://kzzzzzzzzzzz"}, 1, 5 * time.Second, []string{"is not an agent id"}},
		{"agent never reachable", []string{"invoke", "--data-dir", dirB, "--timeout-ms", "5000", freshAgentID(t), "echo"}, 1, 15 * time.Second, []string{"agent://", "not"}},
		{"data directory in use", []string{"run", "--data-dir", dirA, "--api", "127.0.0.1:0", "--listen", "/ip4/127.0.0.1/tcp/0", "--log-level", "error"}, 1, 20 * time.Second, []string{"another adpnode is running with data directory " + dirA}},
		{"foreign identity key", []string{"run", "--data-dir", badKey, "--api", "", "--listen", "/ip4/127.0.0.1/tcp/0", "--log-level", "error"}, 1, 10 * time.Second, []string{"identity.key is not an adpnode key"}},
		{"foreign key file", []string{"card", "sign", "--key", garbageKey, missing}, 1, 5 * time.Second, []string{"not an adpnode key"}},
		{"missing card file", []string{"card", "validate", missing}, 1, 5 * time.Second, []string{missing + ": file does not exist"}},
		{"json error", []string{"status", "--data-dir", empty, "--json"}, 3, 5 * time.Second, []string{`"code":"unreachable"`, `"exit":3`}},
		{"version", []string{"--version"}, 0, 5 * time.Second, []string{"adpnode version"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := execCLI(t, c.args...)
			all := r.out + r.errOut
			t.Logf("exit %d after %s: %s", r.code, r.took.Round(time.Millisecond), strings.TrimSpace(all))
			if r.code != c.code {
				t.Errorf("exit %d, want %d", r.code, c.code)
			}
			if r.took > c.within {
				t.Errorf("took %s, want at most %s", r.took, c.within)
			}
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("output does not contain %q", w)
				}
			}
			if m := internals.FindString(all); m != "" {
				t.Errorf("output shows an internal name %q", m)
			}
		})
	}

	// Under --json an error is one JSON object on stdout, nothing on stderr.
	r := execCLI(t, "status", "--data-dir", empty, "--json")
	var je struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Exit    int    `json:"exit"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.out), &je); err != nil || je.Error.Exit != 3 || r.errOut != "" {
		t.Errorf("--json error: stdout %q stderr %q (%v)", r.out, r.errOut, err)
	}

	// API request decoding names the JSON path and the expected kind.
	for _, body := range []string{`[1,2]`, `{"agent":5,"method":"echo"}`, `{"agent":"x","method":"echo","timeout_ms":"soon"}`} {
		resp, err := http.Post(apiB+"/v1/invoke", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var ae httpapi.Error
		err = json.NewDecoder(resp.Body).Decode(&ae)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(ae.Message, "want ") && !strings.Contains(ae.Message, "must be a JSON object") {
			t.Errorf("POST /v1/invoke %s: %d %+v %v", body, resp.StatusCode, ae, err)
		}
		if m := internals.FindString(ae.Message); m != "" {
			t.Errorf("POST /v1/invoke %s: message %q shows %q", body, ae.Message, m)
		}
	}

	// An agent whose card is held but whose node went away.
	if err := stopA(); err != nil {
		t.Fatal(err)
	}
	r = execCLI(t, "invoke", "--data-dir", dirB, "--timeout-ms", "5000", st.AgentID, "echo", `{"text":"hi"}`)
	if r.code != 1 || !strings.Contains(r.errOut, "agent "+st.AgentID+" is not reachable") || internals.MatchString(r.errOut) {
		t.Errorf("invoke of a stopped agent: exit %d %q", r.code, r.errOut)
	}
}

// cliError reports a command that failed, for polling.
type cliError struct{ r cliResult }

func (e *cliError) Error() string {
	return fmt.Sprintf("exit %d: %s%s", e.r.code, e.r.out, e.r.errOut)
}
