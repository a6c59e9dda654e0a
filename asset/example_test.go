package asset_test

import (
	"errors"
	"fmt"

	"github.com/harnish/harnish/asset"
)

// Query.Match is the meaning every store gives a query.
func ExampleQuery_Match() {
	assets := []*asset.Asset{
		{Type: asset.TypeFailure, Slug: "nil-map-write", Title: "Writing to a nil map in the cache", Tags: []string{"go", "cache"}},
		{Type: asset.TypePattern, Slug: "table-tests", Title: "Table-driven tests with go-cmp", Tags: []string{"go", "testing"}},
		{Type: asset.TypeDecision, Slug: "jsonl-store", Title: "Assets live in one JSONL file", Tags: []string{"storage"}, Scope: asset.ScopeTeam},
	}
	queries := []asset.Query{
		{Tags: []string{"GO"}},
		{Tags: []string{"go", "testing"}, AllTags: true},
		{Type: asset.TypeFailure, Text: "nil map"},
		{Scope: asset.ScopeProject},
	}
	for _, q := range queries {
		var slugs []string
		for _, a := range assets {
			if q.Match(a) {
				slugs = append(slugs, a.Slug)
			}
		}
		fmt.Println(slugs)
	}
	// Output:
	// [nil-map-write table-tests]
	// [table-tests]
	// [nil-map-write]
	// [nil-map-write table-tests]
}

func ExampleAsset_Validate() {
	a := &asset.Asset{Type: "lesson", Tags: []string{"go", "two words"}, Level: "hard"}
	err := a.Validate()
	fmt.Println(errors.Is(err, asset.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true
	// asset: invalid: unknown type "lesson"; no title; malformed tag "two words"; level is for guardrail assets, not lesson
}
