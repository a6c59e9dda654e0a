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
	os.WriteFile(filepath.Join(dir, manifestName), []byte(manifest), 0o644)
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
	dir := writeTree(t, map[string]string{"agent.sh": agentScript})
	_, sum := buildPlugin(t, dir)
	os.WriteFile(filepath.Join(dir, manifestName), []byte("plugins:\n  - name: fixme\n    path: bin/no-fixme\n    sha256: "+sum+"\n"), 0o644)
	plan := strings.Replace(twoTaskPlan, "executor:", "reviewer: {kind: plugin, plugin: fixme}\nexecutor:", 1)
	os.WriteFile(filepath.Join(dir, "harnish.yaml"), []byte(plan), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--dir", dir, "--yes", "--allow-dirty"}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "fixme") || !strings.Contains(errb.String(), "review") {
		t.Errorf("exit %d, want 1 naming the plugin and what it lacks:\n%s%s", code, out.String(), errb.String())
	}
}
