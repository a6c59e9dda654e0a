package asset_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/harnish/harnish/asset"
)

var day = time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)

var exportAssets = []*asset.Asset{
	{Type: asset.TypeFailure, Slug: "nil-map", Title: "Writing a nil map panics", Body: "Make the map in New.", Tags: []string{"calc"}, Date: day},
	{Type: asset.TypeGuardrail, Slug: "no-force", Title: "Never force-push", Body: "The run's branch is shared.", Tags: []string{"git", "calc"}, Date: day},
	{Type: asset.TypeDecision, Slug: "cents", Title: "Money is int64 cents", Tags: []string{"calc"}},
}

func TestExport(t *testing.T) {
	tests := []struct {
		name string
		req  asset.ExportRequest
		want string
	}{
		{"skill", asset.ExportRequest{Tags: []string{"calc"}}, `---
name: harnish-calc
description: "Lessons harnish runs learned about calc: 1 guardrail, 1 failure, 1 decision. Use when working on calc."
---

# Lessons: calc

Experience recorded by harnish runs (` + "`harnish assets`" + `), reviewed by a person before it was committed. Follow the guardrails; check the other lessons against the code as it is now.

## Guardrails: never do these

### Never force-push

The run's branch is shared.

_guardrail · 2026-03-04 · tags: git, calc · asset no-force_

## Failures and how they were resolved

### Writing a nil map panics

Make the map in New.

_failure · 2026-03-04 · tags: calc · asset nil-map_

## Decisions and their reasons

### Money is int64 cents

_decision · tags: calc · asset cents_
`},
		{"agents section", asset.ExportRequest{Format: asset.FormatAgents, Tags: []string{"calc", "git"}}, `## Lessons: calc, git

<!-- harnish assets export --format agents: 1 guardrail, 1 failure, 1 decision. Review before committing. -->

Experience recorded by harnish runs (` + "`harnish assets`" + `), reviewed by a person before it was committed. Follow the guardrails; check the other lessons against the code as it is now.

### Guardrails: never do these

#### Never force-push

The run's branch is shared.

_guardrail · 2026-03-04 · tags: git, calc · asset no-force_

### Failures and how they were resolved

#### Writing a nil map panics

Make the map in New.

_failure · 2026-03-04 · tags: calc · asset nil-map_

### Decisions and their reasons

#### Money is int64 cents

_decision · tags: calc · asset cents_
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := asset.Export(exportAssets, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("export (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExportRefuses(t *testing.T) {
	for _, req := range []asset.ExportRequest{{Format: "html"}, {Name: "Has Capitals"}, {Name: strings.Repeat("x", 65)}} {
		if _, err := asset.Export(exportAssets, req); !errors.Is(err, asset.ErrInvalid) {
			t.Errorf("Export(%+v): %v, want ErrInvalid", req, err)
		}
	}
}

// FuzzExport: whatever the tags and titles, a skill's front matter is YAML
// with exactly a valid name and a description within bounds, and the
// headings stay one line each.
func FuzzExport(f *testing.F) {
	f.Add("calc", "a: b\n---\nname: evil", "body\n---\n")
	f.Add("\"quoted\" 'tag' #x", "<script>", "")
	f.Add(strings.Repeat("é", 700), "\u2028title", "x")
	f.Fuzz(func(t *testing.T, tag, title, body string) {
		a := &asset.Asset{Type: asset.TypePattern, Slug: "s", Title: title, Body: body, Tags: []string{tag}}
		out, err := asset.Export([]*asset.Asset{a}, asset.ExportRequest{Tags: []string{tag, title}})
		if err != nil {
			t.Fatal(err)
		}
		text := string(out)
		rest, ok := strings.CutPrefix(text, "---\n")
		front, _, ok2 := strings.Cut(rest, "\n---\n")
		if !ok || !ok2 {
			t.Fatalf("no front matter:\n%s", text)
		}
		var fm map[string]any
		if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
			t.Fatalf("front matter does not parse: %v\n%s", err, front)
		}
		name, _ := fm["name"].(string)
		desc, _ := fm["description"].(string)
		if len(fm) != 2 || name == "" || len(name) > asset.MaxSkillName || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			t.Errorf("front matter %v", fm)
		}
		if desc == "" || len(desc) > asset.MaxSkillDescription {
			t.Errorf("description of %d bytes", len(desc))
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "### ") && strings.ContainsAny(line[4:], "\n\r") {
				t.Errorf("heading %q", line)
			}
		}
	})
}

func ExampleExport() {
	failure := &asset.Asset{Type: asset.TypeFailure, Slug: "nil-map", Title: "Writing a nil map panics",
		Body: "Make the map in New.", Tags: []string{"calc"}}
	skill, _ := asset.Export([]*asset.Asset{failure}, asset.ExportRequest{Tags: []string{"calc"}})
	fmt.Print(string(skill))
	// Output:
	// ---
	// name: harnish-calc
	// description: "Lessons harnish runs learned about calc: 1 failure. Use when working on calc."
	// ---
	//
	// # Lessons: calc
	//
	// Experience recorded by harnish runs (`harnish assets`), reviewed by a person before it was committed. Follow the guardrails; check the other lessons against the code as it is now.
	//
	// ## Failures and how they were resolved
	//
	// ### Writing a nil map panics
	//
	// Make the map in New.
	//
	// _failure · tags: calc · asset nil-map_
}
