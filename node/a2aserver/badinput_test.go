package a2aserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/node/a2aserver"
	"github.com/adpnode/adpnode/node/a2awire"
)

// TestBadInput: every refused request answers one JSON-RPC error with
// the code and the JSON Pointer of the member at fault, and starts no
// call.
func TestBadInput(t *testing.T) {
	msg := func(parts string) string {
		return `{"message":{"messageId":"m","role":"ROLE_USER","parts":` + parts + `}}`
	}
	cases := []struct {
		name, version, body string
		status, code        int
		path                string // "" when the error names none
	}{
		{"not JSON", "1.0", `{"jsonrpc":`, 200, a2awire.CodeParseError, ""},
		{"not UTF-8", "1.0", "{\"jsonrpc\":\"2.0\xff\"}", 200, a2awire.CodeParseError, ""},
		{"trailing data", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}} {}`, 200, a2awire.CodeParseError, ""},
		{"stray brace after the request", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}} }`, 200, a2awire.CodeParseError, ""},
		{"batch", "1.0", `[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`, 200, a2awire.CodeInvalidRequest, ""},
		{"not an object", "1.0", `42`, 200, a2awire.CodeInvalidRequest, ""},
		{"jsonrpc 1.0", "1.0", `{"jsonrpc":"1.0","id":1,"method":"GetTask"}`, 200, a2awire.CodeInvalidRequest, "/jsonrpc"},
		{"jsonrpc a number", "1.0", `{"jsonrpc":2,"id":1,"method":"GetTask"}`, 200, a2awire.CodeInvalidRequest, "/jsonrpc"},
		{"notification", "1.0", `{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}`, 200, a2awire.CodeInvalidRequest, "/id"},
		{"object id", "1.0", `{"jsonrpc":"2.0","id":{},"method":"GetTask"}`, 200, a2awire.CodeInvalidRequest, "/id"},
		{"long id", "1.0", `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 300) + `","method":"GetTask"}`, 200, a2awire.CodeInvalidRequest, "/id"},
		{"no method", "1.0", `{"jsonrpc":"2.0","id":1}`, 200, a2awire.CodeInvalidRequest, "/method"},
		{"unknown method", "1.0", sendBody("tasks/list", `{}`), 200, a2awire.CodeMethodNotFound, "/method"},
		{"0.3 method under 1.0", "1.0", sendBody(a2awire.MethodGet03, `{"id":"x"}`), 200, a2awire.CodeMethodNotFound, "/method"},
		{"1.0 method under 0.3", "0.3", sendBody(a2awire.MethodGetTask, `{"id":"x"}`), 200, a2awire.CodeMethodNotFound, "/method"},
		{"unknown version", "2.0", sendBody(a2awire.MethodGetTask, `{"id":"x"}`), 200, a2awire.CodeVersionNotSupported, ""},
		{"garbage version", "one", sendBody(a2awire.MethodGetTask, `{"id":"x"}`), 200, a2awire.CodeVersionNotSupported, ""},
		{"no params", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage"}`, 200, a2awire.CodeInvalidParams, "/params"},
		{"params an array", "1.0", sendBody(a2awire.MethodSendMessage, `[]`), 200, a2awire.CodeInvalidParams, "/params"},
		{"no message", "1.0", sendBody(a2awire.MethodSendMessage, `{}`), 200, a2awire.CodeInvalidParams, "/params/message"},
		{"message a string", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":"hi"}`), 200, a2awire.CodeInvalidParams, "/params/message"},
		{"no messageId", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"role":"ROLE_USER","parts":[{"text":"x"}]}}`), 200, a2awire.CodeInvalidParams, "/params/message/messageId"},
		{"agent role", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`), 200, a2awire.CodeInvalidParams, "/params/message/role"},
		{"0.3 role under 1.0", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"user","parts":[{"text":"x"}]}}`), 200, a2awire.CodeInvalidParams, "/params/message/role"},
		{"no parts", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts"},
		{"too many parts", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[`+strings.Repeat(`{"text":"x"},`, 64)+`{"text":"x"}]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts"},
		{"part a string", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{"text":"x"},"y"]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts/1"},
		{"empty part", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{}]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts/0"},
		{"two contents", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{"text":"x","data":{}}]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts/0"},
		{"text a number", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{"text":5}]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts/0/text"},
		{"file by url", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{"text":"x"},{"url":"https://example.com/f"}]`)), 200, a2awire.CodeContentTypeNotSupported, "/params/message/parts/1"},
		{"0.3 file", "0.3", sendBody(a2awire.MethodSend03, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"file","file":{"uri":"x"}}]}}`), 200, a2awire.CodeContentTypeNotSupported, "/params/message/parts/0"},
		{"0.3 unknown kind", "0.3", sendBody(a2awire.MethodSend03, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"video"}]}}`), 200, a2awire.CodeInvalidParams, "/params/message/parts/0/kind"},
		{"0.3 data not an object", "0.3", sendBody(a2awire.MethodSend03, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":[1]}]}}`), 200, a2awire.CodeInvalidParams, "/params/message/parts/0/data"},
		{"push config", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"taskPushNotificationConfig":{"url":"https://example.com"}}}`), 200, a2awire.CodePushNotificationNotSupported, "/params/configuration"},
		{"negative history", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"historyLength":-1}}`), 200, a2awire.CodeInvalidParams, "/params/configuration/historyLength"},
		{"no tool named", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{"text":"x"}]`)), 200, a2awire.CodeInvalidParams, "/params/message"},
		{"unknown skill", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"skillId":"nope"}}}`), 200, a2awire.CodeInvalidParams, "/params/message/metadata/skillId"},
		{"skillId a number", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"metadata":{"skillId":3}}`), 200, a2awire.CodeInvalidParams, "/params/metadata/skillId"},
		{"unknown tool in data", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{"data":{"tool":"nope"}}]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts/0/data/tool"},
		{"arguments not an object", "1.0", sendBody(a2awire.MethodSendMessage, msg(`[{"data":{"tool":"echo","arguments":[1]}}]`)), 200, a2awire.CodeInvalidParams, "/params/message/parts/0/data/arguments"},
		{"text to a schema without a text place", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"skillId":"block"}}}`), 200, a2awire.CodeInvalidParams, "/params/message/parts"},
		{"two data parts", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{}},{"data":{}}],"metadata":{"skillId":"echo"}}}`), 200, a2awire.CodeInvalidParams, "/params/message/parts/1"},
		{"follow-up of no task", "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","taskId":"t","role":"ROLE_USER","parts":[{"text":"x"}]}}`), 200, a2awire.CodeTaskNotFound, "/params/message/taskId"},
		{"get without id", "1.0", sendBody(a2awire.MethodGetTask, `{}`), 200, a2awire.CodeInvalidParams, "/params/id"},
		{"get id a number", "1.0", sendBody(a2awire.MethodGetTask, `{"id":5}`), 200, a2awire.CodeInvalidParams, "/params/id"},
		{"cancel of no task", "1.0", sendBody(a2awire.MethodCancelTask, `{"id":"x"}`), 200, a2awire.CodeTaskNotFound, "/params/id"},
		{"too large", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + strings.Repeat("x", a2aserver.MaxRequestBody) + `"}}`, 413, a2awire.CodeInvalidRequest, ""},
	}
	agent := newFakeAgent()
	s := newServer(t, agent)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, s, tc.version, tc.body)
			a := decode(t, body)
			if status != tc.status || a.Error == nil || a.Error.Code != tc.code || a.Result != nil {
				t.Fatalf("status %d: %s; want %d and code %d", status, body, tc.status, tc.code)
			}
			if got := errorPath(t, tc.version, a.Error.Data); got != tc.path {
				t.Fatalf("path %q, want %q: %s", got, tc.path, body)
			}
		})
	}
	if c := agent.lastCall(); c != "" {
		t.Fatalf("a refused request reached the agent: %q", c)
	}
}

