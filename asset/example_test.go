package asset_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	a := &asset.Asset{Type: "lesson", Tags: []string{"go", "two\nlines"}, Level: "hard"}
	err := a.Validate()
	fmt.Println(errors.Is(err, asset.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true
	// asset: invalid: unknown type "lesson"; no title; malformed tag "two\nlines"; level is for guardrail assets, not lesson
}

// A FileStore keeps assets in a JSONL file; a query returns the best first.
func ExampleOpenFile() {
	dir, err := os.MkdirTemp("", "assets")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store, err := asset.OpenFile(asset.StorePath(filepath.Join(dir, ".harnish")), nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	ctx := context.Background()
	for _, a := range []*asset.Asset{
		{Type: asset.TypeFailure, Title: "Port 8080 is taken in CI", Tags: []string{"go", "network"}},
		{Type: asset.TypePattern, Title: "Listen on port 0 in tests", Tags: []string{"network"}},
		{Type: asset.TypeFailure, Title: "Port 8080 is taken in CI", Tags: []string{"ci"}},
	} {
		if err := store.Record(ctx, a); err != nil {
			panic(err)
		}
	}
	found, err := store.Query(ctx, asset.Query{Tags: []string{"go", "network"}, Limit: 2})
	if err != nil {
		panic(err)
	}
	for _, a := range found {
		fmt.Println(a.Slug)
	}
	for _, text := range asset.Render(found, 200) {
		fmt.Println(text)
	}
	// Output:
	// port-8080-is-taken-in-ci
	// listen-on-port-0-in-tests
	// ### Port 8080 is taken in CI
	// type: failure; tags: go, network
	// ### Listen on port 0 in tests
	// type: pattern; tags: network
}
