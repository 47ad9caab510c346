package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/a2awire"
	"github.com/adpnode/adpnode/node/httpapi"
)

// a2aClientDir holds the A2A JavaScript SDK client program and its
// pinned packages (npm ci --prefix scripts/a2a-client).
var a2aClientDir = filepath.Join("..", "scripts", "a2a-client")

// TestA2ACardNamesMount: the A2A card the API serves names, as its
// JSON-RPC interface, the URL where the node answers A2A requests, and a
// request there reaches the agent's tool.
func TestA2ACardNamesMount(t *testing.T) {
	n := startNode(t, testNode{demo: true})
	status, body := api(t, n, "GET", "/.well-known/agent-card.json", "")
	var card struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding, ProtocolVersion string }
	}
	if err := json.Unmarshal([]byte(body), &card); err != nil || status != 200 || len(card.SupportedInterfaces) < 2 {
		t.Fatalf("card %d %s", status, body)
	}
	in := card.SupportedInterfaces[0]
	if in.URL != n.APIURL()+httpapi.A2APath || in.ProtocolBinding != "JSONRPC" || in.ProtocolVersion != a2awire.Version10 {
		t.Fatalf("first interface %+v, want JSONRPC 1.0 at %s", in, n.APIURL()+httpapi.A2APath)
	}
	status, body = api(t, n, "POST", httpapi.A2APath, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"one two three"}],"metadata":{"skillId":"wordcount"}}}}`)
	if status != 200 || !strings.Contains(body, `"state":"completed"`) || !strings.Contains(body, `"words":3`) {
		t.Fatalf("message/send to wordcount: %d %s", status, body)
	}
}

// TestA2AJavaScriptClient drives the node's A2A server with the A2A
// JavaScript SDK's client (@a2a-js/sdk): it resolves the card from
// /.well-known/agent-card.json, sends a message to the demo agent's
// reverse tool, blocking and streamed, reads the task back, and does the
// same over A2A 0.3. Without node or the installed packages it skips,
// except under CI=true, where it fails.
func TestA2AJavaScriptClient(t *testing.T) {
	nodeBin := nodeWithPackage(t, a2aClientDir, "@a2a-js/sdk")
	n := startNode(t, testNode{demo: true, name: "a2a interop"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, "client.mjs", n.APIURL(), "reverse", "hello adp world")
	cmd.Dir = a2aClientDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
	}
	t.Logf("A2A JavaScript client: %s", out)

	type part struct {
		Text string          `json:"text"`
		Data json.RawMessage `json:"data"`
	}
	type task struct {
		ID     string `json:"id"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
		Artifacts []struct {
			Parts []part `json:"parts"`
		} `json:"artifacts"`
	}
	type run struct {
		ProtocolVersion string `json:"protocolVersion"`
		Send            task   `json:"send"`
		Stream          []struct {
			Kind   string `json:"kind"`
			Append bool   `json:"append"`
			Parts  []part `json:"parts"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
			Task task `json:"task"`
		} `json:"stream"`
		Get task `json:"get"`
	}
	var sum struct {
		Card struct {
			Name       string   `json:"name"`
			Streaming  bool     `json:"streaming"`
			Skills     []string `json:"skills"`
			Interfaces []struct {
				URL     string `json:"url"`
				Binding string `json:"binding"`
				Version string `json:"version"`
			} `json:"interfaces"`
		} `json:"card"`
		V10 run `json:"v10"`
		V03 run `json:"v03"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if sum.Card.Name != "a2a interop" || !sum.Card.Streaming || strings.Join(sum.Card.Skills, ",") != "echo,wordcount,reverse" ||
		len(sum.Card.Interfaces) < 2 || sum.Card.Interfaces[0].URL != n.APIURL()+httpapi.A2APath || sum.Card.Interfaces[0].Binding != "JSONRPC" {
		t.Fatalf("card as the SDK parsed it: %+v", sum.Card)
	}
	for _, r := range []struct {
		version string
		run     run
	}{{a2awire.Version10, sum.V10}, {a2awire.Version03, sum.V03}} {
		if r.run.ProtocolVersion != r.version {
			t.Fatalf("the SDK spoke %q, want %q", r.run.ProtocolVersion, r.version)
		}
		// The reply of the demo agent's reverse tool, unstreamed: {"text": "dlrow pda olleh"}.
		for _, tk := range []task{r.run.Send, r.run.Get} {
			if tk.ID != r.run.Send.ID || tk.Status.State != "TASK_STATE_COMPLETED" || len(tk.Artifacts) != 1 || len(tk.Artifacts[0].Parts) != 1 ||
				string(tk.Artifacts[0].Parts[0].Data) != `{"text":"dlrow pda olleh"}` {
				t.Fatalf("A2A %s task %+v, want completed with the reversed text", r.version, tk)
			}
		}
		// Streamed: one chunk per word, in the order the agent sent them.
		var kinds, chunks []string
		for _, ev := range r.run.Stream {
			switch ev.Kind {
			case "task":
				kinds = append(kinds, "task:"+ev.Task.Status.State)
			case "statusUpdate":
				kinds = append(kinds, "status:"+ev.Status.State)
			case "artifactUpdate":
				kinds = append(kinds, "artifact")
				if len(ev.Parts) != 1 || ev.Append != (len(chunks) > 0) {
					t.Fatalf("A2A %s artifact update %+v", r.version, ev)
				}
				chunks = append(chunks, string(ev.Parts[0].Data))
			}
		}
		want := "task:TASK_STATE_SUBMITTED status:TASK_STATE_WORKING artifact artifact artifact status:TASK_STATE_COMPLETED"
		if strings.Join(kinds, " ") != want || strings.Join(chunks, " ") != `{"text":"dlrow"} {"text":"pda"} {"text":"olleh"}` {
			t.Fatalf("A2A %s stream %v chunks %v, want %s", r.version, kinds, chunks, want)
		}
	}
}

// TestCallTool: the A2A server's way into the own agent serves the
// card's tools, whole or streamed, and nothing else.
func TestCallTool(t *testing.T) {
	n := startNode(t, testNode{demo: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	collect := func(chunk json.RawMessage) error { got = append(got, string(chunk)); return nil }
	if err := n.CallTool(ctx, "echo", []byte(`{"a":1}`), false, collect); err != nil || strings.Join(got, "|") != `{"a":1}` {
		t.Fatalf("echo: %v %q", err, got)
	}
	got = nil
	if err := n.CallTool(ctx, "reverse", []byte(`{"text":"ab cd"}`), true, collect); err != nil || strings.Join(got, "|") != `{"text":"dc"}|{"text":"ba"}` {
		t.Fatalf("reverse streamed: %v %q", err, got)
	}
	for _, tool := range []string{"nope", "adp.describe", "bad name"} {
		err := n.CallTool(ctx, tool, []byte(`{}`), false, collect)
		var ae *aitp.Error
		if !errors.As(err, &ae) || ae.Status != aitp.StatusNotFound {
			t.Fatalf("%s: %v, want NOT_FOUND", tool, err)
		}
	}
}
