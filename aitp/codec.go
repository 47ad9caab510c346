package aitp

import (
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf8"
)

// Message is a decoded AIP message. Decoding does not copy: Src, Dst,
// Options and Payload alias the input.
type Message struct {
	Version   uint8
	Flags     uint8
	TTL       uint8
	NextProto uint8
	Src, Dst  []byte
	Options   []byte // the encoded TLV options, see ForEachOption
	Payload   []byte
}

// Segment is a decoded AITP segment. Method and Body alias the input.
type Segment struct {
	Type        SegmentType
	Flags       uint8
	Status      Status
	Association uint32
	RequestID   uint32
	Sequence    uint32
	Window      uint16
	Method      []byte
	Body        []byte
}

// EncodedLen is the size of m once encoded.
func (m *Message) EncodedLen() int {
	return MessageHeaderSize + len(m.Src) + len(m.Dst) + len(m.Options) + len(m.Payload)
}

// AppendMessage appends the encoding of m to dst. It checks every length
// bound and the options' TLV structure; m.Version is written as given.
func AppendMessage(dst []byte, m *Message) ([]byte, error) {
	if len(m.Src) > MaxAddressLen || len(m.Dst) > MaxAddressLen {
		return dst, fmt.Errorf("%w: address longer than %d octets", ErrTooLarge, MaxAddressLen)
	}
	if err := checkOptions(m.Options); err != nil {
		return dst, err
	}
	n := m.EncodedLen()
	if n > MaxMessageSize {
		return dst, fmt.Errorf("%w: %d octets", ErrTooLarge, n)
	}
	dst = append(dst, m.Version, m.Flags, m.TTL, m.NextProto)
	dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(m.Options)))
	dst = append(dst, byte(len(m.Src)), byte(len(m.Dst)))
	dst = append(dst, m.Src...)
	dst = append(dst, m.Dst...)
	dst = append(dst, m.Options...)
	return append(dst, m.Payload...), nil
}

// DecodeMessage decodes exactly one AIP message occupying all of b. It
// never allocates.
func DecodeMessage(b []byte) (Message, error) {
	var m Message
	if len(b) < MessageHeaderSize {
		return m, fmt.Errorf("%w: %d octets, header needs %d", ErrMalformed, len(b), MessageHeaderSize)
	}
	if len(b) > MaxMessageSize {
		return m, fmt.Errorf("%w: %d octets", ErrTooLarge, len(b))
	}
	m.Version, m.Flags, m.TTL, m.NextProto = b[0], b[1], b[2], b[3]
	if m.Version != Version {
		return m, fmt.Errorf("%w: %d", ErrVersion, m.Version)
	}
	total := int(binary.BigEndian.Uint16(b[4:]))
	if total != len(b) {
		return m, fmt.Errorf("%w: total_length %d, have %d octets", ErrMalformed, total, len(b))
	}
	optLen := int(binary.BigEndian.Uint16(b[6:]))
	srcLen, dstLen := int(b[8]), int(b[9])
	off := MessageHeaderSize
	if off+srcLen+dstLen+optLen > total {
		return m, fmt.Errorf("%w: address and option lengths exceed total_length", ErrMalformed)
	}
	m.Src = b[off : off+srcLen : off+srcLen]
	off += srcLen
	m.Dst = b[off : off+dstLen : off+dstLen]
	off += dstLen
	m.Options = b[off : off+optLen : off+optLen]
	off += optLen
	m.Payload = b[off:total:total]
	if err := checkOptions(m.Options); err != nil {
		return m, err
	}
	return m, nil
}

// checkOptions verifies the TLV structure (type 0 is invalid; every length
// stays inside the region).
func checkOptions(b []byte) error {
	return ForEachOption(b, func(uint8, []byte) error { return nil })
}

// ForEachOption calls fn for each option in the encoded TLV region b, in
// order. It stops at the first error fn returns.
func ForEachOption(b []byte, fn func(typ uint8, value []byte) error) error {
	for len(b) > 0 {
		if len(b) < 2 {
			return fmt.Errorf("%w: truncated option", ErrMalformed)
		}
		typ, n := b[0], int(b[1])
		if typ == 0 {
			return fmt.Errorf("%w: option type 0", ErrMalformed)
		}
		if 2+n > len(b) {
			return fmt.Errorf("%w: option %d overruns the options", ErrMalformed, typ)
		}
		if err := fn(typ, b[2:2+n:2+n]); err != nil {
			return err
		}
		b = b[2+n:]
	}
	return nil
}

// AppendOption appends one TLV option to dst.
func AppendOption(dst []byte, typ uint8, value []byte) ([]byte, error) {
	if typ == 0 || len(value) > 255 {
		return dst, fmt.Errorf("%w: option type %d, %d octets", ErrMalformed, typ, len(value))
	}
	dst = append(dst, typ, byte(len(value)))
	return append(dst, value...), nil
}

// appendDeadline appends an OptionDeadline of ms milliseconds.
func appendDeadline(dst []byte, ms uint32) []byte {
	dst = append(dst, OptionDeadline, 4)
	return binary.BigEndian.AppendUint32(dst, ms)
}

// EncodedLen is the size of s once encoded.
func (s *Segment) EncodedLen() int {
	return SegmentHeaderSize + len(s.Method) + len(s.Body)
}

