package partialjson

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type manyPointers struct {
	Note  *string        `json:"note"`
	Big   *[300]byte     `json:"big"`
	Empty *struct{}      `json:"empty"`
	Tags  []string       `json:"tags"`
	Deep  **int          `json:"deep"`
	Kids  []manyPointers `json:"kids"`
}

// Values taken from shared blocks must be as separate as values allocated one by one: many elements
// with pointers of small, large and empty types decode as encoding/json decodes them, and writing
// through one pointer changes no other.
func TestDecoderPointersAreDistinct(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("[")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"note":"n%d","big":[%d],"empty":{},"tags":["a","b","c","d","e"],"deep":%d,"kids":[{"note":"k%d","tags":[]}]}`, i, i%256, i, i)
	}
	b.WriteString("]")
	text := []byte(b.String())
	var want []manyPointers
	if err := json.Unmarshal(text, &want); err != nil {
		t.Fatal(err)
	}
	var got []manyPointers
	d := NewDecoder(reflect.ValueOf(&got).Elem())
	for i := 0; i < len(text); i += 7 {
		if _, err := d.Write(text[i:min(i+7, len(text))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the decoded value differs from encoding/json's (-want +got):\n%s", diff)
	}
	for i := range got {
		*got[i].Note = "changed"
		got[i].Big[1] = 1
		**got[i].Deep = -1
	}
	for i := range got {
		if k := *got[i].Kids[0].Note; k != fmt.Sprintf("k%d", i) {
			t.Fatalf("kid %d's note is %q after writing through the others", i, k)
		}
	}
}

// A short slice's first elements come from a block, one run per slice: appending to a slice the
// value shows writes into its own run only, never into another slice's elements or a pointer's
// target taken from the same block.
func TestDecoderShortSlicesAreDistinct(t *testing.T) {
	t.Parallel()
	type row struct {
		Tags []string `json:"tags"`
		Note *string  `json:"note"`
	}
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"tags":["t%d"],"note":"n%d"}`, i, i)
	}
	b.WriteString("]")
	text := []byte(b.String())
	var want []row
	if err := json.Unmarshal(text, &want); err != nil {
		t.Fatal(err)
	}
	var got []row
	d := NewDecoder(reflect.ValueOf(&got).Elem())
	for i := 0; i < len(text); i += 5 {
		if _, err := d.Write(text[i:min(i+5, len(text))]); err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			_ = append(r.Tags, "the caller's", "the caller's", "the caller's")
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the decoded value differs from encoding/json's (-want +got):\n%s", diff)
	}
}
