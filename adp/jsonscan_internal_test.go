package adp

import "testing"

// TestStringSkipping covers the string skipping that jsonDepth and
// looksCanonical share: brackets and white space inside strings, escaped
// quotes and backslashes, and unterminated strings do not count.
func TestStringSkipping(t *testing.T) {
	cases := []struct {
		in        string
		depth     int
		canonical bool
	}{
		{`{}`, 1, true},
		{`{"a":[1,{"b":[]}]}`, 4, true},
		{`{"a": 1}`, 1, false},
		{"{\"a\":1}\n", 1, false},
		{`{"[[{ x":"] \t}"}`, 1, true},
		{`{"a\"[ ":"b"}`, 1, true},
		{`{"a\\":[ 1]}`, 2, false},
		{`{"a\\\" [":[1]}`, 2, true},
		{`["\\"," "]`, 1, true},
		{`{"a":"[ [`, 1, true},
		{`{"a":"\`, 1, true},
	}
	for _, c := range cases {
		if got := jsonDepth([]byte(c.in)); got != c.depth {
			t.Errorf("jsonDepth(%s) = %d, want %d", c.in, got, c.depth)
		}
		if got := looksCanonical([]byte(c.in)); got != c.canonical {
			t.Errorf("looksCanonical(%s) = %v, want %v", c.in, got, c.canonical)
		}
	}
}
