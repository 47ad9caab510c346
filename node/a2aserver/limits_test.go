package a2aserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/a2aserver"
	"github.com/adpnode/adpnode/node/a2awire"
)

func TestStoreBounds(t *testing.T) {
	now := time.Unix(1e9, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := newServer(t, newFakeAgent(), a2aserver.WithMaxTasks(2), a2aserver.WithTaskTTL(time.Minute), a2aserver.WithClock(clock))
	echo := sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"echo"}}]}}`)
	var ids []string
	for range 3 {
		_, _, body := post(t, s, "1.0", echo)
		ids = append(ids, taskID(t, decode(t, body).Result))
	}
	getErr := func(id string) *int {
		_, _, body := post(t, s, "1.0", sendBody(a2awire.MethodGetTask, fmt.Sprintf(`{"id":%q}`, id)))
		if a := decode(t, body); a.Error != nil {
			return &a.Error.Code
		}
		return nil
	}
	if c := getErr(ids[0]); c == nil || *c != a2awire.CodeTaskNotFound {
		t.Fatalf("the oldest finished task was not evicted by the third")
	}
	if getErr(ids[1]) != nil || getErr(ids[2]) != nil {
		t.Fatal("a newer task was evicted")
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if c := getErr(ids[2]); c == nil || *c != a2awire.CodeTaskNotFound {
		t.Fatal("a task outlived its TTL")
	}
	// Two running tasks fill the store: a third send is refused.
	block := sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"block"}}]},"configuration":{"returnImmediately":true}}`)
	for range 2 {
		post(t, s, "1.0", block)
	}
	_, _, body := post(t, s, "1.0", block)
	if a := decode(t, body); a.Error == nil || a.Error.Code != a2awire.CodeInternalError || !strings.Contains(a.Error.Message, "too many") {
		t.Fatalf("third running task: %s", body)
	}
}

// TestStoreByteBudget: a task whose message and reply do not fit evicts
// the oldest finished task; one that cannot fit even so is refused.
func TestStoreByteBudget(t *testing.T) {
	s := newServer(t, newFakeAgent(), a2aserver.WithMaxTaskBytes(250))
	echo := func(n int) string {
		return sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"echo","arguments":{"p":"`+strings.Repeat("x", n)+`"}}}]}}`)
	}
	_, _, body := post(t, s, "1.0", echo(50))
	first := taskID(t, decode(t, body).Result)
	_, _, body = post(t, s, "1.0", echo(50))
	second := decode(t, body)
	if second.Error != nil || state(t, mustTask(t, second.Result)) != "TASK_STATE_COMPLETED" {
		t.Fatalf("second task: %s", body)
	}
	_, _, body = post(t, s, "1.0", sendBody(a2awire.MethodGetTask, fmt.Sprintf(`{"id":%q}`, first)))
	if a := decode(t, body); a.Error == nil || a.Error.Code != a2awire.CodeTaskNotFound {
		t.Fatalf("the first task outlived the byte budget: %s", body)
	}
	_, _, body = post(t, s, "1.0", echo(400))
	if a := decode(t, body); a.Error == nil || a.Error.Code != a2awire.CodeInternalError {
		t.Fatalf("a message over the whole budget: %s", body)
	}
}

func mustTask(t *testing.T, result json.RawMessage) json.RawMessage {
	t.Helper()
	var r struct{ Task json.RawMessage }
	if err := json.Unmarshal(result, &r); err != nil || r.Task == nil {
		t.Fatalf("no task in %s", result)
	}
	return r.Task
}

// slowAgent is fakeAgent whose echo takes a while.
type slowAgent struct {
	*fakeAgent
	delay time.Duration
}

func (a slowAgent) CallTool(ctx context.Context, tool string, args []byte, stream bool, fn func(json.RawMessage) error) error {
	select {
	case <-time.After(a.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	return a.fakeAgent.CallTool(ctx, tool, args, stream, fn)
}

// TestBlockingSendOutlivesWriteTimeout: a blocking SendMessage waits for
// its call, and the answer reaches the client even when the call takes
// longer than the server's write timeout (the public server's is 30 s).
func TestBlockingSendOutlivesWriteTimeout(t *testing.T) {
	s := newServer(t, slowAgent{fakeAgent: newFakeAgent(), delay: 300 * time.Millisecond})
	srv := httptest.NewUnstartedServer(s)
	srv.Config.WriteTimeout = 50 * time.Millisecond
	srv.Start()
	defer srv.Close()
	msg := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"x":1}}],"metadata":{"skillId":"echo"}}}`
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(sendBody(a2awire.MethodSendMessage, msg)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2awire.VersionHeader, a2awire.Version10)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("the answer was cut off: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "TASK_STATE_COMPLETED") {
		t.Fatalf("%d %s (%v), want the completed task", resp.StatusCode, body, err)
	}
}

