package msvc_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins/msvc"
)

// tree writes files (slash paths, empty content) into a fresh directory.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		writeFile(t, root, f, "")
	}
	return root
}

func TestDiscover(t *testing.T) {
	cmakeCfg := &msvc.Config{Version: 1, ProjectType: msvc.CMake}
	tests := []struct {
		name    string
		files   []string
		cfg     *msvc.Config
		want    msvc.Project
		wantErr error
		errText string
	}{
		{"presets first", []string{"CMakeLists.txt", "CMakeUserPresets.json", "CMakePresets.json", "app.sln"}, nil,
			msvc.Project{Type: msvc.CMake, Path: "CMakePresets.json", Reason: "found CMakePresets.json"}, nil, ""},
		{"user presets", []string{"CMakeLists.txt", "CMakeUserPresets.json", "app.sln"}, nil,
			msvc.Project{Type: msvc.CMake, Path: "CMakeUserPresets.json", Reason: "found CMakeUserPresets.json"}, nil, ""},
		{"CMakeLists.txt over a solution", []string{"CMakeLists.txt", "app.sln", "src/a.cpp"}, nil,
			msvc.Project{Type: msvc.CMake, Path: "CMakeLists.txt", Reason: "found CMakeLists.txt"}, nil, ""},
		{"CMakeLists.txt in the source directory", []string{"cpp/CMakeLists.txt"}, &msvc.Config{Version: 1, CMake: &msvc.CMakeConfig{SourceDir: "cpp"}},
			msvc.Project{Type: msvc.CMake, Path: "cpp/CMakeLists.txt", Reason: "found cpp/CMakeLists.txt"}, nil, ""},
		{"a CMakeLists.txt below the root is not the project", []string{"third_party/lib/CMakeLists.txt", "third_party/lib/a.c"}, nil,
			msvc.Project{}, msvc.ErrOrphanProject, ""},
		{"one solution", []string{"app.sln", "app/app.vcxproj", "lib/lib.vcxproj", "app/main.cpp"}, nil,
			msvc.Project{Type: msvc.MSBuild, Path: "app.sln", Reason: "found app.sln"}, nil, ""},
		{"one solution below the root", []string{"src/app.slnx", "src/app.vcxproj"}, nil,
			msvc.Project{Type: msvc.MSBuild, Path: "src/app.slnx", Reason: "found src/app.slnx"}, nil, ""},
		{"the root's solution wins", []string{"app.sln", "samples/demo.sln"}, nil,
			msvc.Project{Type: msvc.MSBuild, Path: "app.sln", Reason: "found app.sln"}, nil, ""},
		{"one project", []string{"app.vcxproj", "main.cpp"}, nil,
			msvc.Project{Type: msvc.MSBuild, Path: "app.vcxproj", Reason: "found app.vcxproj"}, nil, ""},
		{"several solutions", []string{"a/a.sln", "b/b.sln"}, nil, msvc.Project{}, msvc.ErrAmbiguousProject,
			`msvc: more than one project: 2 solutions (a/a.sln, b/b.sln); name one as msbuild.project in .harnish/msvc.json, or set "projectType"`},
		{"several projects", []string{"a.vcxproj", "b.vcxproj", "x.cpp"}, nil, msvc.Project{}, msvc.ErrAmbiguousProject,
			`msvc: more than one project: 2 projects (a.vcxproj, b.vcxproj); name one as msbuild.project in .harnish/msvc.json, or set "projectType"`},
		{"orphan sources", []string{"src/a.cpp", "include/a.hpp", "README.md"}, nil, msvc.Project{}, msvc.ErrOrphanProject,
			"msvc: C/C++ sources without a CMakeLists.txt, solution or project: include/a.hpp, src/a.cpp"},
		{"every source extension", []string{"a.c", "b.cc", "c.CPP", "d.cxx", "e.h", "f.hpp", "g.hxx", "h.txt"}, nil, msvc.Project{}, msvc.ErrOrphanProject,
			"msvc: C/C++ sources without a CMakeLists.txt, solution or project: a.c, b.cc, c.CPP, d.cxx, e.h and 2 more"},
		{"nothing to verify", []string{"go.mod", "main.go", "docs/x.md"}, nil,
			msvc.Project{Reason: "no C/C++ sources and no build metadata: nothing to verify"}, nil, ""},
		{"sources in skipped directories", []string{".git/x.c", ".harnish/y.cpp", "build/z.cpp", "cmake-build-debug/a.cpp", "out/b.h",
			"node_modules/n/c.cc", "mybuild/CMakeCache.txt", "mybuild/gen.cpp", ".vs/x.sln", "build-x/d.vcxproj"}, nil,
			msvc.Project{Reason: "no C/C++ sources and no build metadata: nothing to verify"}, nil, ""},
		{"the configured build tree is skipped", []string{"bt/gen.cpp"},
			&msvc.Config{Version: 1, CMake: &msvc.CMakeConfig{ConfigurePreset: "a", BuildPreset: "a", TestPreset: "a", BinaryDir: "bt"}},
			msvc.Project{Reason: "no C/C++ sources and no build metadata: nothing to verify"}, nil, ""},
		{"projectType cmake", []string{"CMakeLists.txt", "CMakePresets.json"}, cmakeCfg,
			msvc.Project{Type: msvc.CMake, Path: "CMakeLists.txt", Reason: "projectType cmake"}, nil, ""},
		{"projectType cmake without CMakeLists.txt", []string{"app.sln"}, cmakeCfg, msvc.Project{}, msvc.ErrNoProject,
			"msvc: project not found: projectType cmake, and no CMakeLists.txt"},
		{"projectType msbuild over CMake", []string{"CMakeLists.txt", "app.sln"}, msbuildCfg(""),
			msvc.Project{Type: msvc.MSBuild, Path: "app.sln", Reason: "projectType msbuild; found app.sln"}, nil, ""},
		{"msbuild.project chooses", []string{"a.sln", "b.sln"}, msbuildCfg(`b.sln`),
			msvc.Project{Type: msvc.MSBuild, Path: "b.sln", Reason: "msbuild.project"}, nil, ""},
		{"msbuild.project with backslashes", []string{"src/b.vcxproj"}, msbuildCfg(`src\b.vcxproj`),
			msvc.Project{Type: msvc.MSBuild, Path: "src/b.vcxproj", Reason: "msbuild.project"}, nil, ""},
		{"msbuild.project without projectType", []string{"CMakeLists.txt", "b.sln"},
			&msvc.Config{Version: 1, MSBuild: &msvc.MSBuildConfig{Project: "b.sln", TestCommand: []string{"t"}}},
			msvc.Project{Type: msvc.MSBuild, Path: "b.sln", Reason: "msbuild.project"}, nil, ""},
		{"msbuild.project missing", []string{"a.sln"}, msbuildCfg("b.sln"), msvc.Project{}, msvc.ErrNoProject,
			"msvc: project not found: msbuild.project b.sln"},
		{"projectType msbuild, nothing", []string{"a.cpp"}, msbuildCfg(""), msvc.Project{}, msvc.ErrNoProject,
			"msvc: project not found: projectType msbuild, and no .sln, .slnx or .vcxproj"},
		{"projectType msbuild, several", []string{"a.sln", "b.slnx"}, msbuildCfg(""), msvc.Project{}, msvc.ErrAmbiguousProject, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if cfg == nil {
				cfg = &msvc.Config{Version: 1}
			}
			got, err := msvc.Discover(tree(t, tt.files...), cfg)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Discover() = %+v, %v; want error %v", got, err, tt.wantErr)
			}
			if err != nil {
				if tt.errText != "" && err.Error() != tt.errText {
					t.Errorf("error = %q\nwant    %q", err, tt.errText)
				}
				return
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func msbuildCfg(project string) *msvc.Config {
	return &msvc.Config{Version: 1, ProjectType: msvc.MSBuild, MSBuild: &msvc.MSBuildConfig{Project: project, TestCommand: []string{"t"}}}
}
