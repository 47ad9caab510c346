package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/httpapi"
)

// nodeCLI runs one adpnode command line and returns stdout and stderr.
func nodeCLI(t *testing.T, ctx context.Context, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

// runInBackground starts `adpnode run` on dir and waits for its api file.
func runInBackground(t *testing.T, dir string, extra ...string) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var (
		wg     sync.WaitGroup
		runErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		args := append([]string{"run", "--data-dir", dir, "--api", "127.0.0.1:0", "--listen", "/ip4/127.0.0.1/tcp/0", "--log-level", "error"}, extra...)
		_, _, runErr = nodeCLI(t, ctx, args...)
	}()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(httpapi.APIFile(dir)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			wg.Wait()
			t.Fatalf("node in %s did not write its api file (run: %v)", dir, runErr)
		}
		<-tick.C
	}
	var once sync.Once
	stop = func() error {
		once.Do(func() { cancel(); wg.Wait() })
		return runErr
	}
	t.Cleanup(func() { stop() })
	return stop
}

func TestInitRunAndAPICommands(t *testing.T) {
	ctx := context.Background()
	dirA, dirB := t.TempDir(), t.TempDir()
	out, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirA, "--name", "Counter", "--description", "Counts words in texts", "--skills", "text/analysis", "--demo-tools")
	if err != nil || !strings.HasPrefix(out, "agent agent://k51") {
		t.Fatalf("init: %q %v", out, err)
	}
	idA := strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "agent ")
	if _, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirA, "--name", "again"); !errors.Is(err, node.ErrAlreadyInitialized) {
		t.Fatalf("second init: %v", err)
	}
	if _, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirB, "--name", "Caller"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := nodeCLI(t, ctx, "status", "--data-dir", dirA); err == nil || !strings.Contains(err.Error(), "no running node") {
		t.Fatalf("status without a node: %v", err)
	}

	stopA := runInBackground(t, dirA, "--demo-agent")
	out, _, err = nodeCLI(t, ctx, "status", "--data-dir", dirA, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st node.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.AgentID != idA || len(st.Addrs) == 0 {
		t.Fatalf("status --json: %q %v", out, err)
	}
	runInBackground(t, dirB, "--bootstrap", st.Addrs[0])

	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _, err = nodeCLI(t, ctx, "discover", "--data-dir", dirB, "--tags", "text/analysis")
		if err == nil && strings.Contains(out, idA) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("discover never found A: %q %v", out, err)
		}
		tick := time.NewTimer(50 * time.Millisecond)
		<-tick.C
	}
	if !strings.Contains(out, "SCORE") || !strings.Contains(out, "Counter") {
		t.Fatalf("discover table: %q", out)
	}
	// The node's redaction notice stays out of the table output but in
	// the JSON.
	out, errOut, err := nodeCLI(t, ctx, "discover", "--data-dir", dirB, "--tags", "text/analysis")
	if err != nil || strings.Contains(out+errOut, "redacted") {
		t.Fatalf("discover table shows the redaction notice: %q %q %v", out, errOut, err)
	}
	out, _, err = nodeCLI(t, ctx, "discover", "--data-dir", dirB, "--tags", "text/analysis", "--json")
	if err != nil || !strings.Contains(out, redactedWarning) {
		t.Fatalf("discover --json lost the redaction notice: %q %v", out, err)
	}

	out, _, err = nodeCLI(t, ctx, "invoke", "--data-dir", dirB, idA, "wordcount", `{"text":"one two three"}`)
	if err != nil || !strings.Contains(out, `"words": 3`) {
		t.Fatalf("invoke: %q %v", out, err)
	}
	out, _, err = nodeCLI(t, ctx, "invoke", "--data-dir", dirB, "--stream", idA, "reverse", `{"text":"ab cd"}`)
	if err != nil || out != "{\"text\":\"dc\"}\n{\"text\":\"ba\"}\n" {
		t.Fatalf("invoke --stream: %q %v", out, err)
	}
	_, _, err = nodeCLI(t, ctx, "invoke", "--data-dir", dirB, idA, "wordcount", `{}`)
	var ae *httpapi.Error
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Path != "/text" {
		t.Fatalf("invoke with a bad body: %v", err)
	}
	out, _, err = nodeCLI(t, ctx, "describe", "--data-dir", dirB, idA)
	if err != nil || !strings.Contains(out, "wordcount") || !strings.Contains(out, "Counts words") {
		t.Fatalf("describe: %q %v", out, err)
	}
	if out, _, err = nodeCLI(t, ctx, "rate", "--data-dir", dirB, idA, "4"); err != nil || !strings.Contains(out, "rated") {
		t.Fatalf("rate: %q %v", out, err)
	}
	if _, _, err = nodeCLI(t, ctx, "rate", "--data-dir", dirB, idA, "9"); err == nil {
		t.Fatal("rate 9 accepted")
	}
	if out, _, err = nodeCLI(t, ctx, "advertise", "--data-dir", dirB, idA); err != nil || !strings.Contains(out, idA) {
		t.Fatalf("advertise: %q %v", out, err)
	}
	if out, _, err = nodeCLI(t, ctx, "peers", "--data-dir", dirB); err != nil || !strings.Contains(out, idA) {
		t.Fatalf("peers: %q %v", out, err)
	}

	if out, _, err = nodeCLI(t, ctx, "card", "list", "--data-dir", dirB); err != nil || !strings.Contains(out, idA) || !strings.Contains(out, "2 cards") {
		t.Fatalf("card list: %q %v", out, err)
	}

	// card show | set: set a new description, see seq go up.
	out, _, err = nodeCLI(t, ctx, "card", "show", "--data-dir", dirA, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var card map[string]any
	if err := json.Unmarshal([]byte(out), &card); err != nil {
		t.Fatal(err)
	}
	card["description"] = "Counts words, lines and characters"
	delete(card, "signature")
	raw, _ := json.Marshal(card)
	file := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err = nodeCLI(t, ctx, "card", "set", "--data-dir", dirA, file)
	if err != nil || !strings.Contains(out, "Counts words, lines and characters") || !strings.Contains(out, "seq") {
		t.Fatalf("card set: %q %v", out, err)
	}

	// Graceful shutdown removes the api file.
	if err := stopA(); err != nil {
		t.Fatalf("run returned %v", err)
	}
	if _, err := os.Stat(httpapi.APIFile(dirA)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("api file after shutdown: %v", err)
	}
}

func TestRunConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(file, []byte(`{"data_dir":"/file","api":"127.0.0.1:7001","directory":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvAPI, "127.0.0.1:7002")
	t.Setenv(EnvDataDir, "/env")
	t.Setenv(EnvSmallMemory, "1") // as the testnet sets it
	var rf runFlags
	rf.config, rf.dataDir, rf.logLevel = file, "/flag", "info"
	cmd := newRunCmd()
	if err := cmd.Flags().Set("data-dir", "/flag"); err != nil { // marks the flag as set on the command line
		t.Fatal(err)
	}
	cfg, err := rf.buildConfig(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/flag" || cfg.APIAddr != "127.0.0.1:7002" || !cfg.Directory || !cfg.SmallMemory {
		t.Fatalf("precedence: data dir %q api %q directory %v small memory %v", cfg.DataDir, cfg.APIAddr, cfg.Directory, cfg.SmallMemory)
	}
	t.Setenv(EnvDirectory, "not-a-bool")
	if _, err := rf.buildConfig(newRunCmd()); !errors.Is(err, node.ErrInvalidConfig) {
		t.Fatalf("bad env: %v", err)
	}
}

// TestRunPublicHTTP: --public-http and --public-url reach the config,
// over the config file's public_http and public_url.
func TestRunPublicHTTP(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(file, []byte(`{"data_dir":"/file","public_http":"0.0.0.0:8080","public_url":"https://a.example","public_trusted_proxies":["10.0.0.1"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var rf runFlags
	rf.config, rf.publicHTTP, rf.logLevel = file, "0.0.0.0:9090", "info"
	cmd := newRunCmd()
	if err := cmd.Flags().Set("public-http", rf.publicHTTP); err != nil {
		t.Fatal(err)
	}
	cfg, err := rf.buildConfig(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.PublicHTTP != "0.0.0.0:9090" || cfg.PublicURL != "https://a.example" || cfg.APIAddr != node.DefaultAPIAddr {
		t.Fatalf("public http %q, public url %q, api %q", cfg.PublicHTTP, cfg.PublicURL, cfg.APIAddr)
	}
	if !slices.Equal(cfg.PublicTrustedProxies, []string{"10.0.0.1"}) {
		t.Fatalf("trusted proxies from the file: %q", cfg.PublicTrustedProxies)
	}
	if err := cmd.Flags().Set("public-trusted-proxy", "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	rf.publicProxies = []string{"127.0.0.1"}
	if cfg, err = rf.buildConfig(cmd); err != nil || !slices.Equal(cfg.PublicTrustedProxies, []string{"127.0.0.1"}) {
		t.Fatalf("trusted proxies from the flag: %q, %v", cfg.PublicTrustedProxies, err)
	}
}

func TestPrintDiscoverWarnings(t *testing.T) {
	raw := []byte(`{"results":[{"id":"agent://k51a","name":"Counter","score":0.5,"matched_tags":["text"]}],
		"warnings":["agent_card reduced to the summary fields (redacted); request detail \"full\" for the signed cards","tag \"x\" is unknown"],
		"unsupported_filters":["constraints.region"]}`)
	cmd := newDiscoverCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if err := printDiscover(cmd, raw, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) != 3 || lines[2] != "" || !strings.HasSuffix(lines[1], "local") {
		t.Fatalf("table: %q", out.String())
	}
	if want := "warning: tag \"x\" is unknown\nunsupported filters: constraints.region\n"; errOut.String() != want {
		t.Fatalf("stderr %q, want %q", errOut.String(), want)
	}
}
