package strdist

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 2, 0},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 2, 3}, // more than the limit: limit+1
		{"acceptance", "acceptence", 2, 1},
		{"handler", "handlers", 1, 1},
		{"a", "abcdef", 2, 3},
		{"flaw", "lawn", 2, 2},
	} {
		if got := Levenshtein(c.a, c.b, c.limit); got != c.want {
			t.Errorf("Levenshtein(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// FuzzLevenshtein: the bounded distance agrees with the unbounded one up
// to the limit, and is symmetric.
func FuzzLevenshtein(f *testing.F) {
	f.Add("kitten", "sitting", 2)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		if len(a) > 40 || len(b) > 40 || limit < 0 || limit > 50 {
			return
		}
		full := Levenshtein(a, b, 100)
		want := min(full, limit+1)
		if got := Levenshtein(a, b, limit); got != want {
			t.Fatalf("Levenshtein(%q, %q, %d) = %d, want %d (unbounded %d)", a, b, limit, got, want, full)
		}
		if back := Levenshtein(b, a, limit); back != want {
			t.Fatalf("not symmetric: %d and %d", want, back)
		}
	})
}
