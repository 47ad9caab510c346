package store

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var (
	goldenTime = time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	goldenCard = []byte(`{"id":"agent://k51example","name":"echo"}`)
)

// goldenValues are the v1 encodings pinned by testdata/values_v1.hex: a
// change of layout must add a version, not change these.
func goldenValues() map[string][]byte {
	return map[string][]byte{
		"record":               encodeRecord(header{Source: SourceGossip, Origin: "12D3KooWorigin", ReceivedAt: goldenTime, ExpiresAt: goldenTime.Add(time.Hour)}, goldenCard),
		"record-never-expires": encodeRecord(header{Source: SourceSelf, ReceivedAt: goldenTime}, goldenCard),
		"stats": encodeStats(statsRecord{Calls: 300, Successes: 299, Failures: 1, LatencyNanos: 123456789,
			Completed: 7, RatingCount: 2, RatingSum: 9, LastSeen: goldenTime, LastCall: goldenTime.Add(time.Second)}),
		"rating": encodeRating(4, goldenTime),
	}
}

func TestGoldenValues(t *testing.T) {
	path := filepath.Join("testdata", "values_v1.hex")
	vals := goldenValues()
	names := []string{"record", "record-never-expires", "stats", "rating"}
	if *update {
		var b strings.Builder
		for _, n := range names {
			b.WriteString(n + " " + hex.EncodeToString(vals[n]) + "\n")
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, hx, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("bad golden line %q", line)
		}
		want, err := hex.DecodeString(hx)
		if err != nil {
			t.Fatal(err)
		}
		if got := vals[name]; !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %x\nwant %x", name, got, want)
		}
		seen++
	}
	if seen != len(names) {
		t.Fatalf("golden file has %d values, want %d", seen, len(names))
	}
	// The pinned bytes decode to what was encoded.
	h, raw, err := decodeRecord(vals["record"])
	if err != nil || !bytes.Equal(raw, goldenCard) || h.Source != SourceGossip || h.Origin != "12D3KooWorigin" ||
		!h.ReceivedAt.Equal(goldenTime) || !h.ExpiresAt.Equal(goldenTime.Add(time.Hour)) {
		t.Fatalf("record decodes to %+v %q %v", h, raw, err)
	}
	if h, _, _ := decodeRecord(vals["record-never-expires"]); !h.ExpiresAt.IsZero() {
		t.Fatalf("zero expiry decodes to %v", h.ExpiresAt)
	}
	st, err := decodeStats(vals["stats"])
	if err != nil || st.Calls != 300 || st.RatingSum != 9 || !st.LastCall.Equal(goldenTime.Add(time.Second)) {
		t.Fatalf("stats decode to %+v %v", st, err)
	}
	if stars, at, err := decodeRating(vals["rating"]); err != nil || stars != 4 || !at.Equal(goldenTime) {
		t.Fatalf("rating decodes to %d %v %v", stars, at, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	rec := goldenValues()["record"]
	recordCases := map[string][]byte{
		"empty":           nil,
		"unknown version": append([]byte{2}, rec[1:]...),
		"truncated":       rec[:5],
		"no card":         encodeRecord(header{Source: SourceGossip}, nil),
		"long source":     append([]byte{1, 200}, bytes.Repeat([]byte("x"), 200)...),
	}
	for name, v := range recordCases {
		if _, _, err := decodeRecord(v); err == nil {
			t.Errorf("record %s: decoded", name)
		}
	}
	st := goldenValues()["stats"]
	statsCases := map[string][]byte{
		"empty":        nil,
		"version":      append([]byte{9}, st[1:]...),
		"trailing":     append(bytes.Clone(st), 0),
		"truncated":    st[:len(st)-1],
		"inconsistent": encodeStats(statsRecord{Calls: 1, Successes: 2}),
		"rating sum":   encodeStats(statsRecord{RatingCount: 1, RatingSum: 6}),
	}
	for name, v := range statsCases {
		if _, err := decodeStats(v); err == nil {
			t.Errorf("stats %s: decoded", name)
		}
	}
	for name, v := range map[string][]byte{
		"empty": nil, "version": {2, 3, 0}, "zero stars": {1, 0, 0}, "six stars": {1, 6, 0}, "trailing": {1, 3, 0, 0},
	} {
		if _, _, err := decodeRating(v); err == nil {
			t.Errorf("rating %s: decoded", name)
		}
	}
}

// FuzzDecodeRecord: decoding never panics, and what decodes re-encodes to
// a value that decodes to the same record.
func FuzzDecodeRecord(f *testing.F) {
	for _, v := range goldenValues() {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		h, raw, err := decodeRecord(v)
		if err != nil {
			return
		}
		h2, raw2, err := decodeRecord(encodeRecord(h, raw))
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if h2.Source != h.Source || h2.Origin != h.Origin || !h2.ReceivedAt.Equal(h.ReceivedAt) ||
			!h2.ExpiresAt.Equal(h.ExpiresAt) || !bytes.Equal(raw, raw2) {
			t.Fatalf("round trip changed %+v %q into %+v %q", h, raw, h2, raw2)
		}
	})
}

// FuzzDecodeStats: the same property for interaction counters.
func FuzzDecodeStats(f *testing.F) {
	f.Add(goldenValues()["stats"])
	f.Add(goldenValues()["rating"])
	f.Fuzz(func(t *testing.T, v []byte) {
		s, err := decodeStats(v)
		if err != nil {
			return
		}
		s2, err := decodeStats(encodeStats(s))
		if err != nil {
			t.Fatalf("re-encoded stats do not decode: %v", err)
		}
		if !s2.LastSeen.Equal(s.LastSeen) || !s2.LastCall.Equal(s.LastCall) {
			t.Fatalf("times changed")
		}
		s2.LastSeen, s2.LastCall = s.LastSeen, s.LastCall
		if s2 != s {
			t.Fatalf("round trip changed %+v into %+v", s, s2)
		}
	})
}