// TestPublicRunning: calls through PublicHandler are bounded in all and
// per source address below the server's own bound, which the local
// handler may still fill; a call that ends frees its public slot.
func TestPublicRunning(t *testing.T) {
	s := newServer(t, newFakeAgent(), a2aserver.WithMaxRunning(4), a2aserver.WithPublicRunning(3, 2))
	block := sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"block"}}]},"configuration":{"returnImmediately":true}}`)
	send := func(h http.Handler, from string) (string, bool) {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(block))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(a2awire.VersionHeader, "1.0")
		r.RemoteAddr = from
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		a := decode(t, w.Body.Bytes())
		if a.Error != nil {
			if a.Error.Code != a2awire.CodeInternalError || !strings.Contains(a.Error.Message, "too many") {
				t.Fatalf("refusal from %s: %s", from, w.Body.Bytes())
			}
			return "", false
		}
		return taskID(t, a.Result), true
	}
	pub, local := s.PublicHandler(), s.Handler()
	first, ok1 := send(pub, "198.51.100.1:1000")
	_, ok2 := send(pub, "198.51.100.1:1001")
	if !ok1 || !ok2 {
		t.Fatal("a source's first two public calls were refused")
	}
	if _, ok := send(pub, "198.51.100.1:1002"); ok {
		t.Fatal("a source's third public call ran; the bound per source is 2")
	}
	if _, ok := send(pub, "[2001:db8:0:1::1]:1000"); !ok {
		t.Fatal("another source's first public call was refused")
	}
	if _, ok := send(pub, "[2001:db8:0:2::1]:1000"); ok {
		t.Fatal("a fourth public call ran; the public bound is 3")
	}
	if _, ok := send(local, "127.0.0.1:1000"); !ok {
		t.Fatal("a local call was refused with public calls at their bound")
	}
	if _, ok := send(local, "127.0.0.1:1001"); ok {
		t.Fatal("a fifth call ran; the server's bound is 4")
	}
	_, _, body := post(t, local, "1.0", sendBody(a2awire.MethodCancelTask, fmt.Sprintf(`{"id":%q}`, first)))
	if a := decode(t, body); a.Error != nil {
		t.Fatalf("cancel: %s", body)
	}
	polltest.Until(t, 5*time.Second, func() error {
		if _, ok := send(pub, "198.51.100.1:1003"); !ok {
			return fmt.Errorf("the source's slot is still taken")
		}
		return nil
	})
}

// TestPublicRunningIPv6: the addresses of one IPv6 /64 are one source.
func TestPublicRunningIPv6(t *testing.T) {
	s := newServer(t, newFakeAgent(), a2aserver.WithPublicRunning(10, 2))
	block := sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"block"}}]},"configuration":{"returnImmediately":true}}`)
	refused := func(from string) bool {
		r := httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(block))
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = from
		w := httptest.NewRecorder()
		s.PublicHandler().ServeHTTP(w, r)
		return decode(t, w.Body.Bytes()).Error != nil
	}
	if refused("[2001:db8:1:1::1]:1") || refused("[2001:db8:1:1::2]:1") {
		t.Fatal("the first two calls from a /64 were refused")
	}
	if !refused("[2001:db8:1:1:ffff::3]:1") {
		t.Fatal("a third call from the same /64 ran; the bound per source is 2")
	}
	if refused("[2001:db8:1:2::1]:1") {
		t.Fatal("a call from the next /64 was refused")
	}
}
