package dht_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"
	mh "github.com/multiformats/go-multihash"

	"github.com/adpnode/adpnode/dht"
)

func TestTagCID(t *testing.T) {
	c, err := dht.TagCID("nlp")
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != 1 || c.Type() != cid.Raw {
		t.Fatalf("CID version %d codec %x, want 1 raw", c.Version(), c.Type())
	}
	dec, err := mh.Decode(c.Hash())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("adp-skill:nlp"))
	if dec.Code != mh.SHA2_256 || !bytes.Equal(dec.Digest, sum[:]) {
		t.Fatalf("multihash %x %x, want sha2-256 of adp-skill:nlp", dec.Code, dec.Digest)
	}
	// Golden: the CID string other implementations must reproduce.
	const golden = "bafkreib2pr6rqcd5a3dflzlqyd5igsqd6si5q4olgxd7p5jzvnjnoa7gxi"
	if c.String() != golden {
		t.Fatalf("TagCID(nlp) = %s, want %s", c, golden)
	}
	other, _ := dht.TagCID("nlp/translation")
	if other.Equals(c) {
		t.Fatal("two tags share a CID")
	}
	for _, bad := range []string{"", strings.Repeat("a", dht.MaxTagLen+1)} {
		if _, err := dht.TagCID(bad); !errors.Is(err, dht.ErrBadTag) {
			t.Errorf("TagCID(%d octets) = %v, want ErrBadTag", len(bad), err)
		}
	}
}
