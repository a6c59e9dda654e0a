package msvc_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/fsx"
)

// fakeTools are the programs the test binary stands in for when copied
// under their name: vswhere, msbuild, cmake and a test program.
var fakeTools = map[string]bool{"vswhere": true, "msbuild": true, "cmake": true, "tests": true}

// TestMain runs the test binary as a fake tool when it is called by one of
// their names; see fake.
func TestMain(m *testing.M) {
	name := strings.ToLower(strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"))
	if fakeTools[name] {
		os.Exit(runFake(os.Args[0]))
	}
	os.Exit(m.Run())
}

// runFake behaves as the files beside the program say: it writes its
// arguments to PROG.args, prints PROG.out, sleeps PROG.sleep (a duration)
// and exits with PROG.exit (default 0).
func runFake(prog string) int {
	base := strings.TrimSuffix(prog, ".exe")
	args, _ := json.Marshal(os.Args[1:])
	if err := os.WriteFile(base+".args", args, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	if out, err := os.ReadFile(base + ".out"); err == nil {
		os.Stdout.Write(out)
	}
	if d, err := os.ReadFile(base + ".sleep"); err == nil {
		dur, _ := time.ParseDuration(strings.TrimSpace(string(d)))
		time.Sleep(dur)
	}
	if e, err := os.ReadFile(base + ".exit"); err == nil {
		code, _ := strconv.Atoi(strings.TrimSpace(string(e)))
		return code
	}
	return 0
}

// fake installs the test binary at path (slash-separated, under root,
// named NAME.exe so it runs as such on Windows too) as a fake tool printing
// out and exiting with code, and returns its absolute path.
func fake(t *testing.T, root, path, out string, code int) string {
	t.Helper()
	dst := filepath.Join(root, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, dst); err != nil {
		copyFile(t, self, dst)
	}
	base := strings.TrimSuffix(dst, ".exe")
	writeFile(t, "", base+".out", out)
	writeFile(t, "", base+".exit", strconv.Itoa(code))
	return dst
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	// The copy is run next: no process may be started while it is open
	// for writing (see fsx.NoFork).
	err = fsx.NoFork(func() error {
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fakeArgs returns the arguments the fake tool at prog was last called
// with, or nil if it was not.
func fakeArgs(t *testing.T, prog string) []string {
	t.Helper()
	data, err := os.ReadFile(strings.TrimSuffix(prog, ".exe") + ".args")
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	if err := json.Unmarshal(data, &args); err != nil {
		t.Fatal(err)
	}
	return args
}
