package main

import (
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		"# Title",                      // 1
		"",                             // 2
		"```go",                        // 3
		"fmt.Println(1)",               // 4
		"```",                          // 5
		"",                             // 6
		"```sh",                        // 7
		"go test ./...",                // 8
		"```",                          // 9
		"- a list item:",               // 10
		"",                             // 11
		"  ````go",                     // 12
		"  x := 1",                     // 13
		"  ```",                        // 14
		"  ````",                       // 15
		"<!-- snippet",                 // 16
		"var lookUp func() string",     // 17
		"-->",                          // 18
		"~~~go",                        // 19
		"fmt.Println(lookUp())",        // 20
		"~~~",                          // 21
		"<!-- snippet var n int -->",   // 22
		"```go",                        // 23
		"n++",                          // 24
		"```",                          // 25
		"<!-- another comment -->",     // 26
		"```go",                        // 27
		"n--",                          // 28
		"```",                          // 29
		"```go title=\"with an info\"", // 30
		"```",                          // 31
	}, "\n")
	got, err := extract("docs/a.md", text)
	if err != nil {
		t.Fatal(err)
	}
	want := []snippet{
		{file: "docs/a.md", line: 4, code: "fmt.Println(1)"},
		{file: "docs/a.md", line: 13, code: "  x := 1\n  ```"},
		{file: "docs/a.md", line: 20, code: "fmt.Println(lookUp())", prelude: "\nvar lookUp func() string\n", preludeLine: 16},
		{file: "docs/a.md", line: 24, code: "n++", prelude: " var n int ", preludeLine: 22},
		{file: "docs/a.md", line: 28, code: "n--"},
		{file: "docs/a.md", line: 31, code: ""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d snippets, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("snippet %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestExtractUnclosedFence(t *testing.T) {
	t.Parallel()
	_, err := extract("README.md", "text\n\n```go\nfmt.Println()\n")
	if err == nil || err.Error() != "README.md:3: the fence ``` is never closed" {
		t.Fatalf("err = %v", err)
	}
}