// errorPath reads the path of an error's data: in 1.0 the metadata of
// its ErrorInfo, in 0.3 data.path.
func errorPath(t *testing.T, version string, data json.RawMessage) string {
	t.Helper()
	if len(data) == 0 {
		return ""
	}
	if version == "0.3" {
		var d struct{ Path string }
		json.Unmarshal(data, &d)
		return d.Path
	}
	var infos []struct {
		Type     string `json:"@type"`
		Reason   string
		Domain   string
		Metadata map[string]string
	}
	if err := json.Unmarshal(data, &infos); err != nil || len(infos) != 1 || infos[0].Type != "type.googleapis.com/google.rpc.ErrorInfo" || infos[0].Reason == "" || infos[0].Domain != "a2a-protocol.org" {
		t.Fatalf("data %s is not one ErrorInfo", data)
	}
	return infos[0].Metadata["path"]
}

func TestTransportErrors(t *testing.T) {
	s := newServer(t, newFakeAgent())
	r := httptest.NewRequest(http.MethodGet, "/a2a", nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "POST" || decode(t, w.Body.Bytes()).Error == nil {
		t.Fatalf("GET: %d %s", w.Code, w.Body)
	}
	r = httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "text/plain")
	w = httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != http.StatusUnsupportedMediaType || decode(t, w.Body.Bytes()).Error == nil {
		t.Fatalf("text/plain: %d %s", w.Code, w.Body)
	}
}
