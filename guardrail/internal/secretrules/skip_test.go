package secretrules_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail/internal/secretrules"
)

// skipGroups are keyword sets that exercise the skipping scan: the
// default rules' keywords with the guard's detectors' (case-folded,
// overlapping, of two bytes and long), and small sets with keywords of
// one and two bytes, which may start anywhere.
func skipGroups() [][][]string {
	all := secretrules.Default().Keywords()
	all = append(all, []string{"private key", "secretaccess", "basic ", "basic\t", "auth", "eyj", "://", "password=", "pwd=",
		"sshpass", "pass", "pwd", "secret", "token", "key", "credential", "credentials>", "masterauth", "secret>", "key>"})
	// More bytes than the skipping filter has classes for: its last
	// class is shared.
	many := append([][]string{}, all...)
	for c := byte(0x80); c < 0x80+24; c++ {
		many = append(many, []string{"k" + string([]byte{c, c + 1})})
	}
	return [][][]string{
		all,
		many,
		{{"akia", "asia"}, {"ghp_"}, {"sk", "key"}, {"ey"}, {"a"}, {"aa", "aaa"}},
		{{"ab"}, {"abc", "bcd"}, {"cd"}, {"b"}},
		{{"pass"}, {"password"}, {"ss"}, {"word="}},
	}
}

// skipDiffer returns a description of how the skipping scan of text
// differs from the automaton stepped over every byte, or "".
func skipDiffer(t testing.TB, k *secretrules.Keywords, text string) string {
	skip, every, skips := secretrules.KeywordCounts(k, text)
	if !skips {
		t.Fatal("the matcher does not skip: the test compares nothing")
	}
	if !maps.Equal(skip, every) {
		return fmt.Sprintf("skipping found %v, every byte %v (group<<32|end: times)", skip, every)
	}
	return ""
}

// TestSkipFindsWhatStepFinds is the differential test of the skipping
// keyword scan: on every corpus line, and on random texts over each set's
// keywords' bytes in both cases and a few others, it reports each group as
// often as the automaton stepped over every byte does.
func TestSkipFindsWhatStepFinds(t *testing.T) {
	lines := corpusLines(t)
	r := rand.New(rand.NewPCG(3, 4))
	for gi, groups := range skipGroups() {
		k := secretrules.NewKeywords(groups)
		for _, c := range lines {
			if d := skipDiffer(t, k, c[1]); d != "" {
				t.Fatalf("set %d: %q: %s", gi, c[1], d)
			}
		}
		var alphabet []byte
		for _, ks := range groups {
			for _, kw := range ks {
				alphabet = append(alphabet, kw...)
				alphabet = append(alphabet, strings.ToUpper(kw)...)
			}
		}
		alphabet = append(alphabet, " \t.=\xff"...)
		for range 5000 {
			b := make([]byte, r.IntN(24))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			// Keywords whole, at random places, so the long ones occur.
			if len(b) > 0 && r.IntN(2) == 0 {
				ks := groups[r.IntN(len(groups))]
				at := r.IntN(len(b))
				b = append(b[:at], append([]byte(ks[r.IntN(len(ks))]), b[at:]...)...)
			}
			if d := skipDiffer(t, k, string(b)); d != "" {
				t.Fatalf("set %d: %q: %s", gi, b, d)
			}
		}
	}
}

// FuzzSkipFindsWhatStepFinds is TestSkipFindsWhatStepFinds on texts the
// fuzzer makes.
func FuzzSkipFindsWhatStepFinds(f *testing.F) {
	for _, c := range corpusLines(f) {
		f.Add(c[1])
	}
	var ks []*secretrules.Keywords
	for _, groups := range skipGroups() {
		ks = append(ks, secretrules.NewKeywords(groups))
	}
	f.Fuzz(func(t *testing.T, text string) {
		for gi, k := range ks {
			if d := skipDiffer(t, k, text); d != "" {
				t.Fatalf("set %d: %q: %s", gi, text, d)
			}
		}
	})
}

// indexLitSpec is indexLit as it was: EqualFold at every place.
func indexLitSpec(s, lit string) int {
	for i := 0; i+len(lit) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(lit)], lit) {
			return i
		}
	}
	return -1
}

// TestIndexLit compares the head filter's case-folding search with
// EqualFold at every place, with the runes that fold to ASCII letters.
func TestIndexLit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "A", "k", "K", "s", "S", "\u212a", "\u017f", "_", "@", "`", "[", "{", "0", "é"}
	lits := []string{"k", "ks", "sk_", "key", "a@", "@", "`k", "[s", "ſ"[:1], ""}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s, lit := b.String(), lits[r.IntN(len(lits))]
		if got, want := secretrules.IndexLit(s, lit, true), indexLitSpec(s, lit); got != want {
			t.Fatalf("indexLit(%q, %q) = %d, want %d", s, lit, got, want)
		}
	}
}

func FuzzIndexLit(f *testing.F) {
	f.Add("xx\u212aey", "key")
	f.Add("a\u017fk_live", "sk_")
	f.Fuzz(func(t *testing.T, s, lit string) {
		if len(lit) > 0 && lit[0] >= 0x80 {
			return // literals are ASCII
		}
		if got, want := secretrules.IndexLit(s, lit, true), indexLitSpec(s, lit); got != want {
			t.Fatalf("indexLit(%q, %q) = %d, want %d", s, lit, got, want)
		}
	})
}

// TestScanOfManyClasses checks the scan of keywords over more than 64 byte
// classes, whose skipping filter shares its last class among the rest,
// against the automaton stepped over every byte and strings.Contains.
func TestScanOfManyClasses(t *testing.T) {
	var groups [][]string
	for c := byte(0x80); c < 0x80+70; c++ { // no case to fold
		groups = append(groups, []string{string([]byte{c, c + 1})})
	}
	k := secretrules.NewKeywords(groups)
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		b := make([]byte, r.IntN(16))
		for i := range b {
			b[i] = byte(0x7c + r.IntN(80))
		}
		text := string(b)
		skip, every, skips := secretrules.KeywordCounts(k, text)
		if !skips {
			t.Fatal("a matcher of more than 64 classes does not skip")
		}
		if !maps.Equal(skip, every) {
			t.Fatalf("%q: found %v, every byte %v", text, skip, every)
		}
		times := map[int]int{} // by group
		for key, n := range skip {
			times[int(key>>32)] += n
		}
		lower := strings.ToLower(text)
		for g, ks := range groups {
			if want := strings.Count(lower, ks[0]); times[g] < min(want, 1) {
				t.Fatalf("%q: group %q found %d times, want at least %d", text, ks[0], times[g], min(want, 1))
			}
		}
	}
}
