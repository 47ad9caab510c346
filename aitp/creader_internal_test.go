package aitp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// stutterReader hands out at most step octets per read and fails every
// other read with a timeout, like a stream whose reader is interrupted.
type stutterReader struct {
	data []byte
	step int
	n    int
}

func (r *stutterReader) Read(p []byte) (int, error) {
	r.n++
	if r.n%2 == 0 {
		return 0, os.ErrDeadlineExceeded
	}
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.step, len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// TestFrameReaderResumes: interrupted reads in the middle of headers and
// bodies lose nothing; the messages come out whole and in order.
func TestFrameReaderResumes(t *testing.T) {
	var stream []byte
	var want [][]byte
	for i, n := range []int{0, 3, 100, 5000, MaxBodyPerMessage} {
		seg := Segment{Type: TypeStream, RequestID: uint32(i), Body: bytes.Repeat([]byte{byte(i)}, n)}
		p, err := AppendSegment(nil, &seg)
		if err != nil {
			t.Fatal(err)
		}
		m, err := AppendMessage(nil, &Message{Version: Version, TTL: DefaultTTL, NextProto: NextProtoAITP, Payload: p})
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, m...)
		want = append(want, m)
	}
	for _, step := range []int{1, 7, 4096} {
		fr := frameReader{br: bufio.NewReaderSize(&stutterReader{data: stream, step: step}, 16), buf: make([]byte, MaxMessageSize)}
		var got [][]byte
		timeouts := 0
		for {
			m, err := fr.next()
			if errors.Is(err, os.ErrDeadlineExceeded) {
				timeouts++
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			got = append(got, append([]byte(nil), m...))
		}
		if timeouts == 0 || len(got) != len(want) {
			t.Fatalf("step %d: %d messages after %d timeouts, want %d", step, len(got), timeouts, len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("step %d: message %d differs", step, i)
			}
		}
	}
}
