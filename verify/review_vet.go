package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harnish/harnish/internal/proc"
	"github.com/harnish/harnish/schema"
)

// VetReviewer is a static [Reviewer]: it runs "go vet -json" and turns each
// diagnostic into a [Finding] whose Rule is "vet/" and the analyzer's name,
// with the severity [VetSeverity] gives (or Severity overrides). It reports
// only findings in the files the change touches, unless the request lists
// none. It is safe for concurrent use.
type VetReviewer struct {
	// Packages are the package patterns. Empty means ./... .
	Packages []string
	// Dir is the module directory, relative to the working tree's root.
	Dir string
	// Severity overrides [VetSeverity] for the analyzers it names, e.g.
	// {"copylocks": SeverityCritical} to send such changes back.
	Severity map[string]Severity
	// Timeout bounds go vet. Zero means [DefaultReviewTimeout].
	Timeout time.Duration
	// Go is the go command. Empty means "go" from PATH.
	Go string
}

// Review runs go vet on the working tree.
func (v *VetReviewer) Review(ctx context.Context, req *ReviewRequest) (*Review, error) {
	pkgs := v.Packages
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	out := &limitBuffer{max: maxReviewOutput}
	argv := append([]string{or(v.Go, "go"), "vet", "-json"}, pkgs...)
	res, err := runComponent(ctx, proc.Spec{Stage: "review", Argv: argv, Root: req.WorkDir, Dir: v.Dir,
		Stdout: out, Timeout: or(v.Timeout, DefaultReviewTimeout)})
	if err != nil {
		return nil, err
	}
	if out.over {
		return nil, &Error{Kind: KindProtocol, NonRetryable: true, Tail: res.Stdout, Err: fmt.Errorf("go vet output over %d bytes", maxReviewOutput)}
	}
	findings, err := ParseVetJSON(out.Bytes(), res.Dir)
	if err != nil {
		return nil, &Error{Kind: KindProtocol, NonRetryable: true, Tail: res.Output, Err: err}
	}
	root, _ := proc.Confine(req.WorkDir, "")
	var touched map[string]bool
	if len(req.Files) > 0 {
		touched = map[string]bool{}
		for _, f := range req.Files {
			touched[schema.CleanPath(f)] = true
		}
	}
	review := &Review{Findings: []Finding{}}
	for _, f := range findings {
		// Paths relative to the module directory become relative to the root.
		if abs := filepath.Join(res.Dir, filepath.FromSlash(f.File)); !filepath.IsAbs(f.File) && root != "" {
			if rel, err := filepath.Rel(root, abs); err == nil {
				f.File = filepath.ToSlash(rel)
			}
		}
		if touched != nil && !touched[schema.CleanPath(f.File)] {
			continue
		}
		if sev, ok := v.Severity[strings.TrimPrefix(f.Rule, "vet/")]; ok {
			f.Severity = sev
		}
		review.Findings = append(review.Findings, f)
	}
	return review, nil
}

// vetSeverities are the analyzers whose findings are usually real bugs
// (high) or matters of form (low); the rest are medium.
var vetSeverities = map[string]Severity{
	"atomic": SeverityHigh, "copylocks": SeverityHigh, "errorsas": SeverityHigh, "httpresponse": SeverityHigh,
	"lostcancel": SeverityHigh, "loopclosure": SeverityHigh, "nilfunc": SeverityHigh, "printf": SeverityHigh,
	"shift": SeverityHigh, "stdmethods": SeverityHigh, "stringintconv": SeverityHigh, "unmarshal": SeverityHigh,
	"unsafeptr": SeverityHigh, "ifaceassert": SeverityHigh, "sigchanyzer": SeverityHigh, "testinggoroutine": SeverityHigh,
	"waitgroup": SeverityHigh, "defers": SeverityHigh, "timeformat": SeverityHigh, "appends": SeverityHigh,
	"composites": SeverityLow, "unreachable": SeverityLow, "structtag": SeverityLow, "buildtag": SeverityLow,
	"directive": SeverityLow, "stdversion": SeverityLow,
}

// VetSeverity returns the default severity of a go vet analyzer's findings:
// high for those that are usually bugs (copylocks, lostcancel, printf, ...),
// low for matters of form (composites, unreachable, structtag, ...), medium
// otherwise.
func VetSeverity(analyzer string) Severity {
	if s, ok := vetSeverities[analyzer]; ok {
		return s
	}
	return SeverityMedium
}

// ParseVetJSON reads go vet -json output: a stream of JSON objects, one per
// package, mapping analyzer names to diagnostics ({"posn", "message"}) or to
// {"error"}. Lines starting with "#" (package headers) are skipped. File
// paths are made relative to dir when they lie inside it. Findings come
// sorted by file, line, rule and message. An analyzer's error, or output
// that does not parse, is an error wrapping [ErrProtocol].
func ParseVetJSON(data []byte, dir string) ([]Finding, error) {
	var clean bytes.Buffer
	for line := range bytes.Lines(data) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			clean.Write(line)
		}
	}
	var findings []Finding
	dec := json.NewDecoder(&clean)
	for {
		var pkgs map[string]map[string]json.RawMessage
		if err := dec.Decode(&pkgs); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: go vet -json: %v", ErrProtocol, err)
		}
		for pkg, analyzers := range pkgs {
			for name, raw := range analyzers {
				var diags []struct {
					Posn    string `json:"posn"`
					Message string `json:"message"`
				}
				if err := json.Unmarshal(raw, &diags); err != nil {
					var failed struct {
						Error string `json:"error"`
					}
					if json.Unmarshal(raw, &failed) == nil && failed.Error != "" {
						return nil, fmt.Errorf("%w: go vet: %s: analyzer %s: %s", ErrProtocol, pkg, name, failed.Error)
					}
					return nil, fmt.Errorf("%w: go vet -json: %s: %s: %v", ErrProtocol, pkg, name, err)
				}
				for _, d := range diags {
					file, line := splitPosn(d.Posn, dir)
					findings = append(findings, Finding{Severity: VetSeverity(name), File: file, Line: line,
						Message: d.Message, Rule: "vet/" + name})
				}
			}
		}
	}
	slices.SortFunc(findings, func(a, b Finding) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if c := strings.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return findings, nil
}

// splitPosn splits "file:line:col" (or "file:line") and makes file relative
// to dir when it lies inside it.
func splitPosn(posn, dir string) (string, int) {
	file, line := posn, 0
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(file[i+1:])
		if err != nil || n < 0 {
			break
		}
		file, line = file[:i], n
	}
	if dir != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(rel) {
			file = rel
		}
	}
	return filepath.ToSlash(file), line
}
