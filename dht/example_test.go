package dht_test

import (
	"fmt"

	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/dht"
)

// A skill tag is announced under its canonical form and every parent
// path; each becomes a provider key another implementation can derive.
// (The CIDs were checked against an independent computation:
// "b" + base32(0x01 0x55 0x12 0x20 || sha256("adp-skill:" + tag)).)
func ExampleTagCID() {
	for _, k := range tag.Default().Keys(" NLP//Translation ") {
		c, _ := dht.TagCID(k)
		fmt.Println(k, c)
	}
	// Output:
	// nlp/translation bafkreiec4jfep7bkxduynbpq6mrmim6f24z7befjvc7meclob7puxushoa
	// nlp bafkreib2pr6rqcd5a3dflzlqyd5igsqd6si5q4olgxd7p5jzvnjnoa7gxi
}
