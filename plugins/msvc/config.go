package msvc

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// ConfigFile is where the configuration lives in a working tree.
const ConfigFile = ".harnish/msvc.json"

// DefaultTimeout bounds a whole verification whose configuration sets no
// timeout.
const DefaultTimeout = 1800 * time.Second

// maxTimeout bounds the timeout setting, in seconds: a day.
const maxTimeout = 86400

// ProjectType says how a project is built.
type ProjectType string

// The project types.
const (
	// CMake: configure, build and test with cmake and ctest.
	CMake ProjectType = "cmake"
	// MSBuild: build a solution or project with MSBuild.exe, then run the
	// configured test command.
	MSBuild ProjectType = "msbuild"
)

// Config is the verifier's configuration, the JSON of [ConfigFile]; doc.go
// shows the schema. The zero value of every field but Version means its
// default.
type Config struct {
	// Version is the schema version; it must be 1.
	Version int `json:"version"`
	// ProjectType is cmake or msbuild. Empty means discovered.
	ProjectType ProjectType `json:"projectType,omitempty"`
	// Configuration is the build configuration. Empty means Debug, or with
	// CMake presets whatever the presets say.
	Configuration string `json:"configuration,omitempty"`
	// Platform is the target platform (MSBuild's Platform, CMake's -A with a
	// Visual Studio generator). Empty means x64.
	Platform string `json:"platform,omitempty"`
	// CompilerID is the CMAKE_CXX_COMPILER_ID a CMake build must report
	// (MSVC, GNU, Clang, ...), or "any" for no check. Empty means MSVC; on
	// Windows, MSVC also requires vswhere to find Visual Studio.
	CompilerID string `json:"compilerId,omitempty"`
	// Timeout bounds the whole verification, in seconds (1..86400). Zero
	// means 1800.
	Timeout int `json:"timeout,omitempty"`
	// CMake configures a CMake project.
	CMake *CMakeConfig `json:"cmake,omitempty"`
	// MSBuild configures a solution or project built by MSBuild directly.
	MSBuild *MSBuildConfig `json:"msbuild,omitempty"`
	// TDD, when set, makes every C/C++ file of the task's declared scope
	// need a test file in the working tree.
	TDD *TDDConfig `json:"tdd,omitempty"`
}

// CMakeConfig configures a CMake project. The four preset fields go
// together: all set, or none.
type CMakeConfig struct {
	// SourceDir is the directory holding CMakeLists.txt (and the presets
	// files), relative to the repository. Empty means the root.
	SourceDir string `json:"sourceDir,omitempty"`
	// Generator is passed as -G, without presets. Empty means CMake's
	// default.
	Generator string `json:"generator,omitempty"`
	// ConfigurePreset, BuildPreset and TestPreset name the presets of
	// cmake --preset, cmake --build --preset and ctest --preset.
	ConfigurePreset string `json:"configurePreset,omitempty"`
	BuildPreset     string `json:"buildPreset,omitempty"`
	TestPreset      string `json:"testPreset,omitempty"`
	// BinaryDir is the build tree the configure preset writes, relative to
	// the repository. Without presets the build tree is .harnish/msvc/build.
	BinaryDir string `json:"binaryDir,omitempty"`
}

// MSBuildConfig configures a solution or project built by MSBuild.
type MSBuildConfig struct {
	// Project is the .sln, .slnx or .vcxproj file, relative to the
	// repository. Empty means discovered.
	Project string `json:"project,omitempty"`
	// TestCommand is the argv that runs the tests after the build, from the
	// repository's root, without a shell. Required.
	TestCommand []string `json:"testCommand,omitempty"`
}

// TDDConfig is the test-first check.
type TDDConfig struct {
	// Patterns maps a source extension (".cpp") to the names its test file
	// may have, "{stem}" standing for the file's name without its extension
	// ("{stem}_test.cpp"). Files of other extensions need no test.
	Patterns map[string][]string `json:"patterns"`
}

// defaults.
const (
	defaultConfiguration = "Debug"
	defaultPlatform      = "x64"
	defaultCompilerID    = "MSVC"
	anyCompiler          = "any"
)

func (c *Config) configuration() string { return cmp.Or(c.Configuration, defaultConfiguration) }
func (c *Config) platform() string      { return cmp.Or(c.Platform, defaultPlatform) }

// compilerID returns the compiler ID to require, or "" for none.
func (c *Config) compilerID() string {
	if strings.EqualFold(c.CompilerID, anyCompiler) {
		return ""
	}
	return cmp.Or(c.CompilerID, defaultCompilerID)
}

func (c *Config) timeout() time.Duration {
	if c.Timeout == 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout) * time.Second
}

