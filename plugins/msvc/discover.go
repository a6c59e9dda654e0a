package msvc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Errors of discovery, wrapped by what [Discover] returns.
var (
	// ErrAmbiguousProject: several solutions, or several projects and no
	// solution; the configuration must name one.
	ErrAmbiguousProject = errors.New("msvc: more than one project")
	// ErrOrphanProject: C/C++ sources without any build metadata.
	ErrOrphanProject = errors.New("msvc: C/C++ sources without a CMakeLists.txt, solution or project")
	// ErrNoProject: the configured project type or file is not there.
	ErrNoProject = errors.New("msvc: project not found")
)

// Project is what [Discover] found to build.
type Project struct {
	// Type is how it is built; empty when there is nothing to verify.
	Type ProjectType
	// Path is, relative to the repository and with forward slashes, the
	// file that made the choice: CMakePresets.json, CMakeUserPresets.json or
	// CMakeLists.txt (in the source directory), or the .sln, .slnx or
	// .vcxproj to build.
	Path string
	// Reason says how it was chosen, for the report.
	Reason string
}

// Discover finds the project in the working tree at root, in this order:
// the configured projectType (for msbuild, msbuild.project or the one
// solution or project found), or msbuild.project if set; CMakePresets.json, CMakeUserPresets.json, CMakeLists.txt
// in the source directory; one solution (.sln or .slnx); one .vcxproj.
// Several solutions, or several projects and no solution, wrap
// [ErrAmbiguousProject] and name them; solutions and projects are looked
// for in the whole tree, and one at the root wins over others below it. A
// tree with C/C++ sources but none of these wraps [ErrOrphanProject]; a
// tree with neither is a Project of no Type: nothing to verify.
func Discover(root string, cfg *Config) (*Project, error) {
	src := cfg.sourceDir()
	cmakeFile := func() string {
		for _, name := range []string{"CMakePresets.json", "CMakeUserPresets.json", "CMakeLists.txt"} {
			if isFile(filepath.Join(root, relPath(src), name)) {
				return path.Join(filepath.ToSlash(relPath(src)), name)
			}
		}
		return ""
	}
	typ := cfg.ProjectType
	if typ == "" && cfg.MSBuild != nil && cfg.MSBuild.Project != "" {
		typ = MSBuild // a project named is a choice made
	}
	switch typ {
	case CMake:
		p := path.Join(filepath.ToSlash(relPath(src)), "CMakeLists.txt")
		if !isFile(filepath.Join(root, filepath.FromSlash(p))) {
			return nil, fmt.Errorf("%w: projectType cmake, and no %s", ErrNoProject, p)
		}
		return &Project{Type: CMake, Path: p, Reason: "projectType cmake"}, nil
	case MSBuild:
		if cfg.MSBuild != nil && cfg.MSBuild.Project != "" {
			p := filepath.ToSlash(relPath(cfg.MSBuild.Project))
			if !isFile(filepath.Join(root, filepath.FromSlash(p))) {
				return nil, fmt.Errorf("%w: msbuild.project %s", ErrNoProject, p)
			}
			return &Project{Type: MSBuild, Path: p, Reason: "msbuild.project"}, nil
		}
		s, err := scan(root, cfg)
		if err != nil {
			return nil, err
		}
		p, err := s.msbuildProject()
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, fmt.Errorf("%w: projectType msbuild, and no .sln, .slnx or .vcxproj", ErrNoProject)
		}
		p.Reason = "projectType msbuild; " + p.Reason
		return p, nil
	}
	if f := cmakeFile(); f != "" {
		return &Project{Type: CMake, Path: f, Reason: "found " + f}, nil
	}
	s, err := scan(root, cfg)
	if err != nil {
		return nil, err
	}
	p, err := s.msbuildProject()
	if err != nil || p != nil {
		return p, err
	}
	if len(s.sources) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrOrphanProject, names(s.sources, 5))
	}
	return &Project{Reason: "no C/C++ sources and no build metadata: nothing to verify"}, nil
}

// scanned is what a walk of the tree found.
type scanned struct {
	solutions, projects, sources []string        // slash paths, sorted
	names                        map[string]bool // every file's base name
}

// msbuildProject picks the solution or project to build: nil when there is
// none.
func (s *scanned) msbuildProject() (*Project, error) {
	for _, set := range []struct {
		kind  string
		files []string
	}{{"solutions", s.solutions}, {"projects", s.projects}} {
		pick := set.files
		if len(pick) > 1 {
			// One at the root wins over those of subprojects and samples.
			pick = slices.DeleteFunc(slices.Clone(pick), func(p string) bool { return strings.Contains(p, "/") })
		}
		switch {
		case len(pick) == 1:
			return &Project{Type: MSBuild, Path: pick[0], Reason: "found " + pick[0]}, nil
		case len(set.files) > 0:
			return nil, fmt.Errorf(`%w: %d %s (%s); name one as msbuild.project in %s, or set "projectType"`,
				ErrAmbiguousProject, len(set.files), set.kind, names(set.files, 10), ConfigFile)
		}
	}
	return nil, nil
}

// sourceExts are the extensions of C and C++ sources and headers.
var sourceExts = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".h": true, ".hpp": true, ".hxx": true}

// scan walks the tree for solutions, projects and sources, skipping
// version control, harnish's state, IDE state, and build trees.
func scan(root string, cfg *Config) (*scanned, error) {
	s := scanned{names: map[string]bool{}}
	skip := map[string]bool{}
	if cfg.CMake != nil && cfg.CMake.BinaryDir != "" {
		skip[filepath.ToSlash(relPath(cfg.CMake.BinaryDir))] = true
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable corner is not the project
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (skipDir(d.Name()) || skip[rel] || isFile(filepath.Join(p, "CMakeCache.txt"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		s.names[d.Name()] = true
		switch ext := strings.ToLower(filepath.Ext(d.Name())); {
		case projectKind(d.Name()) == "solution":
			s.solutions = append(s.solutions, rel)
		case ext == ".vcxproj":
			s.projects = append(s.projects, rel)
		case sourceExts[ext]:
			s.sources = append(s.sources, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("msvc: %w", err)
	}
	return &s, nil
}

// skipDir reports whether a directory of this name holds no project of
// ours: version control, harnish's state, IDE state, build output and
// dependencies.
func skipDir(name string) bool {
	switch strings.ToLower(name) {
	case ".git", ".hg", ".svn", ".harnish", ".vs", ".vscode", ".idea", "out", "node_modules", "_deps", "vcpkg_installed":
		return true
	}
	l := strings.ToLower(name)
	return l == "build" || strings.HasPrefix(l, "build-") || strings.HasPrefix(l, "build_") || strings.HasPrefix(l, "cmake-build-")
}

// projectKind returns "solution" for .sln and .slnx, "project" for
// .vcxproj, "" otherwise.
func projectKind(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".sln", ".slnx":
		return "solution"
	case ".vcxproj":
		return "project"
	}
	return ""
}

// names lists up to n names, and how many more there are.
func names(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:n], ", "), len(list)-n)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
