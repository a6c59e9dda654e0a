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
	if p, ok := windowsEnvPath(name); ok {
		name = p // $env:windir\System32\... is C:\Windows\System32\...
	} else if w.Dynamic() {
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

// windowsDirVars are Windows' environment variables that name its system
// directories, lowercase, as PowerShell ($env:NAME) and cmd (%NAME%) write
// them.
var windowsDirVars = map[string]string{
	"windir": "C:/Windows", "systemroot": "C:/Windows", "programfiles": "C:/Program Files",
	"programfiles(x86)": "C:/Program Files (x86)", "programdata": "C:/ProgramData", "allusersprofile": "C:/ProgramData",
	"commonprogramfiles": "C:/Program Files/Common Files",
}

// windowsEnvPath returns p with a leading $env:NAME, ${env:NAME} or %NAME%
// of windowsDirVars replaced by the directory it names.
func windowsEnvPath(p string) (string, bool) {
	t := strings.Trim(p, `"'`)
	var name, rest string
	switch {
	case len(t) > 5 && strings.EqualFold(t[:5], "$env:"):
		i := strings.IndexAny(t[5:], `\/`)
		if i < 0 {
			i = len(t) - 5
		}
		name, rest = t[5:5+i], t[5+i:]
	case len(t) > 6 && strings.EqualFold(t[:6], "${env:"):
		i := strings.IndexByte(t, '}')
		if i < 0 {
			return "", false
		}
		name, rest = t[6:i], t[i+1:]
	case strings.HasPrefix(t, "%"):
		i := strings.IndexByte(t[1:], '%')
		if i < 0 {
			return "", false
		}
		name, rest = t[1:1+i], t[2+i:]
	default:
		return "", false
	}
	dir, ok := windowsDirVars[strings.ToLower(name)]
	if !ok {
		return "", false
	}
	return dir + rest, true
}