func (c *Config) presets() bool { return c.CMake != nil && c.CMake.ConfigurePreset != "" }

func (c *Config) sourceDir() string {
	if c.CMake == nil || c.CMake.SourceDir == "" {
		return "."
	}
	return c.CMake.SourceDir
}

// ConfigError is a configuration that is not valid. It lists every problem
// found, each with its place.
type ConfigError struct {
	// File names the configuration's source, e.g. ".harnish/msvc.json";
	// empty for a [Config] built in Go.
	File     string
	Problems []Problem
}

// Problem is one thing wrong with a configuration.
type Problem struct {
	// Line and Col locate it in the file, from 1; zero when unknown.
	Line, Col int
	// Field is the path of the field, e.g. "cmake.binaryDir" or
	// "msbuild.testCommand[0]"; empty for the file as a whole.
	Field string
	// Message says what is wrong.
	Message string
}

// String returns "FILE:LINE:COL: FIELD: MESSAGE", leaving out what is unknown.
func (p Problem) String(file string) string {
	var b strings.Builder
	if file != "" {
		b.WriteString(file)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Col)
		}
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	return b.String() + p.Message
}

// maxShown bounds the problems an error message lists.
const maxShown = 20

// Error returns "msvc: " and the problems, one a line, at most 20 of them.
func (e *ConfigError) Error() string {
	var lines []string
	for i, p := range e.Problems {
		if i == maxShown {
			lines = append(lines, fmt.Sprintf("and %d more problems", len(e.Problems)-maxShown))
			break
		}
		lines = append(lines, p.String(e.File))
	}
	return "msvc: " + strings.Join(lines, "\n")
}

// LoadConfig reads [ConfigFile] of the working tree at root. A tree without
// one gets the defaults; a file that does not parse or validate is a
// [*ConfigError].
func LoadConfig(root string) (*Config, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ConfigFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("msvc: %w", err)
	}
	return ParseConfig(data, ConfigFile)
}

