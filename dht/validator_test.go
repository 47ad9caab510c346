package dht_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/cardtest"
)

func TestValidatorValidate(t *testing.T) {
	sk, other := newKey(t), newKey(t)
	p, _ := peer.IDFromPrivateKey(sk)
	q, _ := peer.IDFromPrivateKey(other)
	good := cardtest.Signed(t, sk, 1, "alpha", "nlp/translation")

	unsigned, err := (&adp.Card{ID: adp.AgentID(p), Name: "alpha"}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	big := cardtest.Signed(t, sk, 1, "alpha")
	big.Description = strings.Repeat("x", adp.MaxCardSize)
	bigRaw, err := big.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name  string
		key   string
		value []byte
		want  error
	}{
		{"valid", dht.Key(p), good.Raw(), nil},
		{"step 1: other namespace", "/pk/" + string(p), good.Raw(), dht.ErrBadKey},
		{"step 1: no peer id", "/adpcard/not-a-peer-id", good.Raw(), dht.ErrBadKey},
		{"step 1: empty key", "", good.Raw(), dht.ErrBadKey},
		{"step 2: oversized", dht.Key(p), bigRaw, adp.ErrTooLarge},
		{"step 3: not JSON", dht.Key(p), []byte("{not json"), adp.ErrMalformed},
		{"step 3: empty", dht.Key(p), nil, adp.ErrMalformed},
		{"step 3: unsigned", dht.Key(p), unsigned, adp.ErrUnsigned},
		{"step 3: tampered", dht.Key(p), cardtest.Tamper(t, good.Raw(), "alpha", "alphb"), adp.ErrBadSignature},
		{"step 4: key of another agent", dht.Key(q), good.Raw(), dht.ErrKeyMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := dht.Validator{}.Validate(tc.key, tc.value)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Validate = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestValidatorSelect(t *testing.T) {
	sk, other := newKey(t), newKey(t)
	p, _ := peer.IDFromPrivateKey(sk)
	key := dht.Key(p)
	v1 := cardtest.Signed(t, sk, 1, "alpha").Raw()
	v2 := cardtest.Signed(t, sk, 2, "alpha").Raw()
	v3 := cardtest.Signed(t, sk, 3, "alpha").Raw()
	// Same seq and updated_at, different content: neither supersedes.
	tieA := cardtest.Signed(t, sk, 4, "tie-a").Raw()
	tieB := cardtest.Signed(t, sk, 4, "tie-b").Raw()
	hi, lo := tieA, tieB
	if bytes.Compare(tieB, tieA) > 0 {
		hi, lo = tieB, tieA
	}
	forged := cardtest.Tamper(t, cardtest.Signed(t, sk, 9, "alpha").Raw(), "alpha", "alphb")
	foreign := cardtest.Signed(t, other, 9, "alpha").Raw()

	for _, tc := range []struct {
		name   string
		values [][]byte
		want   []byte // the selected value
		err    error
	}{
		{"single", [][]byte{v1}, v1, nil},
		{"newer first", [][]byte{v2, v1}, v2, nil},
		{"newer last", [][]byte{v1, v2}, v2, nil},
		{"newest in the middle", [][]byte{v1, v3, v2}, v3, nil},
		{"tie on card, greater bytes win", [][]byte{lo, hi}, hi, nil},
		{"tie on card, order does not matter", [][]byte{hi, lo}, hi, nil},
		{"forged higher seq loses", [][]byte{forged, v1}, v1, nil},
		{"card of another agent loses", [][]byte{foreign, v2}, v2, nil},
		{"garbage loses", [][]byte{[]byte("x"), v1}, v1, nil},
		{"none valid", [][]byte{forged, foreign, nil}, nil, dht.ErrNoValidValue},
		{"empty", nil, nil, dht.ErrNoValidValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, err := dht.Validator{}.Select(key, tc.values)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Select = %d, %v; want %v", i, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if !bytes.Equal(tc.values[i], tc.want) {
				t.Fatalf("Select picked %d (%.40q), want %.40q", i, tc.values[i], tc.want)
			}
		})
	}
}

func TestKeyRoundTrip(t *testing.T) {
	sk := newKey(t)
	p, _ := peer.IDFromPrivateKey(sk)
	got, err := dht.PeerFromKey(dht.Key(p))
	if err != nil || got != p {
		t.Fatalf("PeerFromKey(Key(p)) = %s, %v; want %s", got, err, p)
	}
	k, err := dht.KeyForAgent(adp.AgentID(p))
	if err != nil || k != dht.Key(p) {
		t.Fatalf("KeyForAgent = %q, %v", k, err)
	}
	k, err = dht.KeyForAgent("agent://" + p.String()) // base58 form
	if err != nil || k != dht.Key(p) {
		t.Fatalf("KeyForAgent(base58) = %q, %v", k, err)
	}
	if _, err := dht.KeyForAgent("agent://nope"); err == nil {
		t.Fatal("KeyForAgent accepted a bad id")
	}
}

// TestSelectOrderIndependent shuffles one set of values many times: every
// order must select the same bytes, so every node converges.
func TestSelectOrderIndependent(t *testing.T) {
	sk := newKey(t)
	p, _ := peer.IDFromPrivateKey(sk)
	key := dht.Key(p)
	values := [][]byte{
		cardtest.Signed(t, sk, 1, "alpha").Raw(),
		cardtest.Signed(t, sk, 3, "tie-a").Raw(),
		cardtest.Signed(t, sk, 3, "tie-b").Raw(),
		cardtest.Signed(t, sk, 3, "tie-c").Raw(),
		cardtest.Signed(t, sk, 2, "alpha").Raw(),
		cardtest.Tamper(t, cardtest.Signed(t, sk, 7, "alpha").Raw(), "alpha", "alphb"),
		[]byte("junk"),
	}
	var want []byte
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		rng.Shuffle(len(values), func(i, j int) { values[i], values[j] = values[j], values[i] })
		i, err := dht.Validator{}.Select(key, values)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = values[i]
		}
		if !bytes.Equal(values[i], want) {
			t.Fatalf("order %v selected other bytes", i)
		}
	}
	if !bytes.Contains(want, []byte(`"seq":3`)) {
		t.Fatalf("selected %s, want a seq 3 card", want)
	}
}
