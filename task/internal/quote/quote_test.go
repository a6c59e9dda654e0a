package quote_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task/internal/quote"
)

func TestQuote(t *testing.T) {
	x80 := strings.Repeat("x", 80)
	tests := []struct {
		name      string
		in        string
		str, bare string
		cut5      string // Cut(in, 5)
	}{
		{"short", "a\tb", `"a\tb"`, "a\tb", "a\tb"},
		{"at the bound", x80, `"` + x80 + `"`, x80, "xxxxx… (80 bytes)"},
		{"over", x80 + "y", `"` + x80 + `"… (81 bytes)`, x80 + "… (81 bytes)", "xxxxx… (81 bytes)"},
		{"not inside a rune", strings.Repeat("é", 41), `"` + strings.Repeat("é", 40) + `"… (82 bytes)`, strings.Repeat("é", 40) + "… (82 bytes)", "éé… (82 bytes)"},
		{"invalid UTF-8", strings.Repeat("\x80", 81), `"` + strings.Repeat(`\x80`, 80) + `"… (81 bytes)`, strings.Repeat("\x80", 80) + "… (81 bytes)", "\x80\x80\x80\x80\x80… (81 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{quote.String(tt.in), quote.Bare(tt.in), quote.Cut(tt.in, 5)}
			if diff := cmp.Diff([]string{tt.str, tt.bare, tt.cut5}, got); diff != "" {
				t.Errorf("String, Bare, Cut(5) (-want +got):\n%s", diff)
			}
		})
	}
}

func ExampleString() {
	fmt.Println(quote.String("codx"))
	fmt.Println(quote.String(strings.Repeat("ab", 1000)))
	// Output:
	// "codx"
	// "abababababababababababababababababababababababababababababababababababababababab"… (2000 bytes)
}