// ParseConfig decodes and validates a configuration: JSON, one object,
// unknown and duplicate fields rejected, field names matched exactly. file
// names the source in errors ("plugin settings", ".harnish/msvc.json"). A
// configuration that is not valid is a [*ConfigError].
func ParseConfig(data []byte, file string) (*Config, error) {
	w := &walker{data: data, pos: map[string]int64{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w.dec = dec
	if err := w.value("", reflectConfig); err != nil {
		return nil, w.configError(file, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, &ConfigError{File: file, Problems: []Problem{w.problem(dec.InputOffset(), "", "more than one JSON value")}}
	}
	var c Config
	strict := json.NewDecoder(bytes.NewReader(data))
	if len(w.problems) == 0 {
		strict.DisallowUnknownFields() // what the walk found, but as a backstop
	}
	if err := strict.Decode(&c); err != nil {
		if len(w.problems) > 0 {
			return nil, &ConfigError{File: file, Problems: w.problems}
		}
		return nil, w.configError(file, err)
	}
	// Unknown fields and the rules together, so one round of fixes does.
	probs := c.problems()
	for i := range probs {
		probs[i].Line, probs[i].Col = w.place(probs[i].Field)
	}
	if probs = append(w.problems, probs...); len(probs) > 0 {
		return nil, &ConfigError{File: file, Problems: probs}
	}
	return &c, nil
}

// Validate checks a configuration built in Go; ParseConfig has done so for
// one it returns. The error is a [*ConfigError].
func (c *Config) Validate() error {
	if probs := c.problems(); len(probs) > 0 {
		return &ConfigError{Problems: probs}
	}
	return nil
}

var (
	identifier = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	})
	compilerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	})
	driveRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z]:`)
	})
)

// problems returns what is wrong with c, without places.
func (c *Config) problems() []Problem {
	var probs []Problem
	add := func(field, format string, args ...any) {
		probs = append(probs, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if c.Version != 1 {
		add("version", "%d is not a supported version; want 1", c.Version)
	}
	switch c.ProjectType {
	case "", CMake, MSBuild:
	default:
		add("projectType", "%q is not one of cmake, msbuild", c.ProjectType)
	}
	if c.Configuration != "" && !identifier().MatchString(c.Configuration) {
		add("configuration", "%q is not a configuration name such as Debug", c.Configuration)
	}
	if c.Platform != "" && !identifier().MatchString(c.Platform) {
		add("platform", "%q is not a platform name such as x64", c.Platform)
	}
	if c.CompilerID != "" && !compilerRE().MatchString(c.CompilerID) {
		add("compilerId", "%q is not a compiler ID such as MSVC, GNU or Clang, or any", c.CompilerID)
	}
	if c.Timeout < 0 || c.Timeout > maxTimeout {
		add("timeout", "%d seconds is out of range 1..%d", c.Timeout, maxTimeout)
	}
	if c.CMake != nil {
		if c.ProjectType == MSBuild {
			add("cmake", "set with projectType msbuild")
		}
		m := c.CMake
		checkPath(add, "cmake.sourceDir", m.SourceDir)
		checkPath(add, "cmake.binaryDir", m.BinaryDir)
		group := []struct{ name, value string }{
			{"configurePreset", m.ConfigurePreset}, {"buildPreset", m.BuildPreset},
			{"testPreset", m.TestPreset}, {"binaryDir", m.BinaryDir}}
		var set, missing []string
		for _, g := range group {
			if g.value == "" {
				missing = append(missing, g.name)
			} else {
				set = append(set, g.name)
			}
		}
		if len(set) > 0 && len(missing) > 0 {
			add("cmake", "configurePreset, buildPreset, testPreset and binaryDir go together: %s set, %s missing",
				strings.Join(set, ", "), strings.Join(missing, ", "))
		}
		if m.Generator != "" && len(set) > 0 {
			add("cmake.generator", "set with presets; the configure preset chooses the generator")
		}
		if strings.TrimSpace(m.Generator) != m.Generator {
			add("cmake.generator", "%q has blanks around it", m.Generator)
		}
	}
	if c.MSBuild != nil {
		if c.ProjectType == CMake {
			add("msbuild", "set with projectType cmake")
		}
		m := c.MSBuild
		if checkPath(add, "msbuild.project", m.Project) && m.Project != "" && projectKind(m.Project) == "" {
			add("msbuild.project", "%q is not a .sln, .slnx or .vcxproj file", m.Project)
		}
		for i, a := range m.TestCommand {
			field := fmt.Sprintf("msbuild.testCommand[%d]", i)
			switch {
			case i == 0 && a == "":
				add(field, "the program is empty")
			case i == 0 && strings.ContainsAny(a, `/\`):
				checkPath(add, field, a)
			case strings.ContainsRune(a, 0):
				add(field, "contains a NUL byte")
			}
		}
	}
	if c.ProjectType == MSBuild && (c.MSBuild == nil || len(c.MSBuild.TestCommand) == 0) {
		add("msbuild.testCommand", "required with projectType msbuild: the argv that runs the tests")
	}
	if c.TDD != nil {
		if len(c.TDD.Patterns) == 0 {
			add("tdd.patterns", "required: a source extension such as .cpp and its test file names")
		}
		for _, ext := range slices.Sorted(maps.Keys(c.TDD.Patterns)) {
			field := "tdd.patterns." + ext
			if len(ext) < 2 || ext[0] != '.' || strings.ContainsAny(ext[1:], `./\`) {
				add(field, "%q is not a file extension such as .cpp", ext)
			}
			if len(c.TDD.Patterns[ext]) == 0 {
				add(field, "no test file names")
			}
			for i, p := range c.TDD.Patterns[ext] {
				_, err := path.Match(strings.ReplaceAll(p, "{stem}", "x"), "")
				if !strings.Contains(p, "{stem}") || strings.ContainsAny(p, `/\`) || err != nil {
					add(fmt.Sprintf("%s[%d]", field, i), "%q is not a test file name with {stem}, such as {stem}_test.cpp", p)
				}
			}
		}
	}
	return probs
}

// checkPath adds a problem when p, if set, is not a path inside the
// repository, whatever the OS: no absolute, drive or UNC path, no "..".
func checkPath(add func(field, format string, args ...any), field, p string) bool {
	if p == "" {
		return true
	}
	msg := ""
	slashed := strings.ReplaceAll(p, `\`, "/")
	clean := path.Clean(slashed)
	switch {
	case strings.ContainsRune(p, 0):
		msg = "contains a NUL byte"
	case strings.HasPrefix(slashed, "//"):
		msg = "is a UNC path"
	case driveRE().MatchString(p):
		msg = "is a drive path"
	case strings.HasPrefix(slashed, "/") || filepath.IsAbs(p):
		msg = "is an absolute path"
	case clean == ".." || strings.HasPrefix(clean, "../"):
		msg = "leaves the repository"
	}
	if msg != "" {
		add(field, "%q %s; want a path relative to the repository's root", p, msg)
		return false
	}
	return true
}

// relPath returns a checked repository path in the OS's form.
func relPath(p string) string {
	return filepath.FromSlash(path.Clean(strings.ReplaceAll(p, `\`, "/")))
}
