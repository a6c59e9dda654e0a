package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/plugins/plugintest"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

func tree(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestNoFixme unit-tests the plugin in process, through the real protocol,
// without building a binary.
func TestNoFixme(t *testing.T) {
	v := plugintest.Start(t, plugins.Plugin{Name: "no-fixme", Version: "1.0.0", Verifier: noFixme{}}).Verifier()
	tk := &task.Task{ID: "T1", Title: "t"}
	for _, tt := range []struct {
		files map[string]string
		pass  bool
	}{
		{map[string]string{"a.go": "package a\n", "notes.txt": "FIXME elsewhere is fine\n"}, true},
		{map[string]string{"a.go": "package a // FIXME\n"}, false},
	} {
		rep, err := v.Verify(context.Background(), &verify.Request{Task: tk, WorkDir: tree(t, tt.files)})
		if err != nil || rep == nil || rep.Passed != tt.pass {
			t.Errorf("%v: passed %v, %v; want %v", tt.files, rep != nil && rep.Passed, err, tt.pass)
			continue
		}
		if !tt.pass && (rep.Fingerprint.Summary != "FIXME left in a.go" || rep.Fingerprint.Class != verify.ClassLint) {
			t.Errorf("fingerprint %+v", rep.Fingerprint)
		}
	}
}

// TestAttached builds the plugin, names it in a manifest with its checksum,
// and runs a loop whose verifier is the task's checks, then the plugin: the
// agent's first attempt leaves a FIXME and is sent back.
func TestAttached(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "no-fixme")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	manifest := filepath.Join(filepath.Dir(bin), "plugins.yaml")
	os.WriteFile(manifest, []byte("plugins:\n  - name: no-fixme\n    path: no-fixme\n    sha256: "+hex.EncodeToString(sum[:])+"\n    version: \"^1\"\n"), 0o644)

	m, err := plugins.LoadManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	host, err := plugins.Open(context.Background(), plugins.Config{Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	v, err := host.Verifier("no-fixme")
	if err != nil {
		t.Fatal(err)
	}
	write := func(text string) looptest.Act {
		return looptest.Act{Do: func(req *executor.Request) error {
			return os.WriteFile(filepath.Join(req.WorkDir, "a.go"), []byte(text), 0o644)
		}}
	}
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {write("package a // FIXME\n"), write("package a\n")}}}
	plan := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "p1", Title: "P", Tasks: []task.Task{
		{ID: "T1", Title: "a", Acceptance: []task.Check{{Run: []string{"test", "-f", "a.go"}}}}}}}}
	res, rec, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: t.TempDir(), Executor: ex,
		Verifier: verify.Sequence{verify.Acceptance{}, v}})
	if err != nil || res.State.Tasks["T1"].Attempts != 2 {
		t.Fatalf("run: %v after %d attempts\n%v", err, res.State.Tasks["T1"].Attempts, rec.Lines())
	}
}
