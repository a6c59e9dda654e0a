package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the harnish the tests build, once for the test binary.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var buildHarnish = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "harnish-cli-test-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "harnish")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// harnishBinary returns the harnish built from this package, building it
// the first time; with -short, the test is skipped.
func harnishBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := buildHarnish()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
