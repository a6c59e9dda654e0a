package proc_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/proc"
)

func TestTail(t *testing.T) {
	tests := []struct {
		name   string
		chars  int
		writes []string
		want   string
	}{
		{"empty", 5, nil, ""},
		{"short", 5, []string{"ab", "c"}, "abc"},
		{"exactly the limit", 5, []string{"abcde"}, "abcde"},
		{"over the limit in one write", 5, []string{"abcdefgh"}, "defgh"},
		{"over the limit across writes", 5, []string{"abc", "def", "gh"}, "defgh"},
		{"wraps the ring", 2, []string{"abcdef", "ghi", "j"}, "ij"},
		{"write larger than the ring", 2, []string{"x", strings.Repeat("y", 100) + "z"}, "yz"},
		{"multibyte kept whole", 3, []string{"aé€😀"}, "é€😀"},
		{"multibyte split across writes", 2, []string{"a\xe2\x82", "\xac\xc3", "\xa9"}, "€é"},
		{"character cut by the ring's edge dropped", 2, []string{"€€€€€€€€"}, "€€"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail := proc.NewTail(tt.chars)
			for _, w := range tt.writes {
				n, err := tail.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(w))
				}
			}
			if diff := cmp.Diff(tt.want, tail.String()); diff != "" {
				t.Errorf("String (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzTail checks the ring against the obvious answer: the last characters of
// everything written.
func FuzzTail(f *testing.F) {
	f.Add("hello, world", 3, uint8(4))
	f.Add("€€€€ab😀😀c", 4, uint8(3))
	f.Fuzz(func(t *testing.T, s string, chars int, chunk uint8) {
		if !utf8.ValidString(s) || chars < 1 || chars > 64 || chunk == 0 {
			t.Skip()
		}
		tail := proc.NewTail(chars)
		for rest := s; rest != ""; {
			n := min(int(chunk), len(rest))
			tail.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		runes := []rune(s)
		want := string(runes[max(0, len(runes)-chars):])
		if got := tail.String(); got != want {
			t.Fatalf("String = %q, want %q", got, want)
		}
	})
}
