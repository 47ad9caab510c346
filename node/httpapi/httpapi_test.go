package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

func TestErrorOf(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		code, path string
		message    string // "" : not checked
	}{
		{"self", nodeapi.Argument(nodeapi.ErrSelf, "/agent", "cannot advertise to self"), 400, "invalid_request", "/agent", "cannot advertise to self"},
		{"invalid argument", fmt.Errorf("rate: %w", nodeapi.Argument(nodeapi.ErrInvalidArgument, "/stars", "must be 1 to 5")), 400, "invalid_request", "/stars", "must be 1 to 5"},
		{"conflict", nodeapi.Argument(nodeapi.ErrConflict, "/id", "the card's id must be this node's agent id x"), 409, "conflict", "/id", "the card's id must be this node's agent id x"},
		{"bad scope", fmt.Errorf("%w: %q", discovery.ErrBadScope, "moon"), 400, "invalid_request", "", `node: scope must be local or network: "moon"`},
		{"closed", nodeapi.ErrClosed, 503, "internal", "", "node is shutting down"},
		{"store closed", store.ErrClosed, 503, "internal", "", "node is shutting down"},
		{"unreachable", fmt.Errorf("%w: dial", nodeapi.ErrUnreachable), 502, "internal", "", "node: agent unreachable: dial"},
		{"deadline", context.DeadlineExceeded, 504, "timeout", "", "the network did not answer in time"},
		{"not found", store.ErrNotFound, 404, "not_found", "", ""},
		{"revoked", store.ErrRevoked, 410, "not_found", "", ""},
		{"bad id", adp.ErrBadID, 400, "invalid_request", "/agent", ""},
		{"too large", adp.ErrTooLarge, 413, "invalid_request", "", ""},
		{"remote busy", &aitp.Error{Status: aitp.StatusBusy, Code: "busy", Message: "later"}, 429, "busy", "", "later"},
		{"remote forbidden", &aitp.Error{Status: aitp.StatusUnauthorized, Code: "forbidden", Message: "no"}, 403, "forbidden", "", "no"},
		{"remote invalid", &aitp.Error{Status: aitp.StatusInvalidRequest, Code: "invalid_request", Path: "/text", Message: "required"}, 400, "invalid_request", "/text", "required"},
		{"other", errors.New("boom"), 500, "internal", "", "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := httpapi.ErrorOf(tc.err)
			if e.Status != tc.status || e.Code != tc.code || e.Path != tc.path || (tc.message != "" && e.Message != tc.message) {
				t.Fatalf("ErrorOf(%v) = %+v, want %d %s %q %q", tc.err, e, tc.status, tc.code, tc.path, tc.message)
			}
		})
	}
}

// fakeService answers status, peers, rate and a streamed invoke; the
// other methods are not called by these tests.
type fakeService struct {
	httpapi.Service
	chunks []string
	err    error
}

func (fakeService) Status() nodeapi.Status {
	return nodeapi.Status{AgentID: "agent://k51a", PeerID: "12D3KooWa", Name: "fake", Addrs: []string{}, Seq: 7}
}

func (fakeService) PeerInfos() []nodeapi.PeerInfo {
	return []nodeapi.PeerInfo{{PeerID: "12D3KooWb", AgentID: "agent://k51b", Addrs: []string{}, Directory: true}}
}

func (fakeService) Rate(_ context.Context, agentID string, stars int) error {
	if agentID == "agent://k51a" {
		return nodeapi.Argument(nodeapi.ErrSelf, "/agent", "a node does not rate its own agent")
	}
	return nil
}

func (fakeService) Stats(context.Context, string) (store.Stats, error) {
	return store.Stats{RatingCount: 2, RatingMean: 4.5}, nil
}

func (f fakeService) InvokeStream(_ context.Context, _, _ string, _ []byte, fn func(json.RawMessage) error) error {
	for _, c := range f.chunks {
		if err := fn(json.RawMessage(c)); err != nil {
			return err
		}
	}
	return f.err
}

