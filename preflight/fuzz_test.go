package preflight

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMentions holds the reading of a task's text to: no panic, every path
// found is a run of the text, and what is said of it is words of the text.
func FuzzMentions(f *testing.F) {
	for _, s := range []string{
		"Modify internal/cache/client.go so lookups retry.",
		"`internal/cache/client.go` のリトライ処理を修正する。",
		"internal/cache/client.go 파일의 재시도 로직을 수정합니다.",
		"修改 internal/cache/client.go 中的重试逻辑。",
		"Move pkg/a.go to internal/a.go; do not modify `b.go`.",
		"File: x/y.go (create)\nFile: z.go (modify)",
		"変更しない `a.go`、`b.ts` を新規作成 https://x.io/a/b.md",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<16 {
			return
		}
		for _, m := range mentions(text) {
			if m.path == "" || !strings.Contains(text, m.path) {
				t.Fatalf("path %q is not in the text", m.path)
			}
			if m.why != "" && utf8.ValidString(text) && !utf8.ValidString(m.why) {
				t.Fatalf("why %q cuts a character", m.why)
			}
		}
	})
}
