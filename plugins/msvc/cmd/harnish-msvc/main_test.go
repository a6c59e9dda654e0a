package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// build compiles the plugin and returns its path and checksum.
func build(t *testing.T) (string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the plugin binary")
	}
	bin := filepath.Join(t.TempDir(), "harnish-msvc")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return bin, hex.EncodeToString(sum[:])
}

// The plugin, started by a real host: its settings reach the verifier, and
// a bad setting makes it unavailable.
func TestPlugin(t *testing.T) {
	bin, sum := build(t)
	tests := []struct {
		name     string
		settings map[string]string
		files    map[string]string
		passed   bool
		tail     string
		openErr  string
	}{
		{"nothing to verify", nil, map[string]string{"main.go": "package main"}, true, "nothing to verify", ""},
		{"settings override the tree's file",
			map[string]string{"config": `{"version": 1, "projectType": "msbuild", "msbuild": {"testCommand": ["t"]}}`},
			map[string]string{".harnish/msvc.json": `{"version": 1}`, "main.go": "package main"}, false, "", "projectType msbuild, and no .sln"},
		{"unknown setting", map[string]string{"generator": "Ninja"}, nil, false, "", `plugin setting "generator" is unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &plugins.Manifest{Plugins: []plugins.Spec{{Name: "msvc", Path: bin, SHA256: sum, Settings: tt.settings}}}
			host, err := plugins.Open(t.Context(), plugins.Config{Manifest: m})
			if err != nil {
				if tt.openErr == "" || !strings.Contains(err.Error(), tt.openErr) {
					t.Fatalf("Open: %v; want error %q", err, tt.openErr)
				}
				return
			}
			defer host.Close()
			v, err := host.Verifier("msvc")
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			for name, content := range tt.files {
				p := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := v.Verify(t.Context(), &verify.Request{Task: &task.Task{ID: "T1"}, WorkDir: root})
			if tt.openErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.openErr) {
					t.Fatalf("Verify() = %+v, %v; want error %q", rep, err, tt.openErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Passed != tt.passed || len(rep.Checks) == 0 || !strings.Contains(rep.Checks[0].OutputTail, tt.tail) {
				t.Errorf("report = %+v; want passed %t with %q", rep, tt.passed, tt.tail)
			}
		})
	}
}
