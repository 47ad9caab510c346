package node_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/adpnode/adpnode/aitp"
)

// TestDestinationIsAgentID: a message addressed (dst) to the node's own
// agent id is served; one addressed to another agent is refused with
// DESTINATION_UNKNOWN.
func TestDestinationIsAgentID(t *testing.T) {
	a := startNode(t, testNode{name: "a", noAPI: true})
	b := startNode(t, testNode{name: "b", noAPI: true, bootstrap: []string{addrOf(t, a)}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := b.Host().NewStream(ctx, a.PeerID(), aitp.ProtocolID)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Reset()
	st.SetDeadline(time.Now().Add(15 * time.Second))
	br := bufio.NewReader(st)
	send := func(dst string, s *aitp.Segment) {
		t.Helper()
		p, err := aitp.AppendSegment(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		m, err := aitp.AppendMessage(nil, &aitp.Message{Version: aitp.Version, TTL: aitp.DefaultTTL, NextProto: aitp.NextProtoAITP, Dst: []byte(dst), Payload: p})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() aitp.Message {
		t.Helper()
		hdr := make([]byte, aitp.MessageHeaderSize)
		if _, err := io.ReadFull(br, hdr); err != nil {
			t.Fatal(err)
		}
		buf := append(hdr, make([]byte, int(binary.BigEndian.Uint16(hdr[4:]))-len(hdr))...)
		if _, err := io.ReadFull(br, buf[aitp.MessageHeaderSize:]); err != nil {
			t.Fatal(err)
		}
		m, err := aitp.DecodeMessage(buf)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	segment := func(m aitp.Message) aitp.Segment {
		t.Helper()
		if m.NextProto != aitp.NextProtoAITP {
			t.Fatalf("got next_proto %d payload %x, want a segment", m.NextProto, m.Payload)
		}
		s, err := aitp.DecodeSegment(m.Payload)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	send(a.AgentID(), &aitp.Segment{Type: aitp.TypeOpen, Association: 1})
	if s := segment(recv()); s.Type != aitp.TypeAccept {
		t.Fatalf("OPEN addressed to %s: got %v, want ACCEPT", a.AgentID(), s.Type)
	}
	send(a.AgentID(), &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 1, RequestID: 1, Method: []byte("adp.describe")})
	if s := segment(recv()); s.Type != aitp.TypeResponse || s.Status != aitp.StatusOK {
		t.Fatalf("adp.describe addressed to the node: got %v status %v, want an OK RESPONSE", s.Type, s.Status)
	}
	send(b.AgentID(), &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 1, RequestID: 2, Method: []byte("adp.describe")})
	if m := recv(); m.NextProto != aitp.NextProtoControl || len(m.Payload) == 0 || m.Payload[0] != aitp.ControlDestinationUnknown {
		t.Fatalf("addressed to another agent: got next_proto %d payload %x, want DESTINATION_UNKNOWN", m.NextProto, m.Payload)
	}
}
