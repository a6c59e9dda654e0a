package harnish_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEEmbedding: the README's embedding snippet is ExampleOpen's body,
// line for line, so it compiles and runs as shown.
func TestREADMEEmbedding(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Embedding\n")
	_, snippet, ok := strings.Cut(section, "\n```go\n")
	snippet, _, closed := strings.Cut(snippet, "\n```\n")
	if !ok || !closed {
		t.Fatal("README.md has no go snippet under ## Embedding")
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(snippet, "\n")
	for i, line := range lines {
		if line != "" {
			lines[i] = "\t" + line
		}
	}
	if !strings.Contains(string(example), "\n"+strings.Join(lines, "\n")+"\n") {
		t.Errorf("the README's embedding snippet is not in ExampleOpen, as is:\n%s", snippet)
	}
}
