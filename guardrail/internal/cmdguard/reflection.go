package cmdguard

import (
	"regexp"
	"strings"
	"sync"
)

// reflectiveCalls rewrites interpreter code that reaches a function by
// reflection, or through a name it binds the function to, into the plain
// call the scanner reads:
//
//   - Python: __import__('m') and importlib.import_module('m') are the
//     module m (getattr(__import__('shutil'), 'rmtree') is shutil.rmtree),
//     and SQLAlchemy's execute(text('...')) is execute('...');
//   - JavaScript: x['name'] is x.name (require('fs')['rmSync']);
//   - Ruby: x.send(:name, ...), public_send and __send__ are x.name(...),
//     x.method(:name) is x.name, and f.call(...) is f(...);
//   - PHP: call_user_func('f', ...) and call_user_func_array('f', [...])
//     are f(...), and $v = 'f'; $v(...) is f(...);
//   - Perl: $f = \&Mod::f; $f->(...) is Mod::f(...);
//   - a name bound to a known function (Python's nuke = shutil.rmtree,
//     JavaScript's const run = require('child_process').execSync, Ruby's
//     m = FileUtils.method(:rm_rf)) and then called is that function.
//
// Each rewrite is tried only when a cheap substring test says it may apply.
func reflectiveCalls(l *lang, src string) string {
	switch l.name {
	case "Python":
		if strings.Contains(src, "import") && (strings.Contains(src, "('") || strings.Contains(src, `("`)) {
			src = pyImportCall().ReplaceAllString(src, "$1")
		}
		if strings.Contains(src, "text(") {
			// SQLAlchemy's execute(text('...')): the statement is the literal.
			src = pySQLText().ReplaceAllString(src, "$1$2")
		}
	case "JavaScript":
		if strings.Contains(src, "['") || strings.Contains(src, `["`) {
			src = jsIndexName().ReplaceAllString(src, "$1.$2")
		}
	case "Ruby":
		if strings.Contains(src, "send") {
			src = rubySendArgs().ReplaceAllString(src, ".$1(")
			src = rubySendNone().ReplaceAllString(src, ".$1()")
		}
		if strings.Contains(src, ".method(") {
			src = rubyMethodRef().ReplaceAllString(src, ".$1")
		}
		if strings.Contains(src, ".call(") {
			src = rubyProcCall().ReplaceAllString(src, "$1$2(")
		}
	case "PHP":
		if strings.Contains(src, "call_user_func") {
			src = phpCallUserArray().ReplaceAllString(src, "$1($2)")
			src = phpCallUserArgs().ReplaceAllString(src, "$1(")
			src = phpCallUserNone().ReplaceAllString(src, "$1()")
		}
		if strings.Contains(src, "$") {
			src = callsThroughNames(l, src, phpFuncVar(), func(name string) string { return `\$` + name + `\s*\(` })
		}
	case "Perl":
		if strings.Contains(src, `\&`) {
			src = callsThroughNames(l, src, perlCodeRef(), func(name string) string {
				return `(?:\$` + name + `\s*->\s*|&\$` + name + `\s*|&\{\s*\$` + name + `\s*\}\s*)\(`
			})
		}
	}
	switch l.name {
	case "Python", "JavaScript", "Ruby":
		if strings.Contains(src, "=") {
			src = callsThroughNames(l, src, boundName(), func(name string) string {
				return `(^|[^\w$.])` + regexp.QuoteMeta(name) + `\s*\(`
			})
		}
	}
	return src
}

// callsThroughNames finds the bindings bind matches (the local name, then
// the function) and rewrites each call through a bound name, which
// callPattern matches, as a call of the function. Names bound to calls the
// language has no rule for are left alone, and so is the binding itself.
func callsThroughNames(l *lang, src string, bind *regexp.Regexp, callPattern func(name string) string) string {
	seen := 0
	for _, m := range bind.FindAllStringSubmatch(src, 8) {
		name, target := m[1], boundTarget(m[2])
		if target == "" || len(target) > maxBoundTarget || seen == 4 {
			continue
		}
		if _, known := lookupCall(l, target); !known {
			continue
		}
		seen++
		re, err := regexp.Compile(callPattern(regexp.QuoteMeta(name)))
		if err != nil {
			continue
		}
		src = re.ReplaceAllStringFunc(src, func(call string) string {
			lead := ""
			if call != "" && !identStart(call[0]) && call[0] != '$' && call[0] != '&' && call[0] != '\\' {
				lead = call[:1] // the character before the name, kept
			}
			return lead + target + "("
		})
	}
	return src
}

// maxBoundTarget bounds the function name a call through a bound name is
// rewritten to, so the rewrite cannot multiply the code's length.
const maxBoundTarget = 80

// boundTarget is the function a binding names, with calls in its receiver
// dropped (require('fs').rmSync is require.rmSync, looked up by its last
// part), or "" when it names no function.
func boundTarget(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	t := b.String()
	if t == "" || !identStart(t[0]) {
		return ""
	}
	return t
}

var (
	pyImportCall = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:__import__|(?:importlib\.)?import_module)\(\s*['"]([A-Za-z_][\w.]*)['"]\s*\)`)
	})
	pySQLText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b((?:execute|exec_driver_sql)\(\s*)(?:[\w.]*\.)?text\(\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*\)`)
	})
	jsIndexName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([\w$)\]])\s*\[\s*['"]([A-Za-z_$][\w$]*)['"]\s*\]`)
	})
	rubySendArgs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\.(?:public_send|__send__|send)\(\s*(?::|['"])(\w+[!?]?)['"]?\s*,\s*`)
	})
	rubySendNone = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\.(?:public_send|__send__|send)\(\s*(?::|['"])(\w+[!?]?)['"]?\s*\)`)
	})
	rubyMethodRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\.method\(\s*(?::|['"])(\w+[!?]?)['"]?\s*\)`)
	})
	rubyProcCall = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[^\w.:])([a-z_]\w*)\.call\(`)
	})
	phpCallUserArray = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bcall_user_func_array\(\s*['"](\w+)['"]\s*,\s*(?:\[|array\()([^\[\]()]*)[\])]\s*\)`)
	})
	phpCallUserArgs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bcall_user_func\(\s*['"](\w+)['"]\s*,\s*`)
	})
	phpCallUserNone = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bcall_user_func\(\s*['"](\w+)['"]\s*\)`)
	})
	phpFuncVar = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\$(\w+)\s*=\s*['"](\w+)['"]\s*;`)
	})
	perlCodeRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\$(\w+)\s*=\s*\\&([\w:]+)`)
	})
	// boundName matches NAME = a.b (Python, Ruby), const/let/var NAME =
	// require('m').f (JavaScript): a function bound to a name, not called.
	boundName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(?:^|[;{]|\b(?:const|let|var)\s)\s*([A-Za-z_$][\w$]*)\s*=\s*((?:[A-Za-z_$][\w$]*(?:\([^()]*\))?\.)+[A-Za-z_$][\w$]*[!?]?)\s*(?:$|[;\n}])`)
	})
)
