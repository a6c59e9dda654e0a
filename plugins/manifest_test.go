package plugins_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins"
)

const hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestParseManifest(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plugins.yaml")
	y := `plugins:
  - name: msvc
    path: bin/harnish-msvc
    sha256: ` + hash + `
    version: ">= 1.2, < 2"
    timeout: 45m
    settings: {generator: Ninja, jobs: 4}
  - name: abs
    path: /opt/p
    sha256: ` + strings.ToUpper(hash) + `
`
	got, err := plugins.ParseManifest(file, []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	want := &plugins.Manifest{Plugins: []plugins.Spec{
		{Name: "msvc", Path: filepath.Join(dir, "bin", "harnish-msvc"), SHA256: hash, Version: ">= 1.2, < 2",
			Timeout: 45 * time.Minute, Settings: map[string]string{"generator": "Ninja", "jobs": "4"}},
		{Name: "abs", Path: "/opt/p", SHA256: strings.ToUpper(hash)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseManifestErrors(t *testing.T) {
	ok := "  - name: a\n    path: p\n    sha256: " + hash + "\n"
	tests := []struct {
		name, yaml string
		// want is the error's text after "plugins: m.yaml".
		want string
	}{
		{"empty", "", ": empty manifest"},
		{"not a mapping", "- 1\n", ":1:1: must be a mapping"},
		{"no plugins", "other: 1\n", ":1:1: other: unknown field"},
		{"missing plugins", "{}\n", ":1:1: plugins: missing"},
		{"plugins not a list", "plugins: 3\n", ":1:10: plugins: must be a list"},
		{"unknown field", "plugins:\n" + ok + "    colour: red\n", ":5:5: plugins[0].colour: unknown field"},
		{"duplicate field", "plugins:\n" + ok + "    name: b\n", ":5:5: plugins[0].name: duplicate field"},
		{"duplicate plugin", "plugins:\n" + ok + ok, ":5:5: plugins[1].name: duplicate plugin \"a\""},
		{"bad name", "plugins:\n  - name: a b\n    path: p\n    sha256: " + hash + "\n", ":2:11: plugins[0].name: invalid plugin name"},
		{"missing path", "plugins:\n  - name: a\n    sha256: " + hash + "\n", ":2:5: plugins[0].path: missing"},
		{"short sha", "plugins:\n  - name: a\n    path: p\n    sha256: abc\n", ":4:13: plugins[0].sha256: must be 64 hex digits, got 3"},
		{"non-hex sha", "plugins:\n  - name: a\n    path: p\n    sha256: " + strings.Repeat("g", 64) + "\n", ":4:13: plugins[0].sha256: must be 64 hex digits"},
		{"bad constraint", "plugins:\n" + ok + "    version: \"~> nope\"\n", ":5:14: plugins[0].version: invalid constraint"},
		{"bad timeout", "plugins:\n" + ok + "    timeout: soon\n", ":5:14: plugins[0].timeout: invalid duration \"soon\""},
		{"negative timeout", "plugins:\n" + ok + "    timeout: -1s\n", ":5:14: plugins[0].timeout: negative duration"},
		{"settings not a map", "plugins:\n" + ok + "    settings: [1]\n", ":5:15: plugins[0].settings: must be a mapping"},
		{"setting not a scalar", "plugins:\n" + ok + "    settings: {a: [1]}\n", ":5:19: plugins[0].settings.a: must be a string"},
		{"null path", "plugins:\n  - name: a\n    path: null\n    sha256: " + hash + "\n", ":3:11: plugins[0].path: must be a string"},
		{"two documents", "plugins: []\n---\nplugins: []\n", ":2:1: more than one YAML document"},
		{"bad yaml", "plugins: [\n", ": yaml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := plugins.ParseManifest("m.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if want := "plugins: m.yaml" + tt.want; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error\n  %q\ndoes not start with\n  %q", err, want)
			}
			if _, ok := errors.AsType[*plugins.ManifestError](err); !ok {
				t.Errorf("error %v is not a *ManifestError", err)
			}
		})
	}
}

func TestLoadManifest(t *testing.T) {
	if _, err := plugins.LoadManifest(filepath.Join(t.TempDir(), "none.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want not-exist", err)
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte("plugins:\n  - name: a\n    path: p\n    sha256: " + hash + "\n    settings: {x: y}\n    timeout: 1m\n    version: '^1'\n"))
	f.Add([]byte("plugins: []\n"))
	f.Add([]byte("plugins:\n  - {name: a, name: b}\n"))
	f.Add([]byte("- [\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := plugins.ParseManifest("fuzz.yaml", data)
		if err != nil {
			if _, ok := errors.AsType[*plugins.ManifestError](err); !ok {
				t.Fatalf("error %v is not a *ManifestError", err)
			}
			if !strings.HasPrefix(err.Error(), "plugins: fuzz.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range m.Plugins {
			if s.Name == "" || s.Path == "" || len(s.SHA256) != 64 || s.Timeout < 0 || seen[s.Name] {
				t.Fatalf("accepted an invalid spec %+v", s)
			}
			if !filepath.IsAbs(s.Path) {
				t.Fatalf("path %q not made absolute", s.Path)
			}
			seen[s.Name] = true
		}
	})
}
