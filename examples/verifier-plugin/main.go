// Command verifier-plugin is a custom harnish verifier served as a plugin: it
// fails a change that leaves a FIXME in a Go file. See README.md.
package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/verify"
)

type noFixme struct{}

func (noFixme) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	var found []string
	err := filepath.WalkDir(req.WorkDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if bytes.Contains(data, []byte("FIXME")) {
			rel, _ := filepath.Rel(req.WorkDir, path)
			found = append(found, rel)
		}
		return err
	})
	if err != nil {
		return nil, err // the check could not run
	}
	check := verify.CheckResult{Name: "no FIXME in Go files", Passed: len(found) == 0, OutputTail: strings.Join(found, "\n")}
	rep := &verify.Report{Passed: check.Passed, Checks: []verify.CheckResult{check}}
	if !rep.Passed {
		rep.Fingerprint = verify.NewFingerprint(verify.ClassLint, check.OutputTail, "FIXME left in "+found[0])
	}
	return rep, nil
}

func main() {
	plugins.Serve(plugins.Plugin{Name: "no-fixme", Version: "1.0.0", Verifier: noFixme{}})
}
