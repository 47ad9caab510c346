package adp_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/gowebpki/jcs"
)

func addSeeds(f *testing.F) {
	f.Add([]byte(fullCard))
	f.Add([]byte(`{"id":"agent://x","name":"n","tools":[],"endpoints":[]}`))
	f.Add([]byte(`{"a":{"b":[1,2,{"c":"\u00e9\ud800"}]},"seq":1e3}`))
	f.Add([]byte(`{"name":"","description":"\/","x":"\u0000"}`))
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	more, _ := filepath.Glob(filepath.Join("testdata", "interop", "*.json"))
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
}

// FuzzParseCard checks that parsing never panics and that parse -> marshal
// -> parse is stable: the second encoding equals the first.
func FuzzParseCard(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := adp.ParseCard(data)
		if err != nil {
			return
		}
		out, err := c.MarshalJSON()
		if err != nil {
			t.Fatalf("marshal of a parsed card: %v", err)
		}
		c2, err := adp.ParseCard(out)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		out2, err := c2.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding not stable:\n%s\n%s", out, out2)
		}
	})
}

// FuzzValidate checks that validation never panics, always explains itself,
// and that a valid card stays valid through an encode round trip.
func FuzzValidate(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := adp.ParseCard(data)
		if err != nil {
			return
		}
		err = c.Validate()
		if err != nil {
			var ve *adp.ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("Validate error without problems: %v", err)
			}
			return
		}
		out, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		c2, err := adp.ParseCard(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if err := c2.Validate(); err != nil {
			t.Fatalf("valid card became invalid after a round trip: %v\n%s", err, out)
		}
	})
}

// FuzzVerify checks that the network gate never panics and that a card it
// accepts is also accepted in its JCS form (verification depends on the
// content, not on its formatting).
func FuzzVerify(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := adp.DecodeVerified(data)
		if err != nil {
			return
		}
		if err := c.Verify(); err != nil {
			t.Fatalf("Verify disagrees with DecodeVerified: %v", err)
		}
		canon, err := jcs.Transform(data)
		if err != nil || len(canon) > adp.MaxCardSize {
			return
		}
		if _, err := adp.DecodeVerified(canon); err != nil {
			t.Fatalf("JCS form of a verified card fails: %v", err)
		}
	})
}
