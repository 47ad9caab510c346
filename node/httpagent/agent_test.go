package httpagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/aitptest"
	"github.com/adpnode/adpnode/node/httpagent"
	"github.com/adpnode/adpnode/node/httpapi"
)

func TestStatusFromHTTP(t *testing.T) {
	for _, tt := range []struct {
		code int
		want aitp.Status
	}{
		{200, aitp.StatusOK}, {204, aitp.StatusOK}, {400, aitp.StatusInvalidRequest}, {422, aitp.StatusInvalidRequest},
		{401, aitp.StatusUnauthorized}, {403, aitp.StatusUnauthorized}, {404, aitp.StatusNotFound},
		{429, aitp.StatusBusy}, {503, aitp.StatusBusy}, {504, aitp.StatusTimeout}, {500, aitp.StatusError},
		{418, aitp.StatusError}, {302, aitp.StatusError},
	} {
		if got, _ := httpagent.StatusFromHTTP(tt.code); got != tt.want {
			t.Errorf("HTTP %d -> %v, want %v", tt.code, got, tt.want)
		}
	}
}

func TestNewRefusesBadURL(t *testing.T) {
	for _, raw := range []string{"ftp://host/x", "http://", "::", "127.0.0.1:80"} {
		if _, err := httpagent.New(raw); !errors.Is(err, httpagent.ErrBadURL) {
			t.Errorf("New(%q) = %v, want ErrBadURL", raw, err)
		}
	}
}

func TestCallForwards(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request shape", 500)
			return
		}
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/base/upper":
			fmt.Fprintf(w, `{"caller":%q,"in":%s}`, r.Header.Get(httpagent.CallerHeader), body)
		case "/base/lines":
			w.Header().Set("Content-Type", httpapi.NDJSON)
			fmt.Fprint(w, "{\"n\":1}\n\n{\"n\":2}\n")
		case "/base/invalid":
			w.WriteHeader(422)
			fmt.Fprint(w, `{"code":"invalid_request","message":"text too long","path":"/text"}`)
		case "/base/busy":
			http.Error(w, "slow down", 429)
		case "/base/teapot":
			w.WriteHeader(418)
			fmt.Fprint(w, strings.Repeat("t", 5000))
		case "/base/moved":
			http.Redirect(w, r, "/base/upper", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	a, err := httpagent.New(srv.URL + "/base/")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()

	w := &aitptest.Chunks{}
	if err := a.Call(ctx, w, &aitp.Request{Method: "upper", Body: []byte(`{"x":1}`)}, "agent://k51caller"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Caller string
		In     map[string]int
	}
	if err := json.Unmarshal([]byte(strings.Join(w.Got(), "")), &got); err != nil || got.Caller != "agent://k51caller" || got.In["x"] != 1 {
		t.Fatalf("reply %q (%v)", w.Got(), err)
	}

	w = &aitptest.Chunks{}
	if err := a.Call(ctx, w, &aitp.Request{Method: "lines", StreamReply: true}, ""); err != nil {
		t.Fatal(err)
	}
	if len(w.Got()) != 2 || w.Got()[0] != `{"n":1}` || w.Got()[1] != `{"n":2}` {
		t.Fatalf("stream chunks %q", w.Got())
	}
	w = &aitptest.Chunks{}
	if err := a.Call(ctx, w, &aitp.Request{Method: "lines"}, ""); err != nil || len(w.Got()) != 1 {
		t.Fatalf("non-stream caller got %q, %v", w.Got(), err)
	}

	for method, want := range map[string]aitp.Status{"invalid": aitp.StatusInvalidRequest, "busy": aitp.StatusBusy,
		"missing": aitp.StatusNotFound, "teapot": aitp.StatusError, "moved": aitp.StatusError} {
		err := a.Call(ctx, &aitptest.Chunks{}, &aitp.Request{Method: method}, "")
		var e *aitp.Error
		if !errors.As(err, &e) || e.Status != want {
			t.Fatalf("%s: %v, want status %v", method, err, want)
		}
		if method == "invalid" && (e.Path != "/text" || e.Message != "text too long") {
			t.Errorf("error model not passed through: %+v", e)
		}
		if method == "teapot" && len(e.Message) != 1024 {
			t.Errorf("plain failure body: message of %d bytes, want it cut to 1024", len(e.Message))
		}
	}

	srv.Close()
	err = a.Call(ctx, &aitptest.Chunks{}, &aitp.Request{Method: "upper"}, "")
	if st, ok := aitp.StatusOf(err); !ok || st != aitp.StatusError {
		t.Fatalf("agent down: %v", err)
	}
}

func TestCallDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	a, err := httpagent.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = a.Call(ctx, &aitptest.Chunks{}, &aitp.Request{Method: "slow"}, "")
	if st, ok := aitp.StatusOf(err); !ok || st != aitp.StatusTimeout {
		t.Fatalf("server that never answers: %v, want TIMEOUT", err)
	}
}
