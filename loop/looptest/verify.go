package looptest

import (
	"context"
	"sync"

	"github.com/harnish/harnish/verify"
)

// Verifier is a scripted [verify.Verifier]: per task ID, one fingerprint per
// attempt. An empty string, or an attempt past the script, passes; any other
// string fails the checks with a test failure of that fingerprint hash.
type Verifier struct {
	Script map[string][]string
	// Panic panics inside Verify.
	Panic bool
}

// Verify reports as scripted.
func (v *Verifier) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	if v.Panic {
		panic("looptest: scripted verifier panic")
	}
	var fp string
	if s := v.Script[req.Task.ID]; req.Attempt >= 1 && req.Attempt <= len(s) {
		fp = s[req.Attempt-1]
	}
	if fp == "" {
		return &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "scripted", Passed: true}}}, nil
	}
	return &verify.Report{
		Checks:      []verify.CheckResult{{Name: "scripted", ExitCode: 1, OutputTail: "FAIL " + fp}},
		Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: fp, Summary: "scripted failure " + fp},
	}, nil
}

// Reviewer is a scripted [verify.Reviewer]: per task ID, one entry per
// attempt; true finds a critical problem (the same one each time, so three
// in a row are a plateau), false or past the script finds nothing. It
// records the requests.
type Reviewer struct {
	Critical map[string][]bool
	// Panic panics inside Review.
	Panic bool

	mu       sync.Mutex
	requests []*verify.ReviewRequest
}

// Requests returns the requests Review received, in order.
func (r *Reviewer) Requests() []*verify.ReviewRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*verify.ReviewRequest(nil), r.requests...)
}

// Review reports as scripted.
func (r *Reviewer) Review(ctx context.Context, req *verify.ReviewRequest) (*verify.Review, error) {
	r.mu.Lock()
	r.requests = append(r.requests, req)
	r.mu.Unlock()
	if r.Panic {
		panic("looptest: scripted reviewer panic")
	}
	if s := r.Critical[req.Task.ID]; req.Attempt >= 1 && req.Attempt <= len(s) && s[req.Attempt-1] {
		return &verify.Review{Findings: []verify.Finding{{Severity: verify.SeverityCritical, File: req.Task.ID + ".go",
			Line: req.Attempt, Message: "scripted critical finding", Rule: "scripted"}}}, nil
	}
	return &verify.Review{}, nil
}
