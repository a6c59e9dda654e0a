package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/testkit"
)

// buildPlugin builds the example verifier plugin and returns its path and
// SHA-256.
func buildPlugin(t *testing.T, dir string) (string, string) {
	t.Helper()
	bin := filepath.Join(dir, "bin", "no-fixme")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/verifier-plugin").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return bin, hex.EncodeToString(sum[:])
}

func TestPluginsCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	dir := t.TempDir()
	_, sum := buildPlugin(t, dir)
	manifest := "plugins:\n  - name: fixme\n    path: bin/no-fixme\n    sha256: " + sum + "\n    version: \"^1\"\n" +
		"  - name: tampered\n    path: bin/no-fixme\n    sha256: " + strings.Repeat("0", 64) + "\n"
	os.WriteFile(filepath.Join(dir, guardrail.PluginManifest), []byte(manifest), 0o644)
	tests := []struct {
		args       []string
		want       []string
		wantStatus int
	}{
		{args: []string{"plugins", "list", "--dir", dir},
			want: []string{"fixme\t" + filepath.Join(dir, "bin", "no-fixme") + "\tversion ^1\n", "tampered\t"}},
		{args: []string{"plugins", "check", "--dir", dir}, wantStatus: 1,
			want: []string{"version ^1\tok: 1.0.0, API 1.0.0, serves verifier\n", "tampered\t", "FAILED: ", "checksum"}},
		{args: []string{"plugins", "check", "--dir", dir, "--json"}, wantStatus: 1,
			want: []string{`"capabilities": [`, `"verifier"`, `"error": "`}},
		{args: []string{"plugins", "list", "--manifest", filepath.Join(dir, "missing.yaml")}, wantStatus: 1},
		{args: []string{"plugins", "frob", "--dir", dir}, wantStatus: 1},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := run(tt.args, &out, &errb); code != tt.wantStatus {
			t.Errorf("%v: exit %d, want %d\n%s%s", tt.args, code, tt.wantStatus, out.String(), errb.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: output lacks %q:\n%s", tt.args, w, out.String())
			}
		}
	}
}

// TestRunWithPluginReviewer: a plan's reviewer of kind plugin comes from the
// working tree's manifest; one the plugin does not serve stops the run
// before it starts, naming the plugin.
func TestRunWithPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	dir := testkit.WriteTree(t, map[string]string{"agent.sh": agentScript})
	_, sum := buildPlugin(t, dir)
	// A broken plugin the plan does not use is not started.
	os.WriteFile(filepath.Join(dir, guardrail.PluginManifest), []byte("plugins:\n  - name: fixme\n    path: bin/no-fixme\n    sha256: "+sum+"\n"+
		"  - name: broken\n    path: bin/missing\n    sha256: "+strings.Repeat("0", 64)+"\n"), 0o644)
	for _, tt := range []struct{ plugin, want string }{
		{"fixme", `"fixme": unavailable: plugin serves [verifier], not reviewer`},
		{"absent", `the plan names plugin "absent", which ` + filepath.Join(dir, guardrail.PluginManifest) + " does not list"},
	} {
		plan := strings.Replace(testkit.TwoTaskPlan, "executor:", "reviewer: {kind: plugin, plugin: "+tt.plugin+"}\nexecutor:", 1)
		os.WriteFile(filepath.Join(dir, "harnish.yaml"), []byte(plan), 0o644)
		var out, errb bytes.Buffer
		if code := run([]string{"run", "--dir", dir, "--yes", "--allow-dirty"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%s: exit %d, want 1 and %q:\n%s%s", tt.plugin, code, tt.want, out.String(), errb.String())
		}
	}
}

// TestManifestProtected: an agent may not rewrite the plugin manifest, which
// chooses the code the next run starts: not by a command, nor in a diff.
func TestManifestProtected(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"guard", "check", "--", "rm -f " + guardrail.PluginManifest}, &out, &errb); code != 2 {
		t.Errorf("guard check rm: exit %d, want 2\n%s%s", code, out.String(), errb.String())
	}
	patch := "diff --git a/" + guardrail.PluginManifest + " b/" + guardrail.PluginManifest + "\n--- a/" + guardrail.PluginManifest + "\n+++ b/" + guardrail.PluginManifest +
		"\n@@ -1 +1 @@\n-plugins: []\n+plugins: [{name: x}]\n"
	os.WriteFile(filepath.Join(dir, "p.diff"), []byte(patch), 0o644)
	stdin, _ := os.Open(filepath.Join(dir, "p.diff"))
	defer stdin.Close()
	old := os.Stdin
	os.Stdin = stdin
	defer func() { os.Stdin = old }()
	out.Reset()
	errb.Reset()
	if code := run([]string{"guard", "diff"}, &out, &errb); code != 2 || !strings.Contains(out.String()+errb.String(), "protected") {
		t.Errorf("guard diff: exit %d, want 2\n%s%s", code, out.String(), errb.String())
	}
}
