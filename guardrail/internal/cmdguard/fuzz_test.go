package cmdguard

import (
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func fuzzPolicy() *Policy {
	return &Policy{
		Protected: func(name, root string, glob bool) (string, bool) {
			return ".harnish/", strings.Contains(name, ".harnish")
		},
		Allowed: func(string, string) bool { return false },
		Root:    "/repo",
	}
}

// FuzzWrappers checks that no arguments after a wrapper make the unwrapping
// (option specs, xargs, parallel, env -S, flock, su, ssh, ...) panic, and
// that an option spec's split stays within its arguments.
func FuzzWrappers(f *testing.F) {
	for _, s := range []string{
		"sudo -u x rm -rf build", "env -vS 'rm -rf x'", "env -uHOME -C / rm -rf x", "xargs -0rI{} rm -rf {}",
		"xargs -i{} sh -c 'rm {}'", "parallel 'rm -rf {}' ::: a b", "parallel -I XX rm XX :::: f", "watch -tn 2 ls",
		"flock -c 'rm -rf x' /l", "su -lc 'rm -rf x' app", "ssh -p 22 host -- rm -rf x", "timeout -sKILL 5 ls",
		"taskset -p 1 2", "chrt -f 10 ls", "wsl -e ls", "runuser -u a -- ls", "sg g -c ls", "nsenter -t 1 -m ls",
		"sem -j 2 ls", "unshare --weird x rm -rf y", "echo a b | xargs -I{} rm -rf {}",
	} {
		i := strings.IndexByte(s, ' ')
		f.Add(s[:i], s[i+1:])
	}
	p := fuzzPolicy()
	f.Fuzz(func(t *testing.T, wrapper, rest string) {
		if len(wrapper) > 64 || len(rest) > 4096 {
			return
		}
		var words []shell.Word
		for _, w := range strings.Fields(rest) {
			words = append(words, shell.Lit(w))
		}
		for _, spec := range wrapperSpecs {
			i, _, alt := spec.split(words)
			if i < 0 || i > len(words) || alt < 0 || alt > len(words) {
				t.Fatalf("split(%q) = %d, alt %d: outside %d words", rest, i, alt, len(words))
			}
		}
		Check(p, wrapper+" "+rest, Bash)
		for _, w := range []string{"xargs", "parallel", "env", "flock", "su", "ssh", "watch", "sudo", "timeout"} {
			Check(p, w+" "+rest, Bash)
		}
	})
}

// FuzzInterpreterCode checks that no code makes the interpreter scanners
// panic or report calls they cannot have found, in any language.
func FuzzInterpreterCode(f *testing.F) {
	for _, s := range []string{
		"import os; os.system('rm -rf build')", "__import__('os').system(\"x\")", "subprocess.run(['rm', '-rf', x], shell=True)",
		"require('child_process').execSync(`rm -rf ${d}`)", "fs.rmSync('x', {recursive: true})",
		"new Deno.Command('rm', {args: ['-rf']})", "Bun.$`rm -rf x`", "system \"rm\", \"-rf\"", "qx{rm -rf x}",
		"%x(rm -rf x)", "`rm -rf x`", "fork while fork", "f'''rm {x}'''", "r\"a\\\"b\"", "$#a # c", "/* x */ exec(",
		"FileUtils.rm_rf 'x'", "os.execute(", "system(\"", "(((((", "'", "\"\"\"",
	} {
		f.Add(s)
	}
	p := fuzzPolicy()
	f.Fuzz(func(t *testing.T, code string) {
		if len(code) > maxCode {
			return
		}
		for _, l := range langs {
			calls := scanCalls(l, code)
			if len(calls) > maxCalls {
				t.Fatalf("%s: %d calls, more than %d", l.name, len(calls), maxCalls)
			}
		}
		e := &evaluator{p: p, root: "/repo", maxDepth: DefaultMaxDepth}
		for _, name := range []string{"python3", "node", "perl", "ruby", "php", "lua", "deno"} {
			k := &call{c: &shell.Cmd{Source: name}, name: name, args: []shell.Word{shell.Lit("-e"), shell.Lit(code)}}
			if name == "python3" {
				k.args[0] = shell.Lit("-c")
			}
			if name == "deno" {
				k.args = []shell.Word{shell.Lit("eval"), shell.Lit(code)}
			}
			e.rules(k)
		}
	})
}
