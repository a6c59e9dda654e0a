//go:build unix

package verify_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

type panicky struct{}

func (panicky) Verify(context.Context, *verify.Request) (*verify.Report, error) { panic("boom") }

type nilReport struct{}

func (nilReport) Verify(context.Context, *verify.Request) (*verify.Report, error) { return nil, nil }

func TestSequence(t *testing.T) {
	pass := &verify.Command{Argv: []string{"true"}}
	fail := &verify.Command{Script: "echo broken; exit 1"}
	never := &verify.Command{Script: "touch ran"}
	tests := []struct {
		name   string
		seq    verify.Sequence
		passed bool
		names  []string
		is     error
	}{
		{"all pass", verify.Sequence{pass, pass}, true, []string{"true", "true"}, nil},
		{"stops at the first failure", verify.Sequence{pass, fail, never}, false, []string{"true", "echo broken; exit 1"}, nil},
		{"empty", nil, false, nil, verify.ErrNoChecks},
		{"a panic is a crash", verify.Sequence{pass, panicky{}}, false, nil, verify.ErrCrashed},
		{"neither report nor error", verify.Sequence{nilReport{}}, false, nil, verify.ErrProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := tt.seq.Verify(t.Context(), request(t, t.TempDir()))
			if !errors.Is(err, tt.is) || (tt.is != nil) != (err != nil) {
				t.Fatalf("error = %v, want %v", err, tt.is)
			}
			if err != nil {
				return
			}
			var names []string
			for _, c := range rep.Checks {
				names = append(names, c.Name)
			}
			if diff := cmp.Diff(tt.names, names); diff != "" || rep.Passed != tt.passed {
				t.Errorf("passed = %t, want %t; checks (-want +got):\n%s", rep.Passed, tt.passed, diff)
			}
			if !tt.passed && rep.Fingerprint.IsZero() {
				t.Error("a failing sequence without a fingerprint")
			}
		})
	}
}

func TestAcceptance(t *testing.T) {
	tk := &task.Task{ID: "T1", Title: "t", Acceptance: []task.Check{
		{Manual: "looks right"},
		{Run: []string{"true"}},
		{Sh: "exit 4"},
	}}
	tests := []struct {
		name   string
		checks []task.Check
		passed bool
		names  []string
		is     error
	}{
		{"the task's checks when the request has none", nil, false, []string{"true", "exit 4"}, nil},
		{"the request's checks", []task.Check{{Run: []string{"true"}}}, true, []string{"true"}, nil},
		{"only manual checks", []task.Check{{Manual: "x"}}, false, nil, verify.ErrNoChecks},
		{"an empty list", []task.Check{}, false, nil, verify.ErrNoChecks},
		{"a check of no kind", []task.Check{{Dir: "x"}}, false, nil, verify.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request(t, t.TempDir())
			req.Task, req.Checks = tk, tt.checks
			rep, err := verify.Acceptance{}.Verify(t.Context(), req)
			if !errors.Is(err, tt.is) || (tt.is != nil) != (err != nil) {
				t.Fatalf("error = %v, want %v", err, tt.is)
			}
			if err != nil {
				return
			}
			var names []string
			for _, c := range rep.Checks {
				names = append(names, c.Name)
			}
			if diff := cmp.Diff(tt.names, names); diff != "" || rep.Passed != tt.passed {
				t.Errorf("passed = %t, want %t; checks (-want +got):\n%s", rep.Passed, tt.passed, diff)
			}
		})
	}
}

func TestFromCheck(t *testing.T) {
	tests := []struct {
		name  string
		check task.Check
		want  verify.Verifier
		is    error
	}{
		{"run", task.Check{Run: []string{"make", "test"}, Dir: "d", Timeout: task.Duration(5e9)},
			&verify.Command{Argv: []string{"make", "test"}, Dir: "d", Timeout: 5e9}, nil},
		{"sh", task.Check{Sh: "make && make test"}, &verify.Command{Script: "make && make test"}, nil},
		{"gotest", task.Check{GoTest: &task.GoTestCheck{Packages: []string{"./a"}, Flags: []string{"-race"}, MinTests: 3}, Dir: "m"},
			&verify.GoTest{Packages: []string{"./a"}, Flags: []string{"-race"}, MinTests: 3, Dir: "m"}, nil},
		{"cmake", task.Check{CMake: &task.CMakeCheck{Preset: "dev", Config: "Release", CompilerID: "MSVC"}, Dir: "cpp"},
			&verify.CMake{Preset: "dev", Config: "Release", CompilerID: "MSVC", Dir: "cpp"}, nil},
		{"manual", task.Check{Manual: "x"}, nil, verify.ErrNoChecks},
		{"none", task.Check{}, nil, verify.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verify.FromCheck(tt.check)
			if !errors.Is(err, tt.is) || (tt.is != nil) != (err != nil) {
				t.Fatalf("error = %v, want %v", err, tt.is)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
