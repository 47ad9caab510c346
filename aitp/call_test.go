package aitp_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/adpnode/adpnode/aitp"
)

func echo(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	_, err := w.Write(r.Body)
	return err
}

func TestCallEcho(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	srv.HandleFunc("echo", echo)
	for _, n := range []int{0, 1, 100, aitp.MaxBodyPerMessage, 200_000, aitp.DefaultMaxRequestBody} {
		body := bytes.Repeat([]byte{'x'}, n)
		got, err := cl.Call(ctxT(t), hs.ID(), "echo", body)
		if err != nil {
			t.Fatalf("%d octets: %v", n, err)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("%d octets: echo returned %d octets", n, len(got))
		}
	}
	_, err := cl.Call(ctxT(t), hs.ID(), "nope", nil)
	var e *aitp.Error
	if !errors.As(err, &e) || e.Status != aitp.StatusNotFound || e.Code != aitp.CodeNotFound {
		t.Fatalf("unknown method: %v", err)
	}
}
