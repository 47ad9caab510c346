package bridge_test

import (
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

// BenchmarkConvert measures each export and import of the test card and
// reports its cost relative to adp.ParseCard of the same card (x_parse), the
// floor any conversion pays, measured in the same run.
func BenchmarkConvert(b *testing.B) {
	c, _ := signedCard(b)
	raw := c.Raw()
	var base float64 // ns per ParseCard, measured first in this run
	b.Run("adp.ParseCard", func(b *testing.B) {
		for b.Loop() {
			if _, err := adp.ParseCard(raw); err != nil {
				b.Fatal(err)
			}
		}
		base = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	for _, f := range bridge.Formats[1:] {
		doc, err := bridge.Encode(f, c)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("To/"+string(f), func(b *testing.B) {
			for b.Loop() {
				if _, err := bridge.Encode(f, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x_parse")
		})
		b.Run("From/"+string(f), func(b *testing.B) {
			for b.Loop() {
				if _, err := bridge.Decode(f, doc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x_parse")
		})
	}
}
