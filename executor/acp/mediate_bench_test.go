package acp_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor/acp"
)

// BenchmarkMediation is harnish's own cost of answering one permission
// request, the judging of the tool call by the guardrail, against the
// floor every client pays: decoding the request. The two run interleaved
// in one loop; it reports the medians and their ratio.
//
//	go test -run '^$' -bench Mediation ./executor/acp/
func BenchmarkMediation(b *testing.B) {
	root := b.TempDir()
	s, err := acp.NewSession(root)
	if err != nil {
		b.Fatal(err)
	}
	requests := map[string]string{
		"command": `{"sessionId":"s","options":[{"optionId":"ok","name":"Yes","kind":"allow_once"}],"toolCall":{"toolCallId":"c1","kind":"execute","title":"go test","rawInput":{"command":["/bin/bash","-lc","go test ./... && git status --short | head -20"]}}}`,
		"patch": fmt.Sprintf(`{"sessionId":"s","options":[{"optionId":"ok","name":"Yes","kind":"allow_once"}],"toolCall":{"toolCallId":"c2","kind":"edit","title":"Edit","content":[{"type":"diff","path":%q,"newText":"package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"}],"locations":[{"path":%q}]}}`,
			filepath.Join(root, "calc_test.go"), filepath.Join(root, "calc_test.go")),
	}
	for name, raw := range requests {
		b.Run(name, func(b *testing.B) {
			var floor, judged []time.Duration
			for b.Loop() {
				start := time.Now()
				var p acpsdk.RequestPermissionRequest
				if err := json.Unmarshal([]byte(raw), &p); err != nil {
					b.Fatal(err)
				}
				floor = append(floor, time.Since(start))

				start = time.Now()
				var q acpsdk.RequestPermissionRequest
				json.Unmarshal([]byte(raw), &q)
				resp, err := s.RequestPermission(b.Context(), q)
				judged = append(judged, time.Since(start))
				if err != nil || resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId != "ok" {
					b.Fatalf("not allowed: %+v, %v", resp, err)
				}
			}
			f, j := median(floor), median(judged)
			b.ReportMetric(float64(f.Nanoseconds()), "floor-ns")
			b.ReportMetric(float64(j.Nanoseconds()), "judged-ns")
			b.ReportMetric(float64(j)/float64(f), "ratio")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
