package aitp_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/aitp"
)

var update = flag.Bool("update", false, "rewrite the golden vectors in testdata")

type vector struct {
	name string
	msg  aitp.Message
	seg  *aitp.Segment // encoded as the payload when set
}

func deadlineOpt(ms uint32) []byte {
	b, _ := aitp.AppendOption(nil, aitp.OptionDeadline, []byte{byte(ms >> 24), byte(ms >> 16), byte(ms >> 8), byte(ms)})
	return b
}

func vectors() []vector {
	aitpMsg := func(opts []byte) aitp.Message {
		return aitp.Message{Version: aitp.Version, TTL: aitp.DefaultTTL, NextProto: aitp.NextProtoAITP, Options: opts}
	}
	return []vector{
		{name: "request", msg: aitpMsg(deadlineOpt(1500)), seg: &aitp.Segment{
			Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 0x01020304, RequestID: 7,
			Method: []byte("adp.describe"), Body: []byte(`{"fields":["skills"]}`)}},
		{name: "request_stream_reply", msg: aitpMsg(nil), seg: &aitp.Segment{
			Type: aitp.TypeRequest, Flags: aitp.FlagFin | aitp.FlagStreamReply, Association: 9, RequestID: 1,
			Method: []byte("tokens")}},
		{name: "response_ok", msg: aitpMsg(nil), seg: &aitp.Segment{
			Type: aitp.TypeResponse, Flags: aitp.FlagFin, Status: aitp.StatusOK, Association: 9, RequestID: 1,
			Sequence: 2, Body: []byte(`{"stored":true}`)}},
		{name: "response_busy", msg: aitpMsg(nil), seg: &aitp.Segment{
			Type: aitp.TypeResponse, Flags: aitp.FlagFin, Status: aitp.StatusBusy, Association: 9, RequestID: 3,
			Body: []byte(`{"code":"busy","message":"window of 64 requests exceeded"}`)}},
		{name: "stream_chunk", msg: aitpMsg(nil), seg: &aitp.Segment{
			Type: aitp.TypeStream, Association: 9, RequestID: 1, Sequence: 1, Body: []byte("chunk")}},
		{name: "open", msg: aitpMsg(nil), seg: &aitp.Segment{Type: aitp.TypeOpen, Association: 0xdeadbeef}},
		{name: "accept", msg: aitpMsg(nil), seg: &aitp.Segment{Type: aitp.TypeAccept, Association: 0xdeadbeef, Window: 64}},
		{name: "window", msg: aitpMsg(nil), seg: &aitp.Segment{Type: aitp.TypeWindow, Association: 0xdeadbeef, Window: 8}},
		{name: "close", msg: aitpMsg(nil), seg: &aitp.Segment{Type: aitp.TypeClose, Association: 0xdeadbeef}},
		{name: "addressed", msg: aitp.Message{Version: aitp.Version, TTL: 3, NextProto: aitp.NextProtoAITP,
			Src: []byte("agent://k51qzi5uqu5dgutdk6i1ynyzgkqngpha5xpgia3a5qqp4jsh0u4csozksxel3r"),
			Dst: []byte("agent://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8")},
			seg: &aitp.Segment{Type: aitp.TypePing, Association: 1, RequestID: 42}},
		{name: "control_too_big", msg: aitp.Message{Version: aitp.Version, TTL: aitp.DefaultTTL,
			NextProto: aitp.NextProtoControl, Payload: []byte{aitp.ControlTooBig, 0, 0, 4, 1, 0, 64, 1}}},
	}
}

