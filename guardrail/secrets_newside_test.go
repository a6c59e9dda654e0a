package guardrail

import (
	"strings"
	"testing"
)

// FuzzNewSideSecrets checks that no hunk makes the scan of a diff's new
// side panic, and that a secret is only ever charged to an added line:
// the context lines before it say what it is, but are the file's.
func FuzzNewSideSecrets(f *testing.F) {
	for _, s := range []string{
		" db:\n   password:\n+    Q7v!mR2zK9wPx4\n",
		" -----BEGIN PRIVATE KEY-----\n+MC4CAQAwBQYDK2VwBCIEIOWrXbzt6vXyjmaHNzMz5Jt0Q7a9WgtqfWqpu1P6LhWm\n -----END PRIVATE KEY-----\n",
		" kind: Secret\n data:\n+  extra: UzNjcjN0UGFzc3cwcmQhMjAyNA==\n",
		" token: ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\n+name: b\n",
		"+-----BEGIN RSA PRIVATE KEY-----\n MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCmUWF0S0\n",
	} {
		f.Add("deploy/x.yaml", s)
		f.Add("src/x.py", s)
	}
	f.Fuzz(func(t *testing.T, name, hunk string) {
		if name == "" || len(hunk) > 1<<14 {
			return
		}
		fd := FileDiff{Path: name}
		var h Hunk
		n := 0
		for l := range strings.SplitSeq(hunk, "\n") {
			if l == "" {
				continue
			}
			op := LineOp(l[0])
			if op != OpAdd && op != OpContext {
				continue
			}
			n++
			h.Lines = append(h.Lines, Line{Op: op, Text: l[1:], NewLine: n})
		}
		fd.Hunks = []Hunk{h}
		added := map[int]bool{}
		for _, l := range h.Lines {
			if l.Op == OpAdd {
				added[l.NewLine] = true
			}
		}
		for _, d := range secretDecisions(&fd) {
			if !added[d.Line] {
				t.Fatalf("%s charged to line %d, not an added line, in:\n%s", d.Rule, d.Line, hunk)
			}
		}
	})
}
