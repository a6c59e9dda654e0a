package msvc_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins/msvc"
)

func TestParseConfig(t *testing.T) {
	full := `{
  "version": 1,
  "projectType": "cmake",
  "configuration": "RelWithDebInfo",
  "platform": "ARM64",
  "compilerId": "GNU",
  "timeout": 600,
  "cmake": {"sourceDir": "cpp", "configurePreset": "c", "buildPreset": "b", "testPreset": "t", "binaryDir": "out/build/c"},
  "tdd": {"patterns": {".cpp": ["{stem}_test.cpp", "test_{stem}.cpp"]}}
}`
	tests := []struct {
		name string
		in   string
		want *msvc.Config
	}{
		{"minimal", `{"version": 1}`, &msvc.Config{Version: 1}},
		{"everything for CMake", full, &msvc.Config{Version: 1, ProjectType: msvc.CMake, Configuration: "RelWithDebInfo",
			Platform: "ARM64", CompilerID: "GNU", Timeout: 600,
			CMake: &msvc.CMakeConfig{SourceDir: "cpp", ConfigurePreset: "c", BuildPreset: "b", TestPreset: "t", BinaryDir: "out/build/c"},
			TDD:   &msvc.TDDConfig{Patterns: map[string][]string{".cpp": {"{stem}_test.cpp", "test_{stem}.cpp"}}}}},
		{"MSBuild", `{"version": 1, "projectType": "msbuild", "msbuild": {"project": "src\\app.sln", "testCommand": ["x64\\Debug\\tests.exe", "--gtest_brief=1"]}}`,
			&msvc.Config{Version: 1, ProjectType: msvc.MSBuild,
				MSBuild: &msvc.MSBuildConfig{Project: `src\app.sln`, TestCommand: []string{`x64\Debug\tests.exe`, "--gtest_brief=1"}}}},
		{"a generator, any compiler", `{"version": 1, "compilerId": "any", "cmake": {"generator": "Ninja"}}`,
			&msvc.Config{Version: 1, CompilerID: "any", CMake: &msvc.CMakeConfig{Generator: "Ninja"}}},
		{"a test program from PATH", `{"version": 1, "msbuild": {"testCommand": ["ctest", "--test-dir", "build"]}}`,
			&msvc.Config{Version: 1, MSBuild: &msvc.MSBuildConfig{TestCommand: []string{"ctest", "--test-dir", "build"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := msvc.ParseConfig([]byte(tt.in), "msvc.json")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseConfigRejects: every rule, each error with file, line:col and
// field.
func TestParseConfigRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"not JSON", `{"version": 1,}`, []string{`f.json:1:15: JSON syntax: invalid character '}' looking for beginning of object key string`}},
		{"not an object", `[1]`, []string{`f.json:1:1: not a JSON object`}},
		{"empty", ``, []string{`f.json:1:1: unexpected end of JSON`}},
		{"cut short", `{"version": 1, "cmake": {`, []string{`f.json:1:26: unexpected end of JSON`}},
		{"two values", `{"version": 1} {}`, []string{`f.json:1:17: more than one JSON value`}},
		{"unknown field", "{\"version\": 1,\n  \"cmake\": {\"preset\": \"x\"}}", []string{
			`f.json:2:13: cmake.preset: unknown field (valid fields: binaryDir, buildPreset, configurePreset, generator, sourceDir, testPreset)`}},
		{"unknown field at the top", `{"version": 1, "vesion": 2}`, []string{
			`f.json:1:16: vesion: unknown field (valid fields: cmake, compilerId, configuration, msbuild, platform, projectType, tdd, timeout, version)`}},
		{"field name in another case", `{"Version": 1}`, []string{
			`f.json:1:2: Version: unknown field (valid fields: cmake, compilerId, configuration, msbuild, platform, projectType, tdd, timeout, version)`}},
		{"field given twice", `{"version": 1, "version": 1}`, []string{`f.json:1:16: version: given twice`}},
		{"wrong type", "{\"version\": 1,\n \"timeout\": \"30m\"}", []string{`f.json:2:13: timeout: string where a whole number is wanted`}},
		{"wrong type, nested", `{"version": 1, "msbuild": {"testCommand": "run.exe"}}`, []string{`f.json:1:43: msbuild.testCommand: string where an array is wanted`}},
		{"version missing", `{}`, []string{`f.json: version: 0 is not a supported version; want 1`}},
		{"version 2", `{"version": 2}`, []string{`f.json:1:13: version: 2 is not a supported version; want 1`}},
		{"project type", `{"version": 1, "projectType": "make"}`, []string{`f.json:1:31: projectType: "make" is not one of cmake, msbuild`}},
		{"names", `{"version": 1, "configuration": "De bug", "platform": "x/64", "compilerId": "1cc"}`, []string{
			`f.json:1:33: configuration: "De bug" is not a configuration name such as Debug`,
			`f.json:1:55: platform: "x/64" is not a platform name such as x64`,
			`f.json:1:77: compilerId: "1cc" is not a compiler ID such as MSVC, GNU or Clang, or any`}},
		{"timeout out of range", `{"version": 1, "timeout": 86401}`, []string{`f.json:1:27: timeout: 86401 seconds is out of range 1..86400`}},
		{"negative timeout", `{"version": 1, "timeout": -1}`, []string{`f.json:1:27: timeout: -1 seconds is out of range 1..86400`}},
		{"absolute path", `{"version": 1, "cmake": {"sourceDir": "/src"}}`, []string{
			`f.json:1:39: cmake.sourceDir: "/src" is an absolute path; want a path relative to the repository's root`}},
		{"drive path", `{"version": 1, "cmake": {"sourceDir": "C:\\src"}}`, []string{
			`f.json:1:39: cmake.sourceDir: "C:\\src" is a drive path; want a path relative to the repository's root`}},
		{"drive-relative path", `{"version": 1, "cmake": {"sourceDir": "c:src"}}`, []string{
			`f.json:1:39: cmake.sourceDir: "c:src" is a drive path; want a path relative to the repository's root`}},
		{"UNC path", `{"version": 1, "cmake": {"sourceDir": "\\\\server\\share"}}`, []string{
			`f.json:1:39: cmake.sourceDir: "\\\\server\\share" is a UNC path; want a path relative to the repository's root`}},
		{"rooted Windows path", `{"version": 1, "cmake": {"sourceDir": "\\src"}}`, []string{
			`f.json:1:39: cmake.sourceDir: "\\src" is an absolute path; want a path relative to the repository's root`}},
		{"escape", `{"version": 1, "cmake": {"sourceDir": "a/../../b"}}`, []string{
			`f.json:1:39: cmake.sourceDir: "a/../../b" leaves the repository; want a path relative to the repository's root`}},
		{"escape with backslashes", `{"version": 1, "msbuild": {"project": "..\\x.sln", "testCommand": ["t"]}}`, []string{
			`f.json:1:39: msbuild.project: "..\\x.sln" leaves the repository; want a path relative to the repository's root`}},
		{"not a solution", `{"version": 1, "msbuild": {"project": "x.vcproj", "testCommand": ["t"]}}`, []string{
			`f.json:1:39: msbuild.project: "x.vcproj" is not a .sln, .slnx or .vcxproj file`}},
		{"test program outside", `{"version": 1, "msbuild": {"testCommand": ["../t.exe", ""]}}`, []string{
			`f.json:1:44: msbuild.testCommand[0]: "../t.exe" leaves the repository; want a path relative to the repository's root`}},
		{"test program empty", `{"version": 1, "msbuild": {"testCommand": [""]}}`, []string{`f.json:1:44: msbuild.testCommand[0]: the program is empty`}},
		{"msbuild without a test command", `{"version": 1, "projectType": "msbuild"}`, []string{
			`f.json: msbuild.testCommand: required with projectType msbuild: the argv that runs the tests`}},
		{"msbuild with an empty test command", `{"version": 1, "projectType": "msbuild", "msbuild": {"testCommand": []}}`, []string{
			`f.json:1:69: msbuild.testCommand: required with projectType msbuild: the argv that runs the tests`}},
		{"sections of the other type", `{"version": 1, "projectType": "cmake", "msbuild": {"testCommand": ["t"]}}`, []string{
			`f.json:1:51: msbuild: set with projectType cmake`}},
		{"cmake with msbuild", `{"version": 1, "projectType": "msbuild", "cmake": {}, "msbuild": {"testCommand": ["t"]}}`, []string{
			`f.json:1:51: cmake: set with projectType msbuild`}},
		{"presets half set", `{"version": 1, "cmake": {"configurePreset": "dev", "binaryDir": "out"}}`, []string{
			`f.json:1:25: cmake: configurePreset, buildPreset, testPreset and binaryDir go together: configurePreset, binaryDir set, buildPreset, testPreset missing`}},
		{"binary dir alone", `{"version": 1, "cmake": {"binaryDir": "out"}}`, []string{
			`f.json:1:25: cmake: configurePreset, buildPreset, testPreset and binaryDir go together: binaryDir set, configurePreset, buildPreset, testPreset missing`}},
		{"binary dir outside", `{"version": 1, "cmake": {"configurePreset": "a", "buildPreset": "a", "testPreset": "a", "binaryDir": "../out"}}`, []string{
			`f.json:1:102: cmake.binaryDir: "../out" leaves the repository; want a path relative to the repository's root`}},
		{"generator with presets", `{"version": 1, "cmake": {"generator": "Ninja", "configurePreset": "a", "buildPreset": "a", "testPreset": "a", "binaryDir": "o"}}`, []string{
			`f.json:1:39: cmake.generator: set with presets; the configure preset chooses the generator`}},
		{"generator with blanks", `{"version": 1, "cmake": {"generator": " Ninja"}}`, []string{`f.json:1:39: cmake.generator: " Ninja" has blanks around it`}},
		{"tdd without patterns", `{"version": 1, "tdd": {}}`, []string{`f.json:1:23: tdd.patterns: required: a source extension such as .cpp and its test file names`}},
		{"tdd patterns", `{"version": 1, "tdd": {"patterns": {"cpp": ["{stem}_test.cpp"], ".cc": ["tests.cc", "t/{stem}.cc", "[{stem}.cc"], ".h": []}}}`, []string{
			`f.json:1:73: tdd.patterns..cc[0]: "tests.cc" is not a test file name with {stem}, such as {stem}_test.cpp`,
			`f.json:1:85: tdd.patterns..cc[1]: "t/{stem}.cc" is not a test file name with {stem}, such as {stem}_test.cpp`,
			`f.json:1:100: tdd.patterns..cc[2]: "[{stem}.cc" is not a test file name with {stem}, such as {stem}_test.cpp`,
			`f.json:1:121: tdd.patterns..h: no test file names`,
			`f.json:1:44: tdd.patterns.cpp: "cpp" is not a file extension such as .cpp`}},
		{"several problems at once", "{\"version\": 3,\n \"platform\": \"\",\n \"cmake\": {\"sourceDir\": \"/x\"}}", []string{
			`f.json:1:13: version: 3 is not a supported version; want 1`,
			`f.json:3:25: cmake.sourceDir: "/x" is an absolute path; want a path relative to the repository's root`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := msvc.ParseConfig([]byte(tt.in), "f.json")
			if err == nil {
				t.Fatalf("accepted: %+v", c)
			}
			ce, ok := errors.AsType[*msvc.ConfigError](err)
			if !ok {
				t.Fatalf("error %T %v is not a *ConfigError", err, err)
			}
			var got []string
			for _, p := range ce.Problems {
				got = append(got, p.String(ce.File))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if want := "msvc: " + strings.Join(tt.want, "\n"); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// An error lists 20 problems at most; the ConfigError has them all.
func TestConfigErrorLimit(t *testing.T) {
	in := "{" + strings.Repeat("\"x\": 1,\n", 25) + "\"version\": 1}"
	_, err := msvc.ParseConfig([]byte(in), "f.json")
	ce, ok := errors.AsType[*msvc.ConfigError](err)
	if !ok || len(ce.Problems) != 49 {
		t.Fatalf("ParseConfig() error = %v; want 49 problems: 25 unknown, 24 given twice", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 21 || lines[20] != "and 29 more problems" || !strings.HasPrefix(lines[19], "f.json:11:1: x: unknown field") {
		t.Errorf("Error() ends %q", lines[18:])
	}
}

// A Config built in Go is validated too, without places.
func TestConfigValidate(t *testing.T) {
	err := (&msvc.Config{Version: 1, MSBuild: &msvc.MSBuildConfig{Project: "/abs.sln"}}).Validate()
	want := `msvc: msbuild.project: "/abs.sln" is an absolute path; want a path relative to the repository's root`
	if err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %s", err, want)
	}
	if err := (&msvc.Config{Version: 1}).Validate(); err != nil {
		t.Errorf("Validate() of the minimal config = %v", err)
	}
}

func TestLoadConfig(t *testing.T) {
	root := t.TempDir()
	c, err := msvc.LoadConfig(root)
	if err != nil || c.Version != 1 {
		t.Fatalf("LoadConfig of a tree without a config = %+v, %v; want the defaults", c, err)
	}
	writeFile(t, root, msvc.ConfigFile, "{\"version\": 1,\n\"timeout\": 0.5}")
	_, err = msvc.LoadConfig(root)
	want := `msvc: .harnish/msvc.json:2:12: timeout: number 0.5 where a whole number is wanted`
	if err == nil || err.Error() != want {
		t.Errorf("LoadConfig = %v, want %s", err, want)
	}
}

// FuzzParseConfig: no panic; what parses validates, and a rejection is a
// ConfigError with at least one problem whose place lies within the input.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{`{"version": 1}`, `{"version": 1, "projectType": "msbuild", "msbuild": {"testCommand": ["t"]}}`,
		`{"version": 1, "cmake": {"configurePreset": "a", "buildPreset": "a", "testPreset": "a", "binaryDir": "o"}}`,
		`{"version": 1, "tdd": {"patterns": {".cpp": ["{stem}_test.cpp"]}}}`, `{"version": 1, "timeout": 1e3}`,
		`{"Version": 1, "version": 1}`, `[`, `{"cmake": {"sourceDir": "C:\\x"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := msvc.ParseConfig(data, "f.json")
		if err == nil {
			if verr := c.Validate(); verr != nil {
				t.Fatalf("parsed %q but it does not validate: %v", data, verr)
			}
			return
		}
		ce, ok := errors.AsType[*msvc.ConfigError](err)
		if !ok || len(ce.Problems) == 0 {
			t.Fatalf("error %v for %q is not a ConfigError with problems", err, data)
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range ce.Problems {
			if p.Line < 0 || p.Line > lines || (p.Line > 0 && p.Col < 1) {
				t.Fatalf("problem %+v out of the input's %d lines", p, lines)
			}
		}
	})
}

func writeFile(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.FromSlash(name)
	if root != "" {
		p = filepath.Join(root, p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
