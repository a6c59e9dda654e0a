package harnish_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/loop"
)

// TestRecordsOptions: by default each attempt's transcript is kept in the
// state directory; NoTranscripts keeps none; SessionNotes is asked once
// when the run completes, and what it answers is saved in the tree.
func TestRecordsOptions(t *testing.T) {
	tests := []struct {
		name        string
		opts        harnish.Options
		transcripts bool
		notes       string
	}{
		{"defaults", harnish.Options{}, true, ""},
		{"no transcripts", harnish.Options{NoTranscripts: true}, false, ""},
		{"session notes", harnish.Options{SessionNotes: func(_ context.Context, req *loop.SessionNotesRequest) (string, error) {
			return "notes/" + req.Run + ".md", nil
		}}, true, "notes/r1.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, plan := tree(t, false, map[string]string{})
			opts := tt.opts
			opts.Dir, opts.Gate, opts.RunID, opts.Unmarked = dir, loop.AutoApprove{}, "r1", true
			r, err := harnish.Open(t.Context(), plan, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			_, err = os.Stat(filepath.Join(dir, loop.TranscriptsDir, "T1-1.jsonl"))
			if kept := err == nil; kept != tt.transcripts {
				t.Errorf("transcript kept: %v, want %v (%v)", kept, tt.transcripts, err)
			}
			if tt.notes != "" {
				if _, err := os.Stat(filepath.Join(dir, tt.notes)); err != nil {
					t.Errorf("session notes: %v", err)
				}
			} else if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
				t.Error("session notes saved unasked")
			}
		})
	}
}
