package msvc

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/harnish/harnish/internal/proc"
)

// ErrToolNotFound is wrapped when a tool the project needs is not on this
// machine.
var ErrToolNotFound = errors.New("msvc: tool not found")

// vcTools is the Visual Studio component with the x86/x64 C++ compilers.
const vcTools = "Microsoft.VisualStudio.Component.VC.Tools.x86.x64"

// vswhereTimeout bounds one vswhere query.
const vswhereTimeout = time.Minute

// Finder finds the build tools. The zero value looks on this machine; the
// fields let tests (and hosts with their own layout) point it elsewhere.
type Finder struct {
	// GOOS is the operating system whose conventions apply ("windows":
	// vswhere, .exe names). Empty means runtime.GOOS.
	GOOS string
	// LookPath finds a program in PATH. Nil means exec.LookPath.
	LookPath func(file string) (string, error)
	// Getenv reads the environment. Nil means os.Getenv.
	Getenv func(key string) string
	// VSWhere is the vswhere program. Empty means
	// %ProgramFiles(x86)%\Microsoft Visual Studio\Installer\vswhere.exe,
	// else vswhere.exe from PATH.
	VSWhere string
}

// Toolchain is what a [Finder] found.
type Toolchain struct {
	// CMake and CTest are the programs, for a CMake project: from PATH, or
	// else the ones Visual Studio bundles.
	CMake, CTest string
	// MSBuild is MSBuild.exe, for an MSBuild project: Visual Studio's, or
	// else the one in PATH.
	MSBuild string
	// VisualStudio is the newest installation with the C++ tools; nil when
	// none was found (always, but on Windows).
	VisualStudio *VisualStudio
}

// VisualStudio is an installation vswhere reports.
type VisualStudio struct {
	InstanceID          string `json:"instanceId"`
	InstallationPath    string `json:"installationPath"`
	InstallationVersion string `json:"installationVersion"`
	DisplayName         string `json:"displayName"`
}

// Find finds the tools for a project of type t. A tool it cannot find is an
// error wrapping [ErrToolNotFound] that says where it looked.
func (f *Finder) Find(ctx context.Context, t ProjectType) (*Toolchain, error) {
	tc := &Toolchain{}
	if f.windows() {
		vs, err := f.visualStudio(ctx)
		if err != nil {
			return nil, err
		}
		tc.VisualStudio = vs
	}
	switch t {
	case CMake:
		var err error
		if tc.CMake, err = f.cmakeTool(tc.VisualStudio, "cmake"); err != nil {
			return nil, err
		}
		if tc.CTest, err = f.cmakeTool(tc.VisualStudio, "ctest"); err != nil {
			return nil, err
		}
	case MSBuild:
		var tried []string
		if vs := tc.VisualStudio; vs != nil {
			for _, dir := range [][]string{{"Current", "Bin", "amd64"}, {"Current", "Bin"}, {"15.0", "Bin"}} {
				p := filepath.Join(append(append([]string{vs.InstallationPath, "MSBuild"}, dir...), "MSBuild.exe")...)
				if isFile(p) {
					tc.MSBuild = p
					return tc, nil
				}
				tried = append(tried, p)
			}
		}
		name := f.exe("MSBuild")
		if !f.windows() {
			name = "msbuild"
		}
		p, err := f.lookPath(name)
		if err != nil {
			tried = append(tried, name+" in PATH")
			return nil, fmt.Errorf("%w: MSBuild (tried %s)%s", ErrToolNotFound, names(tried, 10), f.vsHint(tc))
		}
		tc.MSBuild = p
	}
	return tc, nil
}

// cmakeTool finds cmake or ctest: PATH first, then Visual Studio's bundle.
func (f *Finder) cmakeTool(vs *VisualStudio, tool string) (string, error) {
	name := f.exe(tool)
	if p, err := f.lookPath(name); err == nil {
		return p, nil
	}
	tried := name + " in PATH"
	if vs != nil {
		p := filepath.Join(vs.InstallationPath, "Common7", "IDE", "CommonExtensions", "Microsoft", "CMake", "CMake", "bin", name)
		if isFile(p) {
			return p, nil
		}
		tried += ", " + p
	}
	return "", fmt.Errorf("%w: %s (tried %s)", ErrToolNotFound, tool, tried)
}

func (f *Finder) vsHint(tc *Toolchain) string {
	if f.windows() && tc.VisualStudio == nil {
		return "; vswhere found no Visual Studio with the C++ tools (" + vcTools + ")"
	}
	return ""
}

// visualStudio asks vswhere for the newest installation with the C++
// tools: nil when vswhere is not installed or knows none.
func (f *Finder) visualStudio(ctx context.Context) (*VisualStudio, error) {
	vswhere := f.VSWhere
	if vswhere == "" {
		root := f.getenv("ProgramFiles(x86)")
		if root == "" {
			root = `C:\Program Files (x86)`
		}
		vswhere = filepath.Join(root, "Microsoft Visual Studio", "Installer", "vswhere.exe")
		if !isFile(vswhere) {
			p, err := f.lookPath("vswhere.exe")
			if err != nil {
				return nil, nil // no installer, so no Visual Studio
			}
			vswhere = p
		}
	}
	var out bytes.Buffer
	_, err := proc.Run(ctx, proc.Spec{Stage: "vswhere", Root: filepath.Dir(vswhere), Stdout: &out, Timeout: vswhereTimeout,
		Argv: []string{vswhere, "-latest", "-products", "*", "-requires", vcTools, "-format", "json", "-utf8", "-nologo"}})
	if pe, ok := errors.AsType[*proc.Error](err); ok && pe.Kind == proc.KindCanceled {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("msvc: vswhere: %w", err)
	}
	var found []VisualStudio
	if err := json.Unmarshal(out.Bytes(), &found); err != nil {
		return nil, fmt.Errorf("msvc: vswhere printed no JSON list of installations: %w", err)
	}
	if len(found) == 0 || found[0].InstallationPath == "" {
		return nil, nil
	}
	return &found[0], nil
}

func (f *Finder) windows() bool { return cmp.Or(f.GOOS, runtime.GOOS) == "windows" }

func (f *Finder) exe(name string) string {
	if f.windows() {
		return name + ".exe"
	}
	return name
}

func (f *Finder) lookPath(file string) (string, error) {
	if f.LookPath != nil {
		return f.LookPath(file)
	}
	return exec.LookPath(file)
}

func (f *Finder) getenv(key string) string {
	if f.Getenv != nil {
		return f.Getenv(key)
	}
	return os.Getenv(key)
}
