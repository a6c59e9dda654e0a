package guardrail_test

import (
	"testing"

	"github.com/harnish/harnish/guardrail"
)

func TestProtectedMatch(t *testing.T) {
	p := guardrail.NewProtected("secrets/", "go.sum", `docs\adr`)
	for _, tc := range []struct {
		name, root string
		want       string
	}{
		{".harnish/state.json", "", ".harnish"},
		{"./.harnish", "", ".harnish"},
		{".HARNISH/journal.jsonl", "", ".harnish"},
		{"/repo/.harnish/lock", "/repo", ".harnish"},
		{"secrets/prod.env", "", "secrets"},
		{"go.sum", "", "go.sum"},
		{"harnish-plugins.yaml", "", "harnish-plugins.yaml"},
		{"/repo/harnish-plugins.yaml", "/repo", "harnish-plugins.yaml"},
		{"sub/harnish-plugins.yaml", "", ""}, // only the tree's own, at its root
		{"docs/adr/0001.md", "", "docs/adr"},
		{"docs", "", "docs/adr"}, // a parent takes the protected path along
		{".", "", ".harnish"},
		{"/repo", "/repo", ".harnish"},
		{"go.summary", "", ""},
		{"secretsfile", "", ""},
		{"docs/readme.md", "", ""},
		{"src/.harnish.go", "", ""},
		{"/elsewhere/.harnishx", "/repo", ""},
	} {
		got, ok := p.Match(tc.name, tc.root)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Match(%q, %q) = %q, %v; want %q", tc.name, tc.root, got, ok, tc.want)
		}
	}
	var zero guardrail.Protected
	for _, name := range []string{".harnish/x", "harnish-plugins.yaml"} {
		if _, ok := zero.Match(name, ""); !ok {
			t.Errorf("the zero Protected does not protect %s", name)
		}
	}
}
