package modelname

import (
	"slices"
	"testing"
)

// Slug is the gateway's catalog_name_slug; an index finds a model by its hex id exactly, by its
// name in any case, by a slug only one model claims and by a name that slugs to a key; an empty hex
// id is no id; a near miss names catalogue names, not keys.
func TestIndex(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"Llama 3.3 70B": "llama-3.3-70b", "  a__b--c  ": "a-b-c", "glm-5.1:web": "glm-5.1:web",
		"-x-": "x", "": "", "\t": "", "Ünï Code": "ünï-code",
	} {
		if got := Slug(name); got != want {
			t.Errorf("Slug(%q) = %q, want %q", name, got, want)
		}
	}
	x := NewIndex([]string{"Qwen 3 Next", "a_b", "A-B", "llama-3.3-70b", "nohex"}, []string{"0xAB", "", "", "0xcd", ""})
	for name, want := range map[string]int{
		"0xAB": 0, "qwen-3-next": 0, "QWEN_3_NEXT": 0, "qwen 3 next": 0, "a b": 2, "a_b": 1, "0xcd": 3, "Llama 3.3 70B": 3,
	} {
		if got, ok := x.Lookup(name); !ok || got != want {
			t.Errorf("Lookup(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
	for _, name := range []string{"0xab", "0XAB", "", "nohe"} {
		if i, ok := x.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %d, want none", name, i)
		}
	}
	if got := x.Suggestions("qwen-3-nex"); !slices.Equal(got, []string{"Qwen 3 Next"}) {
		t.Errorf("Suggestions = %q, want the catalogue's name", got)
	}
	if got := x.Suggestions("llama-3.3-70b-turbo"); !slices.Equal(got, []string{"llama-3.3-70b"}) {
		t.Errorf("Suggestions of a -turbo name = %q", got)
	}
}
