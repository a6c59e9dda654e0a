package main_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// forbidden are the packages harnish-hook must not link: the plugin host's
// and the network's, whose size and init are what it exists to skip.
var forbidden = []string{
	"google.golang.org/grpc",
	"google.golang.org/protobuf",
	"github.com/hashicorp/go-plugin",
	"net/http",
	"encoding/gob",
}

// forbiddenDeps returns, for each forbidden package pkg depends on, a line
// naming it and the packages that import it.
func forbiddenDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	importers := map[string][]string{} // forbidden package -> its importers
	var found []string
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if isForbidden(fields[0]) && !slices.Contains(found, fields[0]) {
			found = append(found, fields[0])
		}
		for _, imp := range fields[1:] {
			if isForbidden(imp) && !isForbidden(fields[0]) {
				importers[imp] = append(importers[imp], fields[0])
			}
		}
	}
	var lines []string
	for _, p := range found {
		if by := importers[p]; len(by) > 0 {
			lines = append(lines, p+" (imported by "+strings.Join(by, ", ")+")")
		}
	}
	return lines
}

func isForbidden(path string) bool {
	for _, f := range forbidden {
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

func TestNoPluginHost(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	if bad := forbiddenDeps(t, "."); len(bad) > 0 {
		t.Errorf("harnish-hook links what it exists to leave out:\n  %s", strings.Join(bad, "\n  "))
	}
	// The check sees what it looks for: the full CLI links all of it.
	full := strings.Join(forbiddenDeps(t, "github.com/harnish/harnish/cmd/harnish"), "\n")
	for _, p := range []string{"google.golang.org/grpc ", "github.com/hashicorp/go-plugin ", "net/http "} {
		if !strings.Contains(full, p) {
			t.Errorf("the dependency check does not find %s in cmd/harnish; it found:\n%s", p, full)
		}
	}
}