func serve(t *testing.T, svc httpapi.Service) *httpapi.Client {
	t.Helper()
	srv := httptest.NewServer(httpapi.NewHandler(svc))
	t.Cleanup(srv.Close)
	c, err := httpapi.NewClient(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientTypedAnswers(t *testing.T) {
	ctx := context.Background()
	c := serve(t, fakeService{})
	st, err := c.Status(ctx)
	if err != nil || st.AgentID != "agent://k51a" || st.Name != "fake" || st.Seq != 7 {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	peers, err := c.Peers(ctx)
	if err != nil || len(peers) != 1 || peers[0].AgentID != "agent://k51b" || !peers[0].Directory {
		t.Fatalf("Peers = %+v, %v", peers, err)
	}
	raw, err := c.Do(ctx, http.MethodPost, "/v1/ratings", httpapi.RateRequest{Agent: "agent://k51b", Stars: new(int)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"agent":"agent://k51b","rating_count":2,"rating_mean":4.5,"stars":0}` + "\n"; string(raw) != want {
		t.Fatalf("rate answer %s, want %s", raw, want)
	}
}

func TestClientErrorAnswers(t *testing.T) {
	ctx := context.Background()
	c := serve(t, fakeService{})
	stars := 3
	_, err := c.Do(ctx, http.MethodPost, "/v1/ratings", httpapi.RateRequest{Agent: "agent://k51a", Stars: &stars})
	var ae *httpapi.Error
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != "invalid_request" || ae.Path != "/agent" || ae.Message != "a node does not rate its own agent" {
		t.Fatalf("rate self: %#v", err)
	}
	_, err = c.Do(ctx, http.MethodGet, "/v1/nothing", nil)
	if !errors.As(err, &ae) || ae.Status != 404 || ae.Code != "not_found" {
		t.Fatalf("unknown route: %#v", err)
	}
	dead, err := httpapi.NewClient("http://127.0.0.1:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Status(ctx); !errors.Is(err, httpapi.ErrNoAnswer) {
		t.Fatalf("no server: %v, want ErrNoAnswer", err)
	}
	if _, err := httpapi.NewClient("ftp://127.0.0.1:1", nil); err == nil {
		t.Fatal("non-HTTP base URL accepted")
	}
}

func TestClientStream(t *testing.T) {
	ctx := context.Background()
	in := httpapi.InvokeRequest{Agent: "agent://k51b", Method: "reverse", Stream: true}
	var got []string
	collect := func(line []byte) error { got = append(got, string(line)); return nil }

	c := serve(t, fakeService{chunks: []string{`{"n":1}`, `{"n":2}`}})
	if err := c.Stream(ctx, "/v1/invoke", in, collect); err != nil || strings.Join(got, " ") != `{"n":1} {"n":2}` {
		t.Fatalf("stream: %q %v", got, err)
	}
	// An error after the first chunk arrives as the final line.
	got = nil
	c = serve(t, fakeService{chunks: []string{`{"n":1}`}, err: &aitp.Error{Status: aitp.StatusBusy, Code: "busy", Message: "later"}})
	err := c.Stream(ctx, "/v1/invoke", in, collect)
	var ae *httpapi.Error
	if !errors.As(err, &ae) || ae.Code != "busy" || ae.Status != 200 || len(got) != 1 {
		t.Fatalf("stream with a late error: %q %#v", got, err)
	}
	// An error before any chunk is an ordinary error answer.
	c = serve(t, fakeService{err: nodeapi.ErrUnreachable})
	if err := c.Stream(ctx, "/v1/invoke", in, collect); !errors.As(err, &ae) || ae.Status != 502 {
		t.Fatalf("stream with an early error: %#v", err)
	}
}

func TestGuardRefusesForeignHost(t *testing.T) {
	srv := httptest.NewServer(httpapi.NewHandler(fakeService{}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/status", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "rebind.example"
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e httpapi.Error
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != 403 || e.Code != "forbidden" {
		t.Fatalf("foreign Host: %d %+v %v", resp.StatusCode, e, err)
	}
}

func TestAPIFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := httpapi.ReadAPIFile(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no api file: %v", err)
	}
	if err := os.WriteFile(httpapi.APIFile(dir), []byte("http://127.0.0.1:5001/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := httpapi.ReadAPIFile(dir); err != nil || got != "http://127.0.0.1:5001" {
		t.Fatalf("ReadAPIFile = %q, %v", got, err)
	}
}
