package chunkmem

import "testing"

func TestMemo(t *testing.T) {
	t.Parallel()
	tmpl := []byte(`"chatcmpl-1","m"`)
	id := tmpl[1:11]
	x := string(id)
	var m Memo
	if m.Holds(id, x, 1) || m.Holds(nil, "", 0) {
		t.Fatal("the zero Memo holds something")
	}
	m.Remember(id, x, 1)
	cases := []struct {
		name string
		src  []byte
		dst  string
		gen  uint64
		want bool
	}{
		{"same slice, string and generation", id, x, 1, true},
		{"another generation", id, x, 2, false},
		{"the same bytes elsewhere", []byte("chatcmpl-1"), x, 1, false},
		{"a shorter slice at the same place", id[:5], x, 1, false},
		{"another string", id, "chatcmpl-2", 1, false},
		{"empty", nil, "", 1, false},
	}
	for _, c := range cases {
		if got := m.Holds(c.src, c.dst, c.gen); got != c.want {
			t.Errorf("%s: Holds = %v, want %v", c.name, got, c.want)
		}
	}
	m.Remember(id, x, 0)
	if m.Holds(id, x, 0) || m.Holds(id, x, 1) {
		t.Error("a Memo told of text outside any template still holds")
	}
}
