package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
)

// A card a node held before cards were refused for control and format
// characters: its name recolours and retitles the terminal, its
// description forges a table row, and bidirectional overrides, a C1 CSI
// and a line separator hide in the rest. The JSON holds U+202E, U+2066,
// U+009B and U+2028 raw, as a peer's signed bytes may.
const hostileCard = `{"id":"agent://k51qzi5uqu5dhostile\u202e","name":"Alice \u001b[31mRED\u001b[0m\u001b]0;title\u0007",` +
	`"description":"fine\r\nEvil  agent://k51forged  1.000\u2028x",` +
	"\"version\":\"1\u202e0\",\"status\":\"act\u009bive\",\"seq\":7,\"skills\":[\"nlp\u2066x\"]," +
	`"tools":[{"name":"t\u0007","description":"d\n\tFAKE ROW"}],` +
	`"endpoints":[{"protocol":"aitp\u200b","uri":"agent://x\u001b[2J"}]}`

// terminalBytes are the sequences no human-readable output may carry.
var terminalBytes = []string{"\x1b", "\a", "\r", "\u202e", "\u2066", "\u009b", "\u2028", "\u200b", "\x00"}

func checkNoTerminalBytes(t *testing.T, what, out string) {
	t.Helper()
	for _, b := range terminalBytes {
		if strings.Contains(out, b) {
			t.Errorf("%s: output holds %+q:\n%q", what, b, out)
		}
	}
}

// hostileAPI serves a node API whose every answer carries the hostile card.
func hostileAPI(t *testing.T) string {
	t.Helper()
	var card map[string]any
	if err := json.Unmarshal([]byte(hostileCard), &card); err != nil {
		t.Fatal(err)
	}
	name, id := card["name"].(string), card["id"].(string)
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	replies := map[string]string{
		"/v1/describe": hostileCard,
		"/v1/card":     hostileCard,
		"/v1/cards":    enc(map[string]any{"count": 1, "cards": []any{map[string]any{"id": id, "name": name, "source": "gossip\u202e", "stale": false}}}),
		"/v1/discover": enc(map[string]any{
			"results": []any{map[string]any{
				"id": id, "name": name, "score": 0.5, "matched_tags": []string{"nlp\n0.999\tForged"},
				"origin_service": "agent://dir\x1b[1m",
			}},
			"warnings":            []string{"peer said \x1b]0;owned\a"},
			"unsupported_filters": []string{"x\u202e"},
		}),
		"/v1/peers":  enc(map[string]any{"peers": []any{map[string]any{"peer_id": "p", "agent_id": id, "addrs": []string{"/ip4/1.2.3.4\n/forged"}, "directory": true}}}),
		"/v1/status": enc(map[string]any{"agent_id": id, "peer_id": "p\x1b[2J", "name": name, "addrs": []string{"/ip4/1.2.3.4\u2028x"}, "peers": 1, "cards": 2, "seq": 3}),
		"/v1/invoke": `{"body":{"text":"hi \u001b[31m` + "\u202e\u009b" + `"},"latency_ms":1}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply, ok := replies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(reply))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestHumanOutputEscapesHeldText: every human-readable printer shows an
// old held card's text escaped, one table row per record, and --json
// stays JSON of the same value with the characters \u-escaped.
func TestHumanOutputEscapesHeldText(t *testing.T) {
	api := hostileAPI(t)
	for _, tc := range []struct {
		args  []string
		lines int    // lines of standard output
		want  string // an escaped form the output must show
	}{
		{[]string{"describe", "agent://x"}, 9, `Alice \x1b[31mRED\x1b[0m\x1b]0;title\x07`},
		{[]string{"card", "show"}, 9, `fine\r\nEvil  agent://k51forged  1.000\u2028x`},
		{[]string{"card", "list"}, 3, `gossip\u202e`},
		{[]string{"discover", "--tags", "nlp"}, 2, `nlp\n0.999\tForged`},
		{[]string{"peers"}, 2, `/ip4/1.2.3.4\n/forged`},
		{[]string{"status"}, 8, `p\x1b[2J`},
		{[]string{"invoke", "agent://x", "echo"}, 3, `\u202e\u009b`},
	} {
		what := strings.Join(tc.args, " ")
		out, errOut, err := runCLI(t, "", append(tc.args, "--api-url", api)...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkNoTerminalBytes(t, what, out)
		checkNoTerminalBytes(t, what+" (stderr)", errOut)
		if n := strings.Count(out, "\n"); n != tc.lines {
			t.Errorf("%s: %d lines, want %d:\n%s", what, n, tc.lines, out)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: output lacks %s:\n%s", what, tc.want, out)
		}
	}
	// The discovery's warning goes to stderr, escaped.
	_, errOut, _ := runCLI(t, "", "discover", "--tags", "nlp", "--api-url", api)
	if want := "warning: peer said \\x1b]0;owned\\x07\nunsupported filters: x\\u202e\n"; errOut != want {
		t.Errorf("discover stderr %q, want %q", errOut, want)
	}

	// --json: exact JSON, same value, nothing raw.
	for _, args := range [][]string{{"describe", "agent://x"}, {"card", "show"}, {"card", "list"}, {"discover", "--tags", "nlp"}, {"status"}, {"invoke", "agent://x", "echo"}} {
		what := strings.Join(args, " ") + " --json"
		out, _, err := runCLI(t, "", append(args, "--json", "--api-url", api)...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkNoTerminalBytes(t, what, out)
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", what, err, out)
		}
	}
	out, _, _ := runCLI(t, "", "describe", "agent://x", "--json", "--api-url", api)
	var got, want map[string]any
	json.Unmarshal([]byte(out), &got)
	json.Unmarshal([]byte(hostileCard), &want)
	if got["name"] != want["name"] || got["description"] != want["description"] || got["version"] != want["version"] {
		t.Errorf("describe --json changed the card's text: %q %q %q", got["name"], got["description"], got["version"])
	}
}

// TestTestnetTableEscapes: the testnet's discovery table escapes too.
func TestTestnetTableEscapes(t *testing.T) {
	resp := &adp.DiscoverResponse{
		Results:  []adp.DiscoverResult{{ID: "agent://k51\u202e", Name: "Bob\n  0.999  Forged  x  agent://y", MatchedTags: []string{"a\x1b[5m"}, Score: 0.5}},
		Warnings: []string{"w\a"},
	}
	var out, errOut bytes.Buffer
	tnPrintResults(&out, &errOut, resp)
	checkNoTerminalBytes(t, "testnet discover", out.String())
	checkNoTerminalBytes(t, "testnet discover (stderr)", errOut.String())
	if n := strings.Count(out.String(), "\n"); n != 2 {
		t.Errorf("%d lines, want 2:\n%s", n, out.String())
	}
}
