package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node/httpapi"
)

// Deadlines of the commands that talk to a node's API.
const (
	// connectTimeout bounds the TCP connection to the API: a node on
	// this machine accepts at once or not at all.
	connectTimeout = 3 * time.Second
	// defaultTimeout is --timeout's default: the whole request, answer
	// included.
	defaultTimeout = 30 * time.Second
	// replyMargin is added to a call's own deadline (invoke
	// --timeout-ms) for the node to relay the answer.
	replyMargin = 5 * time.Second
)

// errNoNode means no node runs where the command looked: no api file, or
// one left by a node that stopped without removing it. It maps to exit
// status 3, like a node that does not answer.
var errNoNode = errors.New("no running node")

// apiFlags locate a running node: --api-url, or the api file in --data-dir
// (default $ADPNODE_DATA_DIR, then ~/.adpnode).
type apiFlags struct {
	dataDir string
	apiURL  string
	json    bool
}

func (f *apiFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "data directory of the running node (default $ADPNODE_DATA_DIR or ~/.adpnode)")
	cmd.Flags().StringVar(&f.apiURL, "api-url", "", "base URL of the node's HTTP API (overrides --data-dir)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of a table")
}

// defaultDataDir is $ADPNODE_DATA_DIR, else ~/.adpnode.
func defaultDataDir() string {
	if d := os.Getenv(EnvDataDir); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".adpnode")
	}
	return ".adpnode"
}

// client returns an API client for the node the flags name, whose
// requests end after cmd's --timeout.
func (f *apiFlags) client(cmd *cobra.Command) (*httpapi.Client, error) {
	return f.clientWithin(cmd, commandTimeout(cmd))
}

// clientWithin is client with an overall deadline of timeout per request
// (0: none). With the node located by its api file, a refused connection
// means the file is stale: the node stopped without removing it.
func (f *apiFlags) clientWithin(cmd *cobra.Command, timeout time.Duration) (*httpapi.Client, error) {
	base := f.apiURL
	if base == "" {
		dir := f.dataDir
		if dir == "" {
			dir = defaultDataDir()
		}
		var err error
		base, err = httpapi.ReadAPIFile(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w in %s (no api file; start one with adpnode run --data-dir %s, or pass --api-url)", errNoNode, dir, dir)
		}
		if err != nil {
			return nil, err
		}
		if err := probe(base); err != nil {
			return nil, fmt.Errorf("%w in %s: its api file names %s, where nothing listens (left by a node that stopped without removing it; start it with adpnode run --data-dir %s)", errNoNode, dir, base, dir)
		}
	}
	hc := &http.Client{
		Timeout: timeout,
		Transport: &progressTransport{
			next:  apiTransport(),
			w:     cmd.ErrOrStderr(),
			label: "waiting for the node at " + base,
		},
	}
	return httpapi.NewClient(base, hc)
}

// probe reports a refused connection to the API at base, the sign of an
// api file left behind by a crash. Anything else (even a node that
// accepts and never answers) is left to the request and its deadline.
func probe(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return nil // NewClient reports it
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	conn, err := net.DialTimeout("tcp", host, connectTimeout)
	if errors.Is(err, syscall.ECONNREFUSED) {
		return err
	}
	if conn != nil {
		conn.Close()
	}
	return nil
}

// apiTransport is an HTTP transport with the connect deadline.
func apiTransport() http.RoundTripper {
	return &http.Transport{
		Proxy:                 nil, // the API is on this machine
		DialContext:           (&net.Dialer{Timeout: connectTimeout}).DialContext,
		TLSHandshakeTimeout:   connectTimeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// commandTimeout is cmd's --timeout (a persistent flag of the root).
func commandTimeout(cmd *cobra.Command) time.Duration {
	d, err := cmd.Flags().GetDuration("timeout")
	if err != nil {
		return defaultTimeout
	}
	return d
}

// printJSON writes raw JSON indented.
func printJSON(w io.Writer, raw []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		_, err = io.WriteString(w, termtext.Escape(string(raw)))
		return err
	}
	buf.WriteByte('\n')
	_, err := w.Write(termtext.EscapeJSON(buf.Bytes()))
	return err
}
