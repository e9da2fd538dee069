package partialjson

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

type benchItem struct {
	Label string   `json:"label"`
	Score float64  `json:"score"`
	Tags  []string `json:"tags,omitempty"`
	Note  *string  `json:"note,omitempty"`
}

type benchValue struct {
	Title string            `json:"title"`
	Count int               `json:"count"`
	Level string            `json:"level" enum:"low,medium,high"`
	When  time.Time         `json:"when"`
	Items []benchItem       `json:"items"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

// benchText is a 50 KB object of a few hundred records in 4,000 fragments, as a model streams a
// typed answer.
func benchText(tb testing.TB) [][]byte {
	v := benchValue{Title: strings.Repeat("A long title with \"quotes\" and ünïcode; ", 40), Count: 42, Level: "high",
		When: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC), Attrs: map[string]string{"source": "benchmark"}}
	for i := range 373 {
		note := fmt.Sprintf("note %d: see \\ the \"appendix\"", i)
		v.Items = append(v.Items, benchItem{Label: fmt.Sprintf("record number %d of the set", i), Score: float64(i) / 3,
			Tags: []string{"alpha", "beta"}, Note: &note})
	}
	raw, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	const n = 4000
	out := make([][]byte, n)
	for i := range out {
		out[i] = raw[i*len(raw)/n : (i+1)*len(raw)/n]
	}
	return out
}

// BenchmarkFragments follows a 50 KB object in 4,000 fragments: the parser alone, and the decoder
// that fills a value from it.
func BenchmarkFragments(b *testing.B) {
	pieces := benchText(b)
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	b.Run("parser", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			p := New(Discard)
			for _, f := range pieces {
				if err := p.Write(f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			var v benchValue
			d := NewDecoder(reflect.ValueOf(&v).Elem())
			for _, f := range pieces {
				if _, err := d.Write(f); err != nil {
					b.Fatal(err)
				}
			}
			if len(v.Items) != 373 || v.Attrs["source"] != "benchmark" {
				b.Fatalf("%d items, attributes %v", len(v.Items), v.Attrs)
			}
		}
	})
}
