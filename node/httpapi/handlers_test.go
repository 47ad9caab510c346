package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/internal/apitest"
	"github.com/adpnode/adpnode/node/httpapi"
)

// handlerURL serves the API of fakeService{} and returns its base URL.
func handlerURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(httpapi.NewHandler(fakeService{}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// api sends a request to the API at base and returns status and body.
func api(t testing.TB, base, method, path, body string) (int, string) {
	t.Helper()
	return apitest.Do(t, base, method, path, body)
}

// decodeError decodes an answer in the discovery profile's error model.
func decodeError(t *testing.T, body string) httpapi.Error {
	t.Helper()
	var e httpapi.Error
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("not the error model: %q (%v)", body, err)
	}
	return e
}

func TestHandlerRequestErrors(t *testing.T) {
	base := handlerURL(t)
	for _, tt := range []struct {
		method, path, body string
		code               int
		path_              string
	}{
		{"POST", "/v1/ratings", `{"agent":"x","stars":"five"}`, 400, "/stars"},
		{"POST", "/v1/ratings", `{"agent":"x","stars":3,"extra":1}`, 400, "/extra"},
		{"POST", "/v1/ratings", `{"stars":3}`, 400, "/agent"},
		{"POST", "/v1/invoke", `{"agent":"x"}`, 400, "/method"},
		{"POST", "/v1/invoke", `{"agent":"x","method":"two words"}`, 400, "/method"},
		{"POST", "/v1/invoke", `{"agent":"x","method":"m"} trailing`, 400, ""},
		{"POST", "/v1/invoke", `{"agent":"x","method":"m"} ]`, 400, ""},
		{"POST", "/v1/describe", `[1,2]`, 400, ""},
		{"POST", "/v1/discover", `{"limit":1000}`, 400, "/limit"},
		{"POST", "/v1/discover", `{"querry":"ocr"}`, 400, "/querry"},
		{"POST", "/v1/discover", `{"tag":["nlp"]}`, 400, "/tag"},
		{"GET", "/v1/nothing", "", 404, ""},
		{"DELETE", "/v1/card", "", 405, ""},
		{"GET", "/v1/discover", "", 405, ""},
	} {
		code, body := api(t, base, tt.method, tt.path, tt.body)
		if code != tt.code {
			t.Errorf("%s %s %s: %d, want %d (%s)", tt.method, tt.path, tt.body, code, tt.code, body)
			continue
		}
		if e := decodeError(t, body); e.Path != tt.path_ {
			t.Errorf("%s %s %s: path %q, want %q", tt.method, tt.path, tt.body, e.Path, tt.path_)
		}
	}
}

func TestHandlerErrorModel(t *testing.T) {
	// Every error carries a correlation id, in the body and the header,
	// fresh for each answer; a strict request naming a constraint the
	// node cannot apply fails with unsupported_filter and its path.
	base := handlerURL(t)
	resp, err := http.Post(base+"/v1/discover", "application/json",
		strings.NewReader(`{"query": "ocr", "constraints": {"strict": true, "region": "apac"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	e := decodeError(t, string(b))
	if resp.StatusCode != 400 || e.Code != "unsupported_filter" || e.Path != "/constraints/region" {
		t.Fatalf("strict request: %d %+v", resp.StatusCode, e)
	}
	if e.CorrelationID == "" || resp.Header.Get(httpapi.CorrelationHeader) != e.CorrelationID {
		t.Fatalf("correlation id %q, header %q", e.CorrelationID, resp.Header.Get(httpapi.CorrelationHeader))
	}
	_, body := api(t, base, "POST", "/v1/discover", `{"querry": "ocr"}`)
	if again := decodeError(t, body); again.CorrelationID == "" || again.CorrelationID == e.CorrelationID {
		t.Fatalf("correlation ids %q then %q", e.CorrelationID, again.CorrelationID)
	}
}

func TestHandlerGuards(t *testing.T) {
	base := handlerURL(t)
	do := func(mut func(*http.Request)) (int, string) {
		req, _ := http.NewRequest("POST", base+"/v1/ratings", strings.NewReader(`{"agent":"x","stars":3}`))
		req.Header.Set("Content-Type", "application/json")
		mut(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("CORS header sent")
		}
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{"evil.example", "evil.example:5001", "127.0.0.1.evil.example", "0.0.0.0"} {
		code, body := do(func(r *http.Request) { r.Host = host })
		if e := decodeError(t, body); code != 403 || e.Code != "forbidden" {
			t.Errorf("Host %s: %d %+v", host, code, e)
		}
	}
	for _, host := range []string{"localhost", "[::1]:9", "127.0.0.1"} {
		if code, body := do(func(r *http.Request) { r.Host = host }); code == 403 {
			t.Errorf("loopback Host %s refused: %s", host, body)
		}
	}
	if code, _ := do(func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }); code != 403 {
		t.Errorf("cross-site request: %d", code)
	}
	if code, _ := do(func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }); code != 403 {
		t.Errorf("foreign Origin: %d", code)
	}
	if code, _ := do(func(r *http.Request) { r.Header.Set("Origin", "null") }); code != 403 {
		t.Errorf("null Origin: %d", code)
	}
	if code, body := do(func(r *http.Request) { r.Header.Set("Origin", "http://localhost:3000") }); code == 403 {
		t.Errorf("loopback Origin refused: %s", body)
	}
	if code, _ := do(func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }); code != 415 {
		t.Errorf("text/plain body: %d", code)
	}
	big := `{"agent":"` + strings.Repeat("a", httpapi.MaxAPIBody) + `"}`
	code, body := api(t, base, "POST", "/v1/describe", big)
	if e := decodeError(t, body); code != 413 || e.Code != "invalid_request" {
		t.Errorf("oversized body: %d %+v", code, e)
	}
}
