package msvc_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins/msvc"
)

// machine is a fixture of a Windows machine: a Program Files (x86) with
// the Visual Studio installer's vswhere, a Visual Studio installation, and
// what PATH holds.
type machine struct {
	root, pf86, vs string
	path           map[string]string // program name -> path
}

func newMachine(t *testing.T) *machine {
	root := t.TempDir()
	return &machine{root: root, pf86: filepath.Join(root, "pf86"), vs: filepath.Join(root, "VS", "2022", "Community"), path: map[string]string{}}
}

// vswhere installs a fake vswhere that prints the installations given.
func (m *machine) vswhere(t *testing.T, out string) string {
	return fake(t, m.pf86, "Microsoft Visual Studio/Installer/vswhere.exe", out, 0)
}

// instance is vswhere's JSON for the machine's Visual Studio.
func (m *machine) instance(t *testing.T) string {
	data, err := json.Marshal([]map[string]any{{"instanceId": "abc123", "installationPath": m.vs,
		"installationVersion": "17.14.36310.24", "displayName": "Visual Studio Community 2022", "isPrerelease": false}})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// vsFile puts an (empty) file into the Visual Studio installation.
func (m *machine) vsFile(t *testing.T, slash string) string {
	writeFile(t, m.vs, slash, "")
	return filepath.Join(m.vs, filepath.FromSlash(slash))
}

func (m *machine) finder(goos string) msvc.Finder {
	return msvc.Finder{
		GOOS: goos,
		LookPath: func(file string) (string, error) {
			if p, ok := m.path[file]; ok {
				return p, nil
			}
			return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
		},
		Getenv: func(key string) string {
			if key == "ProgramFiles(x86)" {
				return m.pf86
			}
			return ""
		},
	}
}

const bundle = "Common7/IDE/CommonExtensions/Microsoft/CMake/CMake/bin/"

func TestFinder(t *testing.T) {
	wantArgs := []string{"-latest", "-products", "*", "-requires", "Microsoft.VisualStudio.Component.VC.Tools.x86.x64", "-format", "json", "-utf8", "-nologo"}
	tests := []struct {
		name      string
		goos      string
		typ       msvc.ProjectType
		setup     func(t *testing.T, m *machine) msvc.Toolchain // the toolchain wanted
		asked     bool                                          // whether vswhere is asked
		wantErr   error
		errSubstr string
	}{
		{"CMake bundled with Visual Studio", "windows", msvc.CMake, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, m.instance(t))
			return msvc.Toolchain{CMake: m.vsFile(t, bundle+"cmake.exe"), CTest: m.vsFile(t, bundle+"ctest.exe"), VisualStudio: vs(m)}
		}, true, nil, ""},
		{"CMake from PATH first", "windows", msvc.CMake, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, m.instance(t))
			m.vsFile(t, bundle+"cmake.exe")
			ctest := m.vsFile(t, bundle+"ctest.exe")
			m.path["cmake.exe"] = `C:\CMake\bin\cmake.exe`
			return msvc.Toolchain{CMake: `C:\CMake\bin\cmake.exe`, CTest: ctest, VisualStudio: vs(m)}
		}, true, nil, ""},
		{"no CMake anywhere", "windows", msvc.CMake, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, m.instance(t))
			return msvc.Toolchain{}
		}, true, msvc.ErrToolNotFound, "msvc: tool not found: cmake (tried cmake.exe in PATH, "},
		{"64-bit MSBuild first", "windows", msvc.MSBuild, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, m.instance(t))
			m.vsFile(t, "MSBuild/Current/Bin/MSBuild.exe")
			m.path["MSBuild.exe"] = `C:\elsewhere\MSBuild.exe`
			return msvc.Toolchain{MSBuild: m.vsFile(t, "MSBuild/Current/Bin/amd64/MSBuild.exe"), VisualStudio: vs(m)}
		}, true, nil, ""},
		{"32-bit MSBuild", "windows", msvc.MSBuild, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, m.instance(t))
			return msvc.Toolchain{MSBuild: m.vsFile(t, "MSBuild/Current/Bin/MSBuild.exe"), VisualStudio: vs(m)}
		}, true, nil, ""},
		{"Visual Studio 2017's MSBuild", "windows", msvc.MSBuild, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, m.instance(t))
			return msvc.Toolchain{MSBuild: m.vsFile(t, "MSBuild/15.0/Bin/MSBuild.exe"), VisualStudio: vs(m)}
		}, true, nil, ""},
		{"MSBuild from PATH without vswhere", "windows", msvc.MSBuild, func(t *testing.T, m *machine) msvc.Toolchain {
			m.path["MSBuild.exe"] = `C:\BuildTools\MSBuild.exe`
			return msvc.Toolchain{MSBuild: `C:\BuildTools\MSBuild.exe`}
		}, false, nil, ""},
		{"vswhere from PATH", "windows", msvc.MSBuild, func(t *testing.T, m *machine) msvc.Toolchain {
			m.path["vswhere.exe"] = fake(t, m.root, "tools/vswhere.exe", m.instance(t), 0)
			return msvc.Toolchain{MSBuild: m.vsFile(t, "MSBuild/Current/Bin/amd64/MSBuild.exe"), VisualStudio: vs(m)}
		}, false, nil, ""},
		{"vswhere knows no Visual Studio with C++", "windows", msvc.MSBuild, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, "[]")
			return msvc.Toolchain{}
		}, true, msvc.ErrToolNotFound, "msvc: tool not found: MSBuild (tried MSBuild.exe in PATH); vswhere found no Visual Studio with the C++ tools"},
		{"vswhere prints no JSON", "windows", msvc.CMake, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, "Visual Studio Locator version 3")
			return msvc.Toolchain{}
		}, true, nil, "msvc: vswhere printed no JSON list of installations"},
		{"vswhere fails", "windows", msvc.CMake, func(t *testing.T, m *machine) msvc.Toolchain {
			fake(t, m.pf86, "Microsoft Visual Studio/Installer/vswhere.exe", "", 87)
			return msvc.Toolchain{}
		}, true, nil, "exit status 87"},
		{"not Windows: no vswhere, plain names", "linux", msvc.CMake, func(t *testing.T, m *machine) msvc.Toolchain {
			m.vswhere(t, m.instance(t))
			m.path["cmake"], m.path["ctest"] = "/usr/bin/cmake", "/usr/bin/ctest"
			return msvc.Toolchain{CMake: "/usr/bin/cmake", CTest: "/usr/bin/ctest"}
		}, false, nil, ""},
		{"not Windows: msbuild from PATH", "linux", msvc.MSBuild, func(t *testing.T, m *machine) msvc.Toolchain {
			m.path["msbuild"] = "/usr/bin/msbuild"
			return msvc.Toolchain{MSBuild: "/usr/bin/msbuild"}
		}, false, nil, ""},
		{"not Windows: no ctest", "linux", msvc.CMake, func(t *testing.T, m *machine) msvc.Toolchain {
			m.path["cmake"] = "/usr/bin/cmake"
			return msvc.Toolchain{}
		}, false, msvc.ErrToolNotFound, "msvc: tool not found: ctest (tried ctest in PATH)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			want := tt.setup(t, m)
			f := m.finder(tt.goos)
			got, err := f.Find(t.Context(), tt.typ)
			vswhere := filepath.Join(m.pf86, "Microsoft Visual Studio", "Installer", "vswhere.exe")
			if args := fakeArgs(t, vswhere); tt.asked != (args != nil) || (args != nil && !cmp.Equal(args, wantArgs)) {
				t.Errorf("vswhere asked with %q; want asked %t with %q", args, tt.asked, wantArgs)
			}
			if tt.errSubstr != "" || tt.wantErr != nil {
				if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) || !strings.Contains(err.Error(), tt.errSubstr) {
					t.Fatalf("Find() = %+v, %v; want an error %v with %q", got, err, tt.wantErr, tt.errSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// An explicit VSWhere wins over Program Files.
func TestFinderVSWhere(t *testing.T) {
	m := newMachine(t)
	m.vswhere(t, "[]")
	other := fake(t, m.root, "other/vswhere.exe", m.instance(t), 0)
	f := m.finder("windows")
	f.VSWhere = other
	want := m.vsFile(t, "MSBuild/Current/Bin/amd64/MSBuild.exe")
	tc, err := f.Find(t.Context(), msvc.MSBuild)
	if err != nil {
		t.Fatal(err)
	}
	if tc.MSBuild != want || tc.VisualStudio == nil {
		t.Errorf("Find() = %+v, want MSBuild %s from the explicit vswhere", tc, want)
	}
}

func vs(m *machine) *msvc.VisualStudio {
	return &msvc.VisualStudio{InstanceID: "abc123", InstallationPath: m.vs, InstallationVersion: "17.14.36310.24", DisplayName: "Visual Studio Community 2022"}
}
