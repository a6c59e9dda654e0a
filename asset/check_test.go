package asset_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
)

func TestCheck(t *testing.T) {
	now := day.Add(400 * 24 * time.Hour)
	recent := now.Add(-24 * time.Hour)
	tests := []struct {
		name   string
		assets []*asset.Asset
		req    asset.CheckRequest
		want   []asset.Weakness
	}{
		{"good records", []*asset.Asset{
			{Type: asset.TypePattern, Slug: "a", Title: "A", Body: "b", Tags: []string{"t"}, Date: recent},
			{Type: asset.TypePattern, Slug: "old-but-used", Title: "B", Body: "b", Tags: []string{"t"}, Date: day, LastAccessed: recent},
		}, asset.CheckRequest{Now: now}, nil},
		{"no body, no tags", []*asset.Asset{
			{Type: asset.TypeDecision, Slug: "bare", Title: "Bare", Body: " \n", Date: recent},
		}, asset.CheckRequest{Now: now}, []asset.Weakness{
			{Problem: asset.ProblemNoBody, Type: asset.TypeDecision, Slug: "bare", Title: "Bare"},
			{Problem: asset.ProblemNoTags, Type: asset.TypeDecision, Slug: "bare", Title: "Bare"},
		}},
		{"duplicate titles, whatever the case and spacing", []*asset.Asset{
			{Type: asset.TypeFailure, Slug: "x", Title: "Nil map  panics", Body: "b", Tags: []string{"t"}, Date: recent},
			{Type: asset.TypePattern, Slug: "y", Title: "nil map panics", Body: "b", Tags: []string{"t"}, Date: recent},
			{Type: asset.TypePattern, Slug: "z", Title: "NIL MAP PANICS", Body: "b", Tags: []string{"t"}, Date: recent},
		}, asset.CheckRequest{Now: now}, []asset.Weakness{
			{Problem: asset.ProblemDuplicateTitle, Type: asset.TypePattern, Slug: "y", Title: "nil map panics", Detail: "same title as x"},
			{Problem: asset.ProblemDuplicateTitle, Type: asset.TypePattern, Slug: "z", Title: "NIL MAP PANICS", Detail: "same title as x"},
		}},
		{"the oldest is the original, whatever the order", []*asset.Asset{
			{Type: asset.TypePattern, Slug: "newer", Title: "Same", Body: "b", Tags: []string{"t"}, Date: recent},
			{Type: asset.TypePattern, Slug: "older", Title: "same", Body: "b", Tags: []string{"t"}, Date: recent.Add(-time.Hour)},
		}, asset.CheckRequest{Now: now}, []asset.Weakness{
			{Problem: asset.ProblemDuplicateTitle, Type: asset.TypePattern, Slug: "newer", Title: "Same", Detail: "same title as older"},
		}},
		{"stale by the default", []*asset.Asset{
			{Type: asset.TypeSnippet, Slug: "old", Title: "Old", Body: "b", Tags: []string{"t"}, Date: day},
		}, asset.CheckRequest{Now: now}, []asset.Weakness{
			{Problem: asset.ProblemStale, Type: asset.TypeSnippet, Slug: "old", Title: "Old", Detail: "last recorded or used 2026-03-04, 400 days ago"},
		}},
		{"stale after a shorter time", []*asset.Asset{
			{Type: asset.TypeSnippet, Slug: "week", Title: "Week", Body: "b", Tags: []string{"t"}, Date: now.Add(-8 * 24 * time.Hour)},
		}, asset.CheckRequest{Now: now, StaleAfter: 7 * 24 * time.Hour}, []asset.Weakness{
			{Problem: asset.ProblemStale, Type: asset.TypeSnippet, Slug: "week", Title: "Week", Detail: "last recorded or used 2027-03-31, 8 days ago"},
		}},
		{"never stale", []*asset.Asset{
			{Type: asset.TypeSnippet, Slug: "old", Title: "Old", Body: "b", Tags: []string{"t"}, Date: day},
		}, asset.CheckRequest{Now: now, StaleAfter: -1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, asset.Check(tt.assets, tt.req)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