func encodeVector(t *testing.T, v vector) []byte {
	t.Helper()
	m := v.msg
	if v.seg != nil {
		p, err := aitp.AppendSegment(nil, v.seg)
		if err != nil {
			t.Fatal(err)
		}
		m.Payload = p
	}
	b, err := aitp.AppendMessage(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGoldenVectors(t *testing.T) {
	for _, v := range vectors() {
		t.Run(v.name, func(t *testing.T) {
			enc := encodeVector(t, v)
			path := filepath.Join("testdata", v.name+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(hex.EncodeToString(enc)+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := hex.DecodeString(strings.TrimSpace(string(raw)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, want) {
				t.Fatalf("encoding changed:\n got %x\nwant %x", enc, want)
			}
			m, err := aitp.DecodeMessage(want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(m.Src, v.msg.Src) || !bytes.Equal(m.Dst, v.msg.Dst) || !bytes.Equal(m.Options, v.msg.Options) ||
				m.TTL != v.msg.TTL || m.NextProto != v.msg.NextProto {
				t.Fatalf("decoded header %+v differs from %+v", m, v.msg)
			}
			if v.seg == nil {
				return
			}
			s, err := aitp.DecodeSegment(m.Payload)
			if err != nil {
				t.Fatal(err)
			}
			if s.Type != v.seg.Type || s.Flags != v.seg.Flags || s.Status != v.seg.Status || s.Association != v.seg.Association ||
				s.RequestID != v.seg.RequestID || s.Sequence != v.seg.Sequence || s.Window != v.seg.Window ||
				!bytes.Equal(s.Method, v.seg.Method) || !bytes.Equal(s.Body, v.seg.Body) {
				t.Fatalf("decoded segment %+v differs from %+v", s, *v.seg)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	good := encodeVector(t, vectors()[0])
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, aitp.ErrMalformed},
		{"short header", good[:9], aitp.ErrMalformed},
		{"version 2", mut(func(b []byte) []byte { b[0] = 2; return b }), aitp.ErrVersion},
		{"total too big", mut(func(b []byte) []byte { b[5]++; return b }), aitp.ErrMalformed},
		{"total too small", mut(func(b []byte) []byte { b[5]--; return b }), aitp.ErrMalformed},
		{"options overrun", mut(func(b []byte) []byte { b[7] = 0xff; return b }), aitp.ErrMalformed},
		{"src overrun", mut(func(b []byte) []byte { b[8] = 0xff; return b }), aitp.ErrMalformed},
		{"option type 0", mut(func(b []byte) []byte { b[10] = 0; return b }), aitp.ErrMalformed},
		{"option length overrun", mut(func(b []byte) []byte { b[11] = 5; return b }), aitp.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := aitp.DecodeMessage(tt.in); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
	m, _ := aitp.DecodeMessage(good)
	seg := append([]byte(nil), m.Payload...)
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"short", seg[:19]},
		{"method_len overruns", func() []byte { b := append([]byte(nil), seg...); b[3] = 0xff; return b }()},
		{"body_length short", func() []byte { b := append([]byte(nil), seg...); b[19]--; return b }()},
		{"trailing octet", append(append([]byte(nil), seg...), 0)},
	} {
		t.Run("segment "+tt.name, func(t *testing.T) {
			if _, err := aitp.DecodeSegment(tt.in); !errors.Is(err, aitp.ErrMalformed) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestEncodeBounds(t *testing.T) {
	big := make([]byte, aitp.MaxMessageSize)
	if _, err := aitp.AppendMessage(nil, &aitp.Message{Version: 1, Payload: big}); !errors.Is(err, aitp.ErrTooLarge) {
		t.Fatalf("oversized message: %v", err)
	}
	if _, err := aitp.AppendMessage(nil, &aitp.Message{Version: 1, Src: make([]byte, 256)}); !errors.Is(err, aitp.ErrTooLarge) {
		t.Fatalf("long src: %v", err)
	}
	if _, err := aitp.AppendSegment(nil, &aitp.Segment{Method: make([]byte, 256)}); !errors.Is(err, aitp.ErrBadMethod) {
		t.Fatalf("long method: %v", err)
	}
	if _, err := aitp.AppendSegment(nil, &aitp.Segment{Body: make([]byte, aitp.MaxBodyPerMessage+1)}); !errors.Is(err, aitp.ErrTooLarge) {
		t.Fatalf("long body: %v", err)
	}
	// The largest message is exactly MaxMessageSize octets.
	b, err := aitp.AppendMessage(nil, &aitp.Message{Version: 1, Payload: big[:aitp.MaxMessageSize-aitp.MessageHeaderSize]})
	if err != nil || len(b) != aitp.MaxMessageSize {
		t.Fatalf("largest message: %d octets, %v", len(b), err)
	}
}

func TestValidMethod(t *testing.T) {
	for m, want := range map[string]bool{
		"adp.describe": true, "a": true, strings.Repeat("m", 255): true, "métier.run": true,
		"": false, strings.Repeat("m", 256): false, "has space": false, "tab\t": false, "nul\x00": false, "\xff\xfe": false,
	} {
		if got := aitp.ValidMethod(m); got != want {
			t.Errorf("ValidMethod(%q) = %v, want %v", m, got, want)
		}
	}
}

func TestDecodeDoesNotAllocate(t *testing.T) {
	in := encodeVector(t, vectors()[0])
	allocs := testing.AllocsPerRun(100, func() {
		m, err := aitp.DecodeMessage(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := aitp.DecodeSegment(m.Payload); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("decode allocates %v times", allocs)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, v := range vectors() {
		m := v.msg
		if v.seg != nil {
			m.Payload, _ = aitp.AppendSegment(nil, v.seg)
		}
		b, _ := aitp.AppendMessage(nil, &m)
		f.Add(b)
	}
	f.Add([]byte{1, 0, 0, 0, 0, 10, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := aitp.DecodeMessage(in)
		if err != nil {
			return
		}
		if cap(m.Payload) > len(in) || len(m.Src) > aitp.MaxAddressLen || len(m.Dst) > aitp.MaxAddressLen {
			t.Fatalf("decoded fields exceed their bounds")
		}
		out, err := aitp.AppendMessage(nil, &m)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("round trip:\n in %x\nout %x", in, out)
		}
	})
}

func FuzzDecodeSegment(f *testing.F) {
	for _, v := range vectors() {
		if v.seg != nil {
			b, _ := aitp.AppendSegment(nil, v.seg)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := aitp.DecodeSegment(in)
		if err != nil {
			return
		}
		if len(s.Method) > aitp.MaxMethodLen || cap(s.Body) > len(in) {
			t.Fatalf("decoded fields exceed their bounds")
		}
		out, err := aitp.AppendSegment(nil, &s)
		if err != nil {
			if len(s.Body) > aitp.MaxBodyPerMessage {
				return // decodable alone, but cannot fit in a message
			}
			t.Fatalf("re-encode: %v", err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("round trip:\n in %x\nout %x", in, out)
		}
	})
}