// AppendSegment appends the encoding of s to dst.
func AppendSegment(dst []byte, s *Segment) ([]byte, error) {
	if len(s.Method) > MaxMethodLen {
		return dst, fmt.Errorf("%w: %d octets", ErrBadMethod, len(s.Method))
	}
	if len(s.Body) > MaxBodyPerMessage {
		return dst, fmt.Errorf("%w: %d octets in one segment", ErrTooLarge, len(s.Body))
	}
	dst = appendSegmentHeader(dst, s)
	dst = append(dst, s.Method...)
	return append(dst, s.Body...), nil
}

func appendSegmentHeader(dst []byte, s *Segment) []byte {
	dst = append(dst, byte(s.Type), s.Flags, byte(s.Status), byte(len(s.Method)))
	dst = binary.BigEndian.AppendUint32(dst, s.Association)
	dst = binary.BigEndian.AppendUint32(dst, s.RequestID)
	dst = binary.BigEndian.AppendUint32(dst, s.Sequence)
	dst = binary.BigEndian.AppendUint16(dst, s.Window)
	return binary.BigEndian.AppendUint16(dst, uint16(len(s.Body)))
}

// DecodeSegment decodes exactly one AITP segment occupying all of b. It
// checks lengths only; the type, flags and method are checked by the
// endpoint (see ValidMethod). It never allocates.
func DecodeSegment(b []byte) (Segment, error) {
	var s Segment
	if len(b) < SegmentHeaderSize {
		return s, fmt.Errorf("%w: segment of %d octets, header needs %d", ErrMalformed, len(b), SegmentHeaderSize)
	}
	s.Type, s.Flags, s.Status = SegmentType(b[0]), b[1], Status(b[2])
	ml := int(b[3])
	s.Association = binary.BigEndian.Uint32(b[4:])
	s.RequestID = binary.BigEndian.Uint32(b[8:])
	s.Sequence = binary.BigEndian.Uint32(b[12:])
	s.Window = binary.BigEndian.Uint16(b[16:])
	bl := int(binary.BigEndian.Uint16(b[18:]))
	if SegmentHeaderSize+ml+bl != len(b) {
		return s, fmt.Errorf("%w: method_len %d + body_length %d disagree with %d octets", ErrMalformed, ml, bl, len(b)-SegmentHeaderSize)
	}
	off := SegmentHeaderSize
	s.Method = b[off : off+ml : off+ml]
	s.Body = b[off+ml : len(b) : len(b)]
	return s, nil
}

// ValidMethod reports whether m is an acceptable method name: 1 to 255
// octets of UTF-8 with no control characters or spaces.
func ValidMethod[T string | []byte](m T) bool {
	if len(m) == 0 || len(m) > MaxMethodLen {
		return false
	}
	for i := 0; i < len(m); i++ {
		if c := m[i]; c <= ' ' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid([]byte(m))
}

// readMessage reads one AIP message from r into buf (which must hold
// MaxMessageSize octets) and returns the slice holding it. A header that
// cannot start a valid message is an error without reading further.
func readMessage(r io.Reader, buf []byte) ([]byte, error) {
	if _, err := io.ReadFull(r, buf[:MessageHeaderSize]); err != nil {
		return nil, err
	}
	if buf[0] != Version {
		return nil, fmt.Errorf("%w: %d", ErrVersion, buf[0])
	}
	total := int(binary.BigEndian.Uint16(buf[4:]))
	if total < MessageHeaderSize {
		return nil, fmt.Errorf("%w: total_length %d", ErrMalformed, total)
	}
	if _, err := io.ReadFull(r, buf[MessageHeaderSize:total]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf[:total], nil
}

// frameHeaderMax is the largest header writeFrame emits before method and
// body: the AIP header, a deadline option and the segment header.
const frameHeaderMax = MessageHeaderSize + 6 + SegmentHeaderSize

// appendFrameHeader appends the AIP header (empty addresses, next_proto
// AITP, the given options) and the segment header for s; the caller
// writes s.Method and s.Body after it. It returns an error when the frame
// would exceed MaxMessageSize.
func appendFrameHeader(dst []byte, opts []byte, s *Segment, extraMethod int) ([]byte, error) {
	ml := len(s.Method) + extraMethod
	total := MessageHeaderSize + len(opts) + SegmentHeaderSize + ml + len(s.Body)
	if total > MaxMessageSize || ml > MaxMethodLen {
		return dst, fmt.Errorf("%w: frame of %d octets", ErrTooLarge, total)
	}
	dst = append(dst, Version, 0, DefaultTTL, NextProtoAITP)
	dst = binary.BigEndian.AppendUint16(dst, uint16(total))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(opts)))
	dst = append(dst, 0, 0)
	dst = append(dst, opts...)
	dst = append(dst, byte(s.Type), s.Flags, byte(s.Status), byte(ml))
	dst = binary.BigEndian.AppendUint32(dst, s.Association)
	dst = binary.BigEndian.AppendUint32(dst, s.RequestID)
	dst = binary.BigEndian.AppendUint32(dst, s.Sequence)
	dst = binary.BigEndian.AppendUint16(dst, s.Window)
	return binary.BigEndian.AppendUint16(dst, uint16(len(s.Body))), nil
}

// maxChunk is the body room of one frame with the given options and method.
func maxChunk(optLen, methodLen int) int {
	return MaxMessageSize - MessageHeaderSize - optLen - SegmentHeaderSize - methodLen
}
