package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAssetsExportCheck runs the binary: export turns a tag's assets into a
// skill or an AGENTS.md section; check reports weak records with exit 3,
// and exits 0 on a store without them.
func TestAssetsExportCheck(t *testing.T) {
	bin := harnishBinary(t)
	dir := t.TempDir()
	harnish := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, append(args[:1:1], append([]string{args[1], "--dir", dir}, args[2:]...)...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	for _, args := range [][]string{
		{"assets", "record", "--type", "guardrail", "--tags", "calc", "--title", "Never edit generated files", "--body", "go generate writes them"},
		{"assets", "record", "--type", "failure", "--tags", "calc", "--title", "Division by zero panicked", "--body", "Check the divisor first."},
	} {
		if _, errs, code := harnish(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}

	// Clean records: check passes.
	if out, errs, code := harnish("assets", "check"); code != 0 || out != "0 weak record(s) among 2 assets\n" {
		t.Errorf("check of good records: exit %d\n%s%s", code, out, errs)
	}

	skill := filepath.Join(dir, ".claude", "skills", "harnish-calc", "SKILL.md")
	out, errs, code := harnish("assets", "export", "--format", "skill", "--tags", "calc", "--out", skill)
	if code != 0 || !strings.Contains(out, "exported 2 assets to "+skill) {
		t.Fatalf("export: exit %d\n%s%s", code, out, errs)
	}
	data, _ := os.ReadFile(skill)
	for _, want := range []string{"---\nname: harnish-calc\ndescription: \"Lessons harnish runs learned about calc: 1 guardrail, 1 failure.",
		"## Guardrails: never do these\n\n### Never edit generated files\n\ngo generate writes them\n",
		"### Division by zero panicked\n\nCheck the divisor first.\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("SKILL.md lacks %q:\n%s", want, data)
		}
	}
	if out, errs, code := harnish("assets", "export", "--format", "agents", "--tags", "calc"); code != 0 || !strings.HasPrefix(out, "## Lessons: calc\n") {
		t.Errorf("export --format agents: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"assets", "export", "--tags", "nothing-has-this"},
		{"assets", "export", "--format", "html"},
		{"assets", "export", "--name", "Bad Name"},
		{"assets", "check", "--stale-days", "-1"},
	} {
		if _, errs, code := harnish(args...); code != 1 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 1 with a reason", args, code, errs)
		}
	}

	// Weak records: a duplicate title and one with no body and no tags.
	for _, args := range [][]string{
		{"assets", "record", "--type", "pattern", "--tags", "api", "--title", "never edit  GENERATED files", "--body", "again"},
		{"assets", "record", "--type", "decision", "--title", "Bare"},
	} {
		if _, errs, code := harnish(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	out, errs, code = harnish("assets", "check", "--json")
	var weak []struct{ Problem, Title string }
	if err := json.Unmarshal([]byte(out), &weak); err != nil || code != 3 {
		t.Fatalf("check --json: exit %d, %v\n%s%s", code, err, out, errs)
	}
	got := map[string]string{}
	for _, w := range weak {
		got[w.Problem] = w.Title
	}
	want := map[string]string{"duplicate-title": "never edit  GENERATED files", "no-body": "Bare", "no-tags": "Bare"}
	if len(got) != len(want) || got["duplicate-title"] != want["duplicate-title"] || got["no-body"] != "Bare" || got["no-tags"] != "Bare" {
		t.Errorf("weak records %v, want %v", got, want)
	}
	if out, _, code := harnish("assets", "check", "--tags", "calc"); code != 0 {
		t.Errorf("check of the calc assets alone: exit %d\n%s", code, out)
	}
}
