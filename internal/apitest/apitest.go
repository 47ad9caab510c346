// Package apitest sends requests to a node's HTTP API for tests: the one
// helper that node's own tests and node/httpapi's tests share. Only tests
// import it.
package apitest

import (
	"io"
	"net/http"
	"strings"
)

// TB is the part of testing.TB that Do uses.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Do sends method path (with body as JSON when not empty) to the API at
// base and returns the status and the body of the answer; a request that
// cannot be made or read fails the test.
func Do(t TB, base, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
