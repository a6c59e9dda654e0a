package task_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
)

// checkPlan wraps one acceptance check (a YAML flow mapping) in a plan.
func checkPlan(check string) string {
	return phase("{id: T1, title: One, acceptance: [" + check + "]}")
}

func TestCheckKindsParse(t *testing.T) {
	tests := []struct {
		name  string
		check string
		want  task.Check
		kind  string
	}{
		{"gotest defaults", "{gotest: {}}", task.Check{GoTest: &task.GoTestCheck{}}, "gotest"},
		{"gotest short form", "{gotest: ./calc/...}", task.Check{GoTest: &task.GoTestCheck{Packages: []string{"./calc/..."}}}, "gotest"},
		{
			"gotest with options",
			"{gotest: {packages: [./calc/..., ./x], flags: [-race, -count=1], min_tests: 3}, dir: sub, timeout: 5m}",
			task.Check{GoTest: &task.GoTestCheck{Packages: []string{"./calc/...", "./x"}, Flags: []string{"-race", "-count=1"}, MinTests: 3},
				Dir: "sub", Timeout: task.Duration(5 * 60e9)},
			"gotest",
		},
		{"cmake defaults", "{cmake: {}}", task.Check{CMake: &task.CMakeCheck{}}, "cmake"},
		{
			"cmake with a preset",
			"{cmake: {preset: dev, config: Release, compiler_id: MSVC}, dir: cpp}",
			task.Check{CMake: &task.CMakeCheck{Preset: "dev", Config: "Release", CompilerID: "MSVC"}, Dir: "cpp"},
			"cmake",
		},
		{"cmake with a build dir", "{cmake: {build_dir: out/b}}", task.Check{CMake: &task.CMakeCheck{BuildDir: "out/b"}}, "cmake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := task.Parse("plan.yaml", []byte(checkPlan(tt.check)))
			if err != nil {
				t.Fatal(err)
			}
			got := p.Phases[0].Tasks[0].Acceptance[0]
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("check (-want +got):\n%s", diff)
			}
			if got.Kind() != tt.kind {
				t.Errorf("Kind = %q, want %q", got.Kind(), tt.kind)
			}
		})
	}
}

func TestCheckKindsValidation(t *testing.T) {
	const at = "plan.yaml:7:"
	tests := []struct {
		name  string
		check string
		want  []string // messages after "plan.yaml:7:COL: "
	}{
		{"gotest and run", "{gotest: {}, run: [make]}", []string{"phases[0].tasks[0].acceptance[0]: a check has exactly one of run, sh, manual, gotest, cmake, plugin; this one has run and gotest"}},
		{"cmake and gotest", "{gotest: {}, cmake: {}}", []string{"phases[0].tasks[0].acceptance[0]: a check has exactly one of run, sh, manual, gotest, cmake, plugin; this one has gotest and cmake"}},
		{"gotest null is no check", "{gotest: null}", []string{"phases[0].tasks[0].acceptance[0]: a check needs one of run, sh, manual, gotest, cmake, plugin"}},
		{"flag as a package", "{gotest: {packages: [-race, '']}}", []string{
			`phases[0].tasks[0].acceptance[0].gotest.packages[0]: "-race" is not a package pattern such as ./...; flags go in flags`,
			`phases[0].tasks[0].acceptance[0].gotest.packages[1]: "" is not a package pattern such as ./...; flags go in flags`,
		}},
		{"package as a flag", "{gotest: {flags: [./..., -json, -c, '-']}}", []string{
			`phases[0].tasks[0].acceptance[0].gotest.flags[0]: "./..." is not a flag; packages go in packages`,
			`phases[0].tasks[0].acceptance[0].gotest.flags[1]: -json is always passed`,
			`phases[0].tasks[0].acceptance[0].gotest.flags[2]: "-c" does not run tests`,
			`phases[0].tasks[0].acceptance[0].gotest.flags[3]: "-" is not a flag; packages go in packages`,
		}},
		{"min_tests 0 written", "{gotest: {min_tests: 0}}", []string{"phases[0].tasks[0].acceptance[0].gotest.min_tests: 0 is out of range 1..1000000"}},
		{"min_tests negative", "{gotest: {min_tests: -2}}", []string{"phases[0].tasks[0].acceptance[0].gotest.min_tests: -2 is out of range 1..1000000"}},
		{"unknown gotest option", "{gotest: {package: [x]}}", []string{`phases[0].tasks[0].acceptance[0].gotest.package: unknown field (did you mean "packages"?)`}},
		{"cmake bad names", "{cmake: {preset: 'a b', config: '', compiler_id: '-x'}}", []string{
			`phases[0].tasks[0].acceptance[0].cmake.preset: "a b" is not a preset name`,
			`phases[0].tasks[0].acceptance[0].cmake.config: "" is not a configuration such as Release`,
			`phases[0].tasks[0].acceptance[0].cmake.compiler_id: "-x" is not a compiler ID such as GNU, Clang or MSVC`,
		}},
		{"cmake build dir outside", "{cmake: {build_dir: ../b}}", []string{`phases[0].tasks[0].acceptance[0].cmake.build_dir: "../b" leaves the working tree`}},
		{"cmake absolute build dir", "{cmake: {build_dir: /tmp/b}}", []string{`phases[0].tasks[0].acceptance[0].cmake.build_dir: "/tmp/b" is absolute; paths are relative to the working tree's root`}},
		{"cmake build dir with a preset", "{cmake: {preset: dev, build_dir: b}}", []string{"phases[0].tasks[0].acceptance[0].cmake.build_dir: with a preset, the preset's binaryDir is the build directory"}},
		{"cmake gotest-only option", "{cmake: {flags: [-x]}}", []string{`phases[0].tasks[0].acceptance[0].cmake.flags: unknown field (valid fields: build_dir, compiler_id, config, preset)`}},
		{"cmake dir outside", "{cmake: {}, dir: ../x}", []string{`phases[0].tasks[0].acceptance[0].dir: "../x" leaves the working tree`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := task.Parse("plan.yaml", []byte(checkPlan(tt.check)))
			if !errors.Is(err, task.ErrSchema) {
				t.Fatalf("Parse error = %v, want ErrSchema", err)
			}
			var got []string
			for _, p := range err.(task.Problems) {
				msg := p.Error()
				if !strings.HasPrefix(msg, at) {
					t.Errorf("problem %q is not on line 7", msg)
					continue
				}
				_, rest, _ := strings.Cut(strings.TrimPrefix(msg, at), ": ")
				got = append(got, rest)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// Checks built in code are validated the same way.
func TestCheckKindsInCode(t *testing.T) {
	p := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "p1", Title: "P", Tasks: []task.Task{{
		ID: "T1", Title: "One", Acceptance: []task.Check{
			{GoTest: &task.GoTestCheck{MinTests: task.MaxMinTests + 1}},
			{CMake: &task.CMakeCheck{CompilerID: "GNU"}},
		},
	}}}}}
	var got []string
	for _, pr := range p.Validate() {
		got = append(got, pr.Error())
	}
	want := []string{"phases[0].tasks[0].acceptance[0].gotest.min_tests: 1000001 is out of range 1..1000000"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
