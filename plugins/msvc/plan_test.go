package msvc_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins/msvc"
)

// The CMake commands on Windows, with a fake vswhere and a fake cmake that
// records its arguments and fails, so that only configure runs.
func TestCMakePlanWindows(t *testing.T) {
	tests := []struct {
		name   string
		config string
		env    map[string]string
		want   func(vs string) []string
	}{
		{"Visual Studio by default", `{"version": 1}`, nil, func(vs string) []string {
			return []string{"-S", ".", "-B", filepath.FromSlash(".harnish/msvc/build"), "-A", "x64", "-DCMAKE_GENERATOR_INSTANCE=" + vs}
		}},
		{"a Visual Studio generator and platform", `{"version": 1, "platform": "ARM64", "cmake": {"generator": "Visual Studio 17 2022"}}`, nil,
			func(vs string) []string {
				return []string{"-S", ".", "-B", filepath.FromSlash(".harnish/msvc/build"), "-G", "Visual Studio 17 2022", "-A", "ARM64", "-DCMAKE_GENERATOR_INSTANCE=" + vs}
			}},
		{"Ninja takes no platform", `{"version": 1, "configuration": "Release", "cmake": {"generator": "Ninja"}}`, nil, func(string) []string {
			return []string{"-S", ".", "-B", filepath.FromSlash(".harnish/msvc/build"), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"}
		}},
		{"CMAKE_GENERATOR in the environment", `{"version": 1}`, map[string]string{"CMAKE_GENERATOR": "Ninja Multi-Config"}, func(string) []string {
			return []string{"-S", ".", "-B", filepath.FromSlash(".harnish/msvc/build"), "-DCMAKE_BUILD_TYPE=Debug"}
		}},
		{"a source directory", `{"version": 1, "cmake": {"sourceDir": "src/cpp"}}`, nil, func(vs string) []string {
			return []string{"-S", ".", "-B", filepath.FromSlash("../../.harnish/msvc/build"), "-A", "x64", "-DCMAKE_GENERATOR_INSTANCE=" + vs}
		}},
		{"presets", `{"version": 1, "cmake": {"configurePreset": "x64-debug", "buildPreset": "b", "testPreset": "t", "binaryDir": "out/build/x64-debug"}}`, nil,
			func(string) []string { return []string{"--preset", "x64-debug"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			m.vswhere(t, m.instance(t))
			cmake := fake(t, m.root, "cmake/bin/cmake.exe", "CMake Error: stop here\n", 1)
			m.path["cmake.exe"], m.path["ctest.exe"] = cmake, cmake
			f := m.finder("windows")
			f.Getenv = func(key string) string {
				if key == "ProgramFiles(x86)" {
					return m.pf86
				}
				return tt.env[key]
			}
			root := tree(t, "CMakeLists.txt", "src/cpp/CMakeLists.txt")
			writeFile(t, root, msvc.ConfigFile, tt.config)
			rep, err := (&msvc.Verifier{Finder: f}).Verify(t.Context(), request(root))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Checks) != 2 || rep.Checks[1].Stage != "configure" || rep.Passed {
				t.Fatalf("report = %+v; want a failed configure", rep)
			}
			if diff := cmp.Diff(tt.want(m.vs), fakeArgs(t, cmake)); diff != "" {
				t.Errorf("cmake's arguments (-want +got):\n%s", diff)
			}
		})
	}
}
