package cmdguard

import (
	"path"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// systemDirs are the directories of the operating system's own files,
// lowercase: no command of a coding task deletes, moves or overwrites a
// file there. Temporary directories under them are not among them, nor
// are home directories (/root is one: agents in containers run as root).
var systemDirs = []string{
	"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys", "/proc",
	"/var", "/opt", "/snap", "/nix/store", "/system", "/library", "/applications",
	"/private/etc", "/private/var",
	"c:/windows", "c:/program files", "c:/program files (x86)", "c:/programdata",
}

// scratchDirs are the temporary directories inside systemDirs.
var scratchDirs = []string{"/var/tmp", "/var/folders", "/private/var/tmp", "/private/var/folders"}

// systemFile reports the system directory under which the path w lies, for
// a path that is absolute (or relative to the directory cd moved to) and
// outside the working tree. A path built at run time is judged by its
// literal start only.
func (e *evaluator) systemFile(w shell.Word) (string, bool) {
	name := w.Text
	if w.Dynamic() {
		if len(w.Segs) == 0 || w.Segs[0].Dynamic {
			return "", false
		}
		name = w.Segs[0].Text
	}
	name = strings.ReplaceAll(name, `\`, "/")
	if !isAbs(name) {
		if e.dir == "" || !isAbs(e.dir) || strings.HasPrefix(e.dir, virtualRoot) {
			return "", false
		}
		name = path.Join(e.dir, name)
	}
	clean := strings.ToLower(path.Clean(name))
	if e.root != virtualRoot {
		if root := strings.ToLower(path.Clean(strings.ReplaceAll(e.root, `\`, "/"))); clean == root || strings.HasPrefix(clean, root+"/") {
			return "", false
		}
	}
	if i := strings.IndexAny(clean, "*?["); i >= 0 {
		// A pattern may name whatever starts like the part before its
		// first wildcard: /et* may be /etc.
		stem := clean[:i]
		if _, scratch := under(stem, scratchDirs); scratch {
			return "", false
		}
		for _, d := range systemDirs {
			if strings.HasPrefix(stem, d+"/") || len(stem) > 1 && strings.HasPrefix(d, stem) {
				return d, true
			}
		}
		return "", false
	}
	if _, scratch := under(clean, scratchDirs); scratch {
		return "", false
	}
	return under(clean, systemDirs)
}

// under returns the one of dirs that the clean path p is or lies under.
func under(p string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return d, true
		}
	}
	return "", false
}
