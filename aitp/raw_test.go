package aitp_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/aitp"
)

// rawConn speaks the wire directly, as a hostile or simple peer would.
type rawConn struct {
	t  testing.TB
	st network.Stream
	br *bufio.Reader
}

func dialRaw(t testing.TB, from host.Host, to peer.ID) *rawConn {
	t.Helper()
	st, err := from.NewStream(ctxT(t), to, aitp.ProtocolID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Reset() })
	return &rawConn{t: t, st: st, br: bufio.NewReader(st)}
}

func frame(t testing.TB, opts []byte, s *aitp.Segment) []byte {
	t.Helper()
	p, err := aitp.AppendSegment(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := aitp.AppendMessage(nil, &aitp.Message{Version: aitp.Version, TTL: aitp.DefaultTTL, NextProto: aitp.NextProtoAITP, Options: opts, Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (r *rawConn) send(opts []byte, s *aitp.Segment) {
	r.t.Helper()
	if _, err := r.st.Write(frame(r.t, opts, s)); err != nil {
		r.t.Fatal(err)
	}
}

// recv reads one message; it returns the decoded message and segment
// (the segment is zero for control messages).
func (r *rawConn) recv() (aitp.Message, aitp.Segment, error) {
	r.st.SetReadDeadline(time.Now().Add(10 * time.Second))
	hdr := make([]byte, aitp.MessageHeaderSize)
	if _, err := io.ReadFull(r.br, hdr); err != nil {
		return aitp.Message{}, aitp.Segment{}, err
	}
	total := int(binary.BigEndian.Uint16(hdr[4:]))
	buf := make([]byte, total)
	copy(buf, hdr)
	if _, err := io.ReadFull(r.br, buf[aitp.MessageHeaderSize:]); err != nil {
		return aitp.Message{}, aitp.Segment{}, err
	}
	m, err := aitp.DecodeMessage(buf)
	if err != nil {
		r.t.Fatalf("server sent a malformed message: %v", err)
	}
	if m.NextProto != aitp.NextProtoAITP {
		return m, aitp.Segment{}, nil
	}
	s, err := aitp.DecodeSegment(m.Payload)
	if err != nil {
		r.t.Fatalf("server sent a malformed segment: %v", err)
	}
	return m, s, nil
}

func (r *rawConn) mustRecv() aitp.Segment {
	r.t.Helper()
	_, s, err := r.recv()
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// open performs OPEN / ACCEPT and returns the window.
func (r *rawConn) open(assoc uint32) int {
	r.t.Helper()
	r.send(nil, &aitp.Segment{Type: aitp.TypeOpen, Association: assoc})
	s := r.mustRecv()
	if s.Type != aitp.TypeAccept || s.Association != assoc {
		r.t.Fatalf("got %v, want ACCEPT", s.Type)
	}
	return int(s.Window)
}

// expectReset waits until the server ends the stream.
func (r *rawConn) expectReset() {
	r.t.Helper()
	for {
		_, _, err := r.recv()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			r.t.Fatal("the server kept the stream open")
		}
		if err != nil {
			return
		}
	}
}
