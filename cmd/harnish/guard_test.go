package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/testkit"
)

func TestGuardCheck(t *testing.T) {
	dir := t.TempDir()
	plan := testkit.WriteGuardPlan(t, dir, "p.yaml", "  packages: {npm: [zod]}\n  protected: [secrets/]\n")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nname: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantOut    string
		wantErr    string
		wantStatus int
	}{
		{name: "allowed prints nothing", args: []string{"check", "--", "go", "test", "./..."}},
		{name: "hard", args: []string{"check", "--", "rm -rf build"}, wantStatus: 2,
			wantOut: "hard fs.recursive-delete: recursive deletion (rm -rf) can destroy the working tree\n    rm -rf build\n"},
		{name: "words are joined", args: []string{"check", "--", "git", "push", "-f"}, wantStatus: 2,
			wantOut: "hard git.force-push: git push -f rewrites shared history\n    git push -f\n"},
		{name: "powershell", args: []string{"check", "--shell", "powershell", "--", "rm -r build"}, wantStatus: 2,
			wantOut: "hard fs.recursive-delete: Remove-Item -Recurse deletes recursively\n    rm -r build\n"},
		{name: "cmd", args: []string{"check", "--shell=cmd", "--", "rd /s /q build"}, wantStatus: 2,
			wantOut: "hard fs.recursive-delete: rd /s deletes recursively\n    rd /s /q build\n"},
		{name: "no plan blocks installs", args: []string{"check", "--", "npm install zod"}, wantStatus: 2,
			wantOut: "hard pkg.install: installing npm package \"zod\" is not allowed by the plan (guardrails.packages.npm)\n    npm install zod\n"},
		{name: "plan allows", args: []string{"check", "--plan", plan, "--", "npm install zod"}},
		{name: "plan protects", args: []string{"check", "--plan", plan, "--", "rm secrets/key"}, wantStatus: 2,
			wantOut: "hard fs.protected: the command deletes \"secrets/key\", which is protected (secrets)\n    rm secrets/key\n"},
		{name: "unknown shell", args: []string{"check", "--shell", "fish", "--", "ls"}, wantStatus: 1,
			wantErr: "harnish guard check: unknown shell \"fish\": want bash, powershell or cmd\nUsage: " + guardCheckSynopsis + "\n"},
		{name: "no command", args: []string{"check"}, wantStatus: 1,
			wantErr: "harnish guard check: want a COMMAND after --\nUsage: " + guardCheckSynopsis + "\n"},
		{name: "bad plan", args: []string{"check", "--plan", bad, "--", "ls"}, wantStatus: 1,
			wantErr: "harnish guard check: " + bad + ":1:1: phases: required: a plan has at least one phase\n"},
		{name: "no subcommand", args: nil, wantStatus: 1,
			wantErr: "harnish guard: want a subcommand: check or diff\nUsage: harnish guard check|diff [flags]\n"},
		{name: "unknown subcommand", args: []string{"audit"}, wantStatus: 1,
			wantErr: "harnish guard: unknown subcommand \"audit\"\nUsage: harnish guard check|diff [flags]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := runGuard(guardCommand, tt.args, &stdout, &stderr)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d (stderr %q)", status, tt.wantStatus, stderr.String())
			}
			if diff := cmp.Diff(tt.wantOut, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGuardCheckJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	status := runGuard(guardCommand, []string{"check", "--json", "--", `echo "DROP TABLE users" | psql`}, &stdout, &stderr)
	if status != exitGuardHard {
		t.Fatalf("status = %d, want %d; stderr %q", status, exitGuardHard, stderr.String())
	}
	var got []guardrail.Decision
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not a JSON array of decisions: %v\n%s", err, stdout.String())
	}
	want := []guardrail.Decision{{Level: guardrail.Hard, Rule: guardrail.RuleSQLDrop,
		Reason: `"DROP TABLE" reaches the SQL client psql by standard input and destroys data`,
		Match:  `echo "DROP TABLE users" | psql`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}

	stdout.Reset()
	if status := runGuard(guardCommand, []string{"check", "--json", "--", "ls"}, &stdout, &stderr); status != exitOK {
		t.Fatalf("status = %d, want 0", status)
	}
	if got := strings.TrimSpace(stdout.String()); got != "[]" {
		t.Errorf("allowed --json = %q, want []", got)
	}
}
