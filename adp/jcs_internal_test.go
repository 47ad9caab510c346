package adp

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"testing"
)

// TestCanonicalizeRFC8785 runs the examples of RFC 8785 through the JCS
// path Sign and Verify use.
func TestCanonicalizeRFC8785(t *testing.T) {
	// Section 3.2.2 (input) and 3.2.3 (expected output).
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	got, err := canonicalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("3.2.2:\n got %s\nwant %s", got, want)
	}
	// Section 3.2.3 shows the UTF-8 bytes of the result.
	wantHex := "7b226c69746572616c73223a5b6e756c6c2c747275652c66616c73655d2c226e756d62657273223a5b3333333333333333332e333333333333332c31652b33302c342e352c302e3030322c31652d32375d2c22737472696e67223a22e282ac245c75303030665c6e4127425c225c5c5c5c5c222f227d"
	if hex.EncodeToString(got) != wantHex {
		t.Fatalf("3.2.3 bytes differ:\n got %x", got)
	}

	// Section 3.2.3 sorting example: keys sort by UTF-16 code units.
	sortIn := `{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`
	sortWant := "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001f600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"
	got, err = canonicalize([]byte(sortIn))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != sortWant {
		t.Fatalf("sorting:\n got %s\nwant %s", got, sortWant)
	}
}

// TestCanonicalizeRFC8785Numbers checks the number serialization samples of
// RFC 8785 Appendix B: each IEEE 754 double, written in JSON, canonicalizes
// to the ECMAScript form.
func TestCanonicalizeRFC8785Numbers(t *testing.T) {
	for _, tc := range []struct{ ieee, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"}, // minus zero
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	} {
		raw, err := hex.DecodeString(tc.ieee)
		if err != nil {
			t.Fatal(err)
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(raw))
		text := strconv.FormatFloat(f, 'g', -1, 64)
		got, err := canonicalize([]byte("[" + text + "]"))
		if err != nil {
			t.Fatalf("%s (%s): %v", tc.ieee, text, err)
		}
		if string(got) != "["+tc.want+"]" {
			t.Errorf("%s (%s): got %s, want [%s]", tc.ieee, text, got, tc.want)
		}
	}
	// NaN and Infinity (7fffffffffffffff, 7ff0000000000000) have no JSON
	// form; a literal that overflows to infinity must be refused.
	if _, err := canonicalize([]byte(`[1e400]`)); err == nil {
		t.Error("1e400 canonicalized")
	}
}
