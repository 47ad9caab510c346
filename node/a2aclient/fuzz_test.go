package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzReply feeds arbitrary bytes to the reply path of a call: as a
// JSON-RPC response body and as a server-sent event stream. Properties:
// no panic; a value returned is valid JSON; a failure is one of the
// package's error classes.
func FuzzReply(f *testing.F) {
	const id = "adpnode-1"
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"adpnode-1","result":{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"parts":[{"text":"x"},{"data":{"a":1}}]}]}}}`,
		`{"jsonrpc":"2.0","id":"adpnode-1","result":{"kind":"message","parts":[{"kind":"file","file":{"bytes":"AA=="}}]}}`,
		`{"jsonrpc":"2.0","id":"adpnode-1","error":{"code":-32601,"message":"no"}}`,
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"adpnode-1\",\"result\":{\"artifactUpdate\":{\"artifact\":{\"parts\":[{\"text\":\"a\"}]}}}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"adpnode-1\",\"result\":{\"statusUpdate\":{\"status\":{\"state\":\"TASK_STATE_FAILED\"}}}}\n\n",
	} {
		f.Add([]byte(s))
	}
	classified := func(t *testing.T, err error) {
		var re *RemoteError
		var te *TaskError
		if err != nil && !errors.Is(err, ErrBadReply) && !errors.As(err, &re) && !errors.As(err, &te) {
			t.Fatalf("unclassified error %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		result, err := decodeResponse(data, id)
		if err == nil {
			var ev *event
			if ev, err = decodeEvent(result); err == nil {
				var v json.RawMessage
				if v, err = ev.final(); err == nil && !json.Valid(v) {
					t.Fatalf("value %q is not JSON", v)
				}
			}
		}
		classified(t, err)

		c := New(WithMaxReply(1 << 16))
		s := &streamState{fn: func(v json.RawMessage) error {
			if !json.Valid(v) {
				t.Fatalf("chunk %q is not JSON", v)
			}
			return nil
		}}
		err = c.readEvents(context.Background(), "http://x", bytes.NewReader(data), func(raw []byte) (json.RawMessage, error) { return decodeResponse(raw, id) }, s.event)
		if errors.Is(err, ErrUnreachable) {
			t.Fatalf("a stream read from memory is unreachable: %v", err)
		}
		classified(t, err)
	})
}
