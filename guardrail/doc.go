// Package guardrail decides whether an agent's action may go ahead. A
// [Guardrail] judges one [Action] (a shell command, a file edit, or a package
// install) and returns a [Decision]: [Allow], [Soft] (warn, continue, and tell
// the agent) or [Hard] (stop), with a stable rule ID and a reason.
//
// The loop consults guardrails twice. During an attempt, every tool call the
// agent makes reaches harnish through the agent's own hook (harnish hook
// pre-tool-use) and is judged before it runs. After the attempt, the diff is
// judged again, file by file, because an agent's hook can fail to run. A hard
// decision stops the loop at once and is never retried: the agent does not
// get to try another spelling of the same command.
//
// Guardrails fail closed. An error returned by a guardrail, or a panic inside
// one, counts as a hard decision with the rule [RuleError]. Callers get that
// behaviour by calling a guardrail through [Evaluate] rather than directly;
// [All] combines guardrails, and the most severe decision wins.
//
//	agent ─ tool call ─> hook ─> Evaluate(All(rules...)) ─┬─ allow ─> runs
//	                                                      ├─ soft  ─> runs, agent warned
//	                                                      └─ hard  ─> blocked, loop stops
//
// This package holds the contract, the combinators and, later, the built-in
// rules and the shell parsers they use. It imports nothing else of harnish.
//
// # Command rules
//
// [CommandGuard] judges [KindCommand] actions. It parses the command line
// for its shell (bash with mvdan.cc/sh/v3; PowerShell and cmd with small
// tokenizers that know their quoting, escapes, separators, blocks and
// redirections), so quoting, escapes ('r'm, r\m, $'\x72m', Re`move-Item,
// r^d), brace expansion and variables the command line assigns itself are
// resolved into the real argv words. Then it unwraps wrappers, skipping
// their options as each one parses them (short clusters, attached values,
// long options with = or a separate value): sudo, doas, pkexec, env (with
// assignments, -i, -u, -C, -P, -S and -vS split strings, --split-string),
// command (with -v or -V too: words after the name are judged as run),
// builtin, exec, nohup, setsid, nice, ionice, timeout, time,
// watch, stdbuf, flock (a command or -c), chroot, unshare, nsenter,
// taskset, chrt, numactl, cgexec, prlimit, strace, ltrace, systemd-run,
// sshpass, faketime, caffeinate, xvfb-run, unbuffer, fakeroot, eatmydata,
// chronic, proxychains, torsocks, su, runuser, sg and script (-c), ssh (the
// remote command), wsl, xargs (every option; -I, -i, -J and --replace
// strings stand for its input's whole lines, and without them its words
// are appended; words read as sh -c's script are judged joined as the
// script too), GNU parallel and sem (the command once per ::: argument or
// input line, put in for {}, {.}, {/}, ...; the words joined and run by a
// shell, and also each one argument, as -q runs them: parallel bash -c
// 'rm -rf {}' ::: x blocks; with no command, the arguments or input lines
// are the commands), find -exec/-execdir/-ok,
// busybox, toybox, run0, firejail, bwrap (each option skipping its values),
// cpulimit, docker/podman exec and run, docker compose exec, kubectl exec,
// lxc/incus/multipass exec, vagrant ssh -c (and vagrant ssh -- ARGS, whose
// words after ssh's options are the remote command), cmd's start and call,
// Start-Process. Package runners run the package's command as argv: npx,
// bunx, pnpx, uvx, npm exec/x, pnpm dlx/exec, yarn dlx/exec, bun x, and
// uv, poetry, pipenv, pdm, hatch, rye, pixi, conda/mamba/micromamba run,
// bundle exec, pipx run (npx -c 'cmd' is a payload), corepack's package
// managers (corepack pnpm add x is pnpm add x); so do fd -x/-X
// (--exec, --exec-batch), entr (-s: a payload), screen, git bisect run.
// Commands run later or elsewhere are payloads: watchexec's command, at and
// batch reading a here-document or echo, tmux new-session, new-window,
// split-window, run-shell and send-keys, trap 'cmd' SIGNALS, git submodule
// foreach, git rebase -x/--exec. When a wrapper has an option harnish
// does not know, the word after it may be its value: the command read from
// the next word on is judged too, and what it trips fails closed as
// shell.unresolved. Payloads are judged as commands of their own, up
// to [CommandConfig.MaxDepth] levels: sh/bash/zsh/dash/ksh -c, eval,
// here-documents, here-strings and echo/printf text fed to a shell or a SQL
// client, pwsh/powershell -Command and -EncodedCommand, Invoke-Expression,
// cmd /c, git -c alias.NAME=... (a "!" alias is a shell payload, any
// other alias git arguments), and a script read from a process
// substitution that prints it (source <(echo ...), bash <(echo ...)). Commands inside blocks, loops, functions,
// subshells and command substitutions are judged where they are written.
// PowerShell parameters match case-insensitively and by prefix, and its
// aliases (rm, ri, del, rd, erase, rmdir, mv, cp, iex, iwr, ...) resolve to
// their cmdlets. Long options may be abbreviated to any unique prefix, as
// GNU getopt_long and git read them (rm --rec, git reset --ha, git push
// --forc); an ambiguous prefix stands for every option it may mean. Bash
// arrays and set -- assigned on the command line expand as argv
// (args=(-rf x); rm "${args[@]}"), and a for loop over a short list of
// known words is judged once per word. Every rule is hard; a decision's
// Match is the offending command as written. The rules, by ID:
//
//   - fs.recursive-delete: deleting recursively, with or without force, in any
//     spelling: rm -r, -R, -rf, --recursive; find -delete; find -exec rm -r;
//     git rm -r; rsync --delete (and --del); archivers that delete what they
//     archive (tar --remove-files, zip -rm, 7z a -sdel; zip -m without -r
//     deletes the files named, judged as rm's operands); the rimraf CLI
//     (npx rimraf dist);
//     Remove-Item -Recurse (-r, -rec, -Recurse:$true) and Get-ChildItem
//     -Recurse piped into Remove-Item or into a ForEach-Object block that
//     deletes; [IO.Directory]::Delete(path, $true or 1), (Get-Item x).Delete($true);
//     rd /s, rmdir /s, del /s, erase /s, for /r ... do del, forfiles /s
//     running del, erase, rd or Remove-Item on each file; robocopy /mir and
//     /purge (not with /l, which only lists). Examples: sudo rm -rf build,
//     bash -c "rm -r x", rd/s/q build, trap 'rm -rf "$T"' EXIT. Single-file deletes are allowed, and
//     so are commands that remove nothing: git rm -r --cached (or -n),
//     rsync --delete with -n, --dry-run or --list-only, and find tests whose
//     argument merely reads -delete (find . -name -delete).
//   - fs.protected: deleting, moving, truncating or overwriting (appending
//     included) a path under [Protected] (.harnish/, .git/ but for its
//     *.lock files, the plugin manifest and the plan's
//     guardrails.protected): rm, unlink, shred, rmdir, mv, the destination of
//     cp, ln and install, truncate, dd of=, tee, sed -i, git rm and mv, curl
//     -o and wget -O, output redirections, Remove-Item, Move-Item,
//     Rename-Item, Set-Content, Add-Content, Clear-Content, Out-File,
//     Tee-Object, New-Item, the destination of Copy-Item, del, move, ren and
//     the destination of copy; ln's target, since what is written through
//     a link lands there (ln -s .git/config gitconfig; at the hook, an edit
//     through a symbolic link already in the tree is judged on the path it
//     leads to as well); in-place writers (perl -i, patch, sort -o, sd,
//     wget -qO, curl -so); find -name F with -delete or -exec rm; and files
//     interpreter code writes, moves or copies over (open(p, "w"),
//     writeFileSync, File.write, file_put_contents, shutil.move, os.rename,
//     Perl's open(F, ">p"), [IO.File]::WriteAllText). A glob that may match a protected path counts
//     (rm .h*/state.json), and so does a path whose literal tail names one
//     ("$ROOT/.harnish/state.json"); cd is followed, and so is the directory
//     a wrapper runs its command in (env -C DIR, sudo -D DIR, their --chdir):
//     env -C .harnish rm state.json is fs.protected; so are pushd,
//     Set-Location and Push-Location (-Path or -LiteralPath), git's own -C
//     DIR for the paths its subcommand is given (git -C .harnish rm
//     state.json), and a directory git rev-parse names at run time (cd
//     "$(git rev-parse --git-dir)", --absolute-git-dir, --show-toplevel,
//     with a literal tail after it). Reading or copying a
//     protected path is allowed. Example: echo {} > .harnish/state.json.
//   - git.force-push: git push with -f, --force, --force-with-lease,
//     --force-if-includes, --mirror, a +refspec, or -f inside a short-flag
//     cluster (-uf); and git send-pack, the plumbing under push, with
//     --force, --mirror or a +refspec. Example: git -C repo push origin +main.
//   - git.discard: discarding uncommitted work: git reset --hard; git clean
//     with -f and without -n; git checkout -f, git checkout . and
//     git checkout -- . (or :/, *); git restore . without --staged (or with
//     --worktree); git switch --discard-changes or -f; git stash clear
//     and git stash drop; git reset --merge; git branch -D (--delete
//     --force, -df, -d -f) and git branch -f NAME (--force, moving an
//     existing branch off its commits), -m or -c with -f; git worktree
//     remove --force. Examples: git clean -xdf, git restore :/, git reset
//     --ha (an abbreviation), git stash drop stash@{1}, git branch -df old.
//     git clean -n, git reset --keep, git branch -d (which refuses an
//     unmerged branch), git branch -M main, git stash list and pop, and
//     git worktree remove without --force are allowed, and so is -h or
//     --help among the options of these subcommands and push (git branch
//     -D --help prints the usage); after "--" they are paths.
//   - sql.drop: DROP TABLE, DROP DATABASE or DROP SCHEMA (TEMPORARY too) in
//     any case and spacing, with comments as separators (DROP/**/TABLE),
//     reaching a SQL client (psql, mysql, mariadb, sqlite3, duckdb, sqlcmd,
//     clickhouse client, cockroach sql, Invoke-Sqlcmd, ...) by argument, by
//     a pipe from echo/printf or a PowerShell string, by here-document or
//     here-string, including through docker exec or kubectl exec. Example:
//     echo "drop table users" | docker exec -i db psql. SQL from a file
//     (psql -f x.sql, psql < dump.sql) is judged by the file's name only.
//   - sql.destroy: emptying a table that stays defined, reaching a SQL
//     client as sql.drop's statements do: TRUNCATE [TABLE] name and DELETE
//     FROM without a WHERE in its statement (up to the next semicolon).
//     Examples: psql -c 'TRUNCATE users', mysql -e 'DELETE FROM sessions',
//     psql -c 'DELETE FROM a WHERE id = 1; DELETE FROM b'. Allowed: DELETE
//     FROM t WHERE id = 1, MySQL's TRUNCATE(x, 2) function, ON DELETE
//     CASCADE, and the words in string literals, comments, messages and
//     searches (echo "TRUNCATE" > notes.md). A separate ID from sql.drop,
//     whose meaning stays what it was, so that a caller keyed on either
//     sees what it saw before. MySQL's DELETE LOW_PRIORITY/QUICK/IGNORE
//     FROM and multi-table DELETE t1, t2 FROM ... count (REVOKE DELETE ON t
//     FROM u does not). Framework and platform database shells are SQL
//     clients for sql.drop and sql.destroy: manage.py and django-admin
//     dbshell, rails db and dbconsole, php artisan db, wrangler d1 execute,
//     sqlite-utils (whose drop-table and drop-view are sql.drop), heroku
//     pg:psql, prisma db execute, pscale shell, fly postgres connect.
//   - pkg.install: installing a package the plan does not allow
//     ([CommandConfig.Packages], the plan's guardrails.packages): go get,
//     go install and go run of module@version ("go"); npm, pnpm, yarn and bun
//     install/add ("npm", yarn workspace NAME add too); pip, pip3, a
//     version's pip (pip3.11), python -m pip, uv, poetry, pipx (and pipx
//     inject APP PKG), pipenv ("pypi"); cargo add/install ("cargo"); gem install and
//     bundle add ("gem"); apt/apt-get, dnf/yum, apk, brew, choco, winget,
//     conda (the tool's name); dotnet add package and Install-Package
//     ("nuget"); Install-Module and Install-Script ("psgallery"). What the
//     repository declares installs freely: npm ci, npm install without names,
//     pip install -r FILE, pip install -e ., go mod download, local paths.
//     Running a downloaded script is an install and blocks: curl ... | sh,
//     bash <(curl ...), sh -c "$(curl ...)", iwr ... | iex,
//     iex (New-Object Net.WebClient).DownloadString(...). With no plan,
//     nothing may be installed. Example: pip install flask.
//   - shell.unresolved: what cannot be judged statically and could be
//     dangerous fails closed: a command name built at run time whose
//     arguments would trip a rule for rm, git, a SQL client or a shell
//     ($CMD -rf build, & $c -Recurse x); a payload known only at run time
//     (eval "$X", sh -c "$S", eval "$(ssh-agent -s)", Invoke-Expression $s);
//     text piped into a shell from anything but echo, printf or a
//     here-document (cat x.sh | sh, generate | bash).
//   - sys.disk: destroying a disk, a file system or the machine's memory,
//     whatever the path: making a file system (mkfs, mkfs.*, mke2fs,
//     mkswap, newfs_*, Format-Volume, Clear-Disk, cmd's format D:), wiping
//     signatures (wipefs -a), rewriting a partition table (fdisk, gdisk,
//     sfdisk, sgdisk, parted other than listing and print, diskpart),
//     discarding or erasing (blkdiscard, cryptsetup luksFormat, hdparm
//     --security-erase, diskutil eraseDisk), and writing to a block device
//     or memory by any command that writes a path (dd of=, a redirection,
//     cp, tee, shred, ...): /dev/sd*, hd*, vd*, xvd*, nvme*, mmcblk*,
//     disk*, rdisk*, md*, dm-*, mapper/*, loop*, nbd*, mem, kmem, port, an
//     LVM volume /dev/VG/LV and /dev/block/NAME (a directory of /dev that
//     holds no terminals, sound, input or the like), a glob over them, a
//     /dev path completed at run time, or a Windows raw device
//     (\\.\PhysicalDrive1, \\.\D:, \\?\Volume{...}, with either slash;
//     not a path under one, \\?\C:\dir\file). Examples:
//     dd if=x.iso of=/dev/sdb, cat /dev/urandom > /dev/nvme0n1,
//     mkfs.ext4 /dev/sdb1. Destroying pools, volumes and namespaces counts
//     too: zpool destroy and labelclear, zfs destroy, lvremove, vgremove,
//     pvremove, mdadm --zero-superblock, nvme format and sanitize, btrfs
//     subvolume delete (btrfs sub del), lvresize taking size away (-L -10G,
//     -l -50%FREE; an absolute size is left alone); and so
//     does interpreter code that writes a device (open('/dev/sda', 'wb')).
//     Reading a device (dd if=/dev/sda of=x.img),
//     /dev/null, /dev/stderr, /dev/tty, /dev/shm/ and bash's /dev/tcp/ are
//     allowed, and so are listing (fdisk -l, parted -l) and --help.
//   - sys.fork-bomb: a shell function that calls itself in the background
//     or in a pipeline (:(){ :|:& };:, bomb(){ bomb|bomb& }; bomb); a script
//     that runs itself in the background or a pipeline ($0 & $0, bash $0 &,
//     cmd's %0|%0); an endless cmd loop that starts shells (for /l %i in
//     (0,0,1) do start cmd; a label that start %0 runs under and goto jumps
//     back to), and PowerShell's (while ($true) { Start-Process powershell },
//     Start-Job, a shell run with &); interpreter code that starts processes
//     without waiting in an endless loop (while True: Popen(...), for (;;)
//     spawn(...), os.execute("... &")); and interpreter code that forks in
//     a loop (perl -e 'fork while fork', python3 -c 'while True:
//     os.fork()', ruby -e 'loop { fork }', php -r 'while(1) pcntl_fork();').
//   - sys.files: deleting, moving, truncating or overwriting a file of the
//     system's own, outside the working tree, by any command that writes a
//     path (the verbs of fs.protected, interpreter code included): under
//     /etc, /usr, /bin, /sbin, /lib*, /boot, /proc, /sys, /var, /opt,
//     /snap, /nix/store, macOS's /System, /Library, /Applications and
//     /private/etc, Windows' C:\Windows, C:\Program Files and C:\ProgramData;
//     a glob that may name one counts (rm /et*), and cd is followed, and so
//     is find's starting point for the {} its -exec command is given (find
//     /var/log -exec truncate -s 0 {} +). No
//     coding task changes them, and a single deleted file (/etc/passwd,
//     /usr/bin/python3) can break the machine. Examples: rm /etc/hosts,
//     echo x | sudo tee -a /etc/sudoers, cp tool /usr/local/bin/,
//     python3 -c "os.remove('/etc/passwd')", perl -e 'unlink
//     glob("/etc/*")' (a deleting call's absolute string literals count
//     inside an expression too). Reading and copying from them
//     is allowed, and so are /tmp, /var/tmp and macOS's /var/folders.
//     At the hook, an agent's file edit (Write, Edit, apply_patch) of a
//     file outside the working tree is judged as the write it amounts to
//     (cat > PATH with the text as a here-document), so a Write of
//     /etc/hosts is refused as echo > /etc/hosts is, and a key written into
//     ~/.aws/credentials as a command writing it there is.
//   - edit.secret.* (see "Edit rules"): text a command writes into a file,
//     when the command line says what it is, is judged by the secret rules
//     of the edit guard, with the file's name: a here-document or
//     here-string that cat, tee, dd of=, sponge or cp /dev/stdin passes on;
//     echo's or printf's arguments redirected with > or >>, from a block or
//     subshell too ({ echo ...; } > f), or through a descriptor exec opened
//     (exec 3>f; echo ... >&3); what sed -i's or perl -pi's s///
//     puts in (its replacement, group references read as the text they
//     stand for: s/^\(API_KEY=\).*/\1VALUE/ puts in API_KEY=VALUE) and
//     sed's a, i and c text; the string literals of ruby -pi's and gawk -i
//     inplace's code; sd's replacement; yq -i's expression, and a jq or yq
//     program assigning a value whose output is redirected into a file (jq
//     '.apiKey = "..."' cfg.json > tmp), and the literals of a Secret
//     manifest kubectl create secret ... --dry-run -o yaml prints into one; install from /dev/stdin; what
//     interpreter code (open(p, "w").write, Path(p).write_text, ...)
//     writes; configuration commands that store a value (git config, git
//     remote add/set-url, npm config set, aws configure set, pip config set,
//     poetry config, cargo login, uv auth login, bundle config, composer
//     config); PowerShell's
//     Set-Content, Add-Content, Out-File, a redirected string and
//     [IO.File]::WriteAllText. echo "GH_TOKEN=ghp_..." >> .env blocks before
//     the key reaches the disk. A key only mentioned (a curl header, export
//     GH_TOKEN=..., echo to the terminal) is allowed. The decision's Match
//     is the masked secret.
//   - shell.parse: a command line that does not parse for its shell.
//   - shell.depth: payloads nested deeper than [CommandConfig.MaxDepth].
//   - shell.interactive: with [CommandConfig.RefuseInteractive], a shell or
//     REPL started without a script (sudo bash, timeout 60 python3, ...),
//     whose later input would reach no guard.
//
// What a command line defines for itself is followed into its uses. An
// alias defined earlier (alias del='rm -rf'; del build) is replaced by its
// text before the line is judged, and an alias whose text ends in a blank
// expands the next word too (alias sudo='sudo '); a function's body is
// judged once more at each call with the call's words as $1.. and "$@"
// (g() { git "$@"; }; g reset --hard), nested calls included, up to 16
// expansions per script and never inside themselves; a call of a function
// that shadows a command (git() {...}) is still judged as the command too,
// failing closed. sh -c 'script' NAME ARGS gives the script $0 and "$@"
// (sh -c '"$@"' _ rm -rf x); declare -n names are followed; input
// redirected from a process substitution (bash < <(echo ...), mysql <
// <(echo ...)) is read as a pipe; a payload that is only a substitution
// printing text (sh -c "$(echo rm -rf x)", eval "$(printf ...)") is judged
// as the printed text, and so is a here-string that is only such a
// substitution (psql <<< "$(echo 'DROP TABLE t')"). An option word with a
// run-time tail keeps its
// written letters (rm -r$(x) is rm -r). A command substitution in a
// command's arguments that only prints literal text (echo, printf) is that
// text, split at blanks when unquoted, as bash runs it: rm $(echo -rf) x is
// rm -rf x, eval "git $(echo reset) --hard" is git.discard; as the
// command's name ($(echo rm) -rf x) it stays a name built at run time
// (shell.unresolved), and a substitution whose output the line does not
// state stays an opaque word (rm $(cat list) deletes files). An expansion
// with a literal default (${X:-DEFAULT}, ${X-...}, ${X:=...}) is the value
// the line gave X, or else, in the arguments, the default (rm ${O:--rf} x
// is rm -rf x). read assigns the words a here-string or here-document
// states (read -r c <<< 'rm -rf x'; $c; read -a for an array), printf -v
// NAME assigns a static format's text with its %s filled; echo -e
// and -ne decode their escapes (\xHH, \0NNN) as printf does; BSD's
// script [-q] FILE COMMAND runs COMMAND. git aliases defined by git config
// alias.NAME VALUE earlier in the line, or by -c, are judged at their call
// with the call's arguments (git -c alias.co=checkout co -- . is
// git.discard), and git configuration given by -c or git config that makes
// a command destructive counts: clean.requireForce=false makes git clean
// delete without -f (git.discard), a remote.NAME.mirror or a "+" refspec in
// remote.NAME.push makes git push force (git.force-push). Configuration git
// reads from its environment counts as -c does, when the line assigns it
// (before git, through env, by export or declare): GIT_CONFIG_PARAMETERS
// ("'core.pager=rm -rf x'"), GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n, and --config-env=KEY=NAME with NAME's value
// (P='rm -rf x' git --config-env=core.pager=P log is fs.recursive-delete);
// a count git refuses, and a NAME the line does not assign, are left alone.
//
// More programs that run a command are unwrapped or read: valgrind, gdb
// --args (and -ex 'shell ...' or '!...'), perf stat/record/trace, hyperfine's
// commands and its --prepare, --setup, --cleanup and --conclude lines,
// rush's template (as parallel's), dtach and abduco, shx (shx rm -rf dist),
// cmd's forfiles /c (forfiles /p build /c "cmd /c rd /s /q @path"),
// env -, GNU tools under Homebrew's g prefix (grm, gfind, gxargs, gsed, ...),
// a package runner's NAME@VERSION (npx rimraf@5), and crontab reading its
// table from standard input, whose lines' commands are judged after their
// schedule ((crontab -l; echo '* * * * * rm -rf /srv') | crontab -). Tools
// with a shell escape in their own scripts are read as well: sed's e
// command and s///e flag (sed 's/.*/rm -rf x/e'), vim, vi, nvim and ex with
// -c, --cmd or +:!cmd, make -f - reading a makefile whose recipe lines are
// shell lines, expect -c's spawn, exec and system, awk's "cmd" | getline,
// print | "cmd" and print "script" | "sh", and AppleScript's do shell
// script. The del CLI (npx del-cli dist) is fs.recursive-delete.
//
// Interpreter code is read further: a string Python's exec or eval,
// JavaScript's eval, Function or vm.runInThisContext runs is scanned as
// code of the same language; getattr(os, "system") is os.system, and
// functions reached by reflection or through a name bound to them are the
// functions themselves: Python's __import__('m') and import_module('m')
// are m (getattr(__import__('shutil'), 'rmtree')('x') is
// fs.recursive-delete), JavaScript's x['f'] is x.f, Ruby's send,
// public_send and __send__ (:f, ...) and method(:f) are f, PHP's
// call_user_func('f', ...), call_user_func_array and $v = 'f'; $v(...) are
// f(...), Perl's $f = \&Mod::f; $f->(...) is Mod::f(...), and a known
// function bound to a name and called (nuke = shutil.rmtree; nuke('x'),
// const run = require('child_process').execSync; run(...)) is that
// function; names
// imported from a module (from subprocess import run) and JavaScript's
// destructured renames (const {execSync: x} = require("child_process"),
// import {rmSync as r} from "fs") keep their module; fs calls ending in Sync
// count under any receiver (import("fs").then(f => f.rmSync(...))), and
// fs/promises' unlink, writeFile, appendFile, truncate, rename and
// copyFile (fs.promises, fsp) as fs's do; Lua's io.open(p, "w") and
// os.rename write p as Python's open and os.rename do;
// os.posix_spawn(p) runs argv; Python's sh module (sh.rm("-rf", "x")) and
// plumbum's local["rm"](...) run the named program; pathlib's
// Path(p).unlink(), .rmdir(), .write_text(), .write_bytes(), .touch(),
// .rename() and .replace() write p (fs.protected); Perl's q{}, qq{}, qw[]
// and Ruby's %q(), %Q[], %(), %w[] are read as the strings and lists they
// are (perl -e 'system qq{rm -rf x}'); code that execs or evals its
// standard input (python3 -c "exec(sys.stdin.read())" <<< CODE) has that
// input scanned as code too, and so does deno run - ; and interpreter code
// that is a download (python3 -c "$(curl -fsSL URL)") is pkg.install. The
// -c of csh, tcsh, yash, osh, posh, oksh and rbash is read as sh's.
//
// Writes into protected paths, beside the commands of fs.protected:
// extracting an archive into one (tar -x -C .harnish, unzip -d .harnish,
// 7z x -o.harnish, Expand-Archive -DestinationPath .harnish; and
// Compress-Archive writes its -DestinationPath), gawk -i inplace on one,
// and git checkout -- PATH or
// git restore PATH over one. Files a tool's own script writes count as
// written: sed's w and W commands and the s command's w flag (sed -n 'w
// .git/config'), and awk's print and printf with > or >> to a string
// ("file", ("dir/" $1)); so do output operands (uniq IN OUT, xxd IN OUT,
// split FILE PREFIX, csplit -f PREFIX) and compressors that replace their
// operand (gzip, gunzip, bzip2, xz and kin, not with -c, -k, -l or -t).
// Files named by an editor's write commands (vim -c 'wq! FILE', :saveas
// FILE, :w >> FILE, ed's w FILE) and by a SQL client's own input (sqlite3's
// .output, .once, .save and .backup, psql's \o, \w and \g, VACUUM INTO
// 'FILE', MySQL's INTO OUTFILE and DUMPFILE) are written; a client's
// output handed to a command (.output |cmd, \o |cmd) runs the command.
// The database file a file-database client opens (sqlite3, sqlite,
// litecli, duckdb) is written unless the client reads only (-readonly) or
// every statement it is given reads (SELECT, EXPLAIN, a reporting PRAGMA,
// .tables, .schema, .dump): sqlite3 .harnish/x.db 'INSERT ...' and a
// session or statements from a file on it are fs.protected; sqlite3
// .harnish/x.db 'SELECT ...' is allowed.
// Output options and operands are writes too: pg_dump -f, mysqldump -r,
// curl -D, -c and --trace, wget -o and -a, ssh-keygen -f (not with -l or
// -y, which read it), docker and podman save and export -o, go test
// -coverprofile and its kin, pytest --junitxml, tsc --outDir, esbuild
// --outfile, cargo --target-dir, npm pack --pack-destination, gh release
// and run download -D, terraform -out, helm --output-dir, age -o, tcpdump
// and tshark -w, perf -o, valgrind --log-file, httpie -o, mktemp -p,
// protoc --*_out, openssl -keyout, git bundle create FILE, ffmpeg's and
// ImageMagick's last operand, and the wrappers' own time -o, strace -o and
// script FILE (judged before the wrapped command, which keeps its
// options). A directory given as "." or with a trailing slash is judged by
// what lands in it (protoc --go_out=. is allowed). sql.drop also takes the database tools that
// drop by subcommand (dropdb NAME, mysqladmin drop NAME) and more clients
// (cqlsh, trino, presto, beeline, hive, impala-shell, spark-sql, vsql,
// litecli, sqlplus, turso); a SQL string literal only mentions what it holds
// (psql -c "SELECT 'DROP TABLE t'" is allowed) unless dynamic SQL runs it
// (EXECUTE 'DROP TABLE t', EXEC('...'), sp_executesql N'...', format(...)).
// sys.disk also takes zpool create, mdadm --create (-C) and badblocks -w
// (the write test; -n is non-destructive). In PowerShell the dot-source
// operator runs its command as & does (. Remove-Item x -Recurse), and a
// hashtable the script assigns is splatted into the parameters it passes
// ($p = @{Path='x'; Recurse=$true}; Remove-Item @p). A variable the line
// assigns a string literal, alone in its statement, is that string where
// it is used later, as one argument, as bash's are: $c = 'git'; & $c reset
// --hard is git.discard, $d = '.git'; Remove-Item "$d\index" is
// fs.protected; assigning it anything else forgets the value.
//
// A program harnish has no rule for fails closed (shell.unresolved) when
// its arguments hold a command that trips a rule, since whether it runs it
// cannot be known: a word naming rm, git, find, dd, a shell, a SQL client
// and the like followed by its arguments (flatpak-spawn --host rm -rf x,
// gosu app git reset --hard, ip netns exec ns rm -rf x), an option's value
// that is a command line (gcloud compute ssh vm --command='rm -rf /x'), or a
// string argument that starts with such a command (pssh -h hosts 'rm -rf
// /x', ansible all -m shell -a 'rm -rf /x') or holds one as a value: the
// VALUE of NAME=VALUE when NAME is no message's (commands='rm -rf /x'), a
// string of a JSON object or list ('{"commands":["rm -rf /x"]}'). aws ssm
// send-command and aws ecs execute-command, which run commands on
// instances and containers, are read so too. Text stays a mention: the
// arguments of programs that show, search, log or send text (echo,
// printf, grep, rg, man, logger, jq, gh, curl, ...), the value of an
// option for a message, title, body, summary, description, comment or note
// (jira issue create --summary "git reset --hard broke it"), prose that
// does not start with a command, and calls of the script's own aliases and
// functions, whose expansion is judged instead.
//
// Commands that programs run from their options, their configuration or
// the environment are judged as bash payloads where they are written: tar
// --to-command, -I/--use-compress-program, --rsh-command, -F/--info-script,
// --new-volume-script and --checkpoint-action=exec=CMD; zip -TT; rsync
// -e/--rsh and --rsync-path; split --filter; man -P; scp and sftp -S; ssh's
// -o ProxyCommand=, LocalCommand=, RemoteCommand= and KnownHostsCommand=
// (ssh -o ProxyCommand='rm -rf x' host); git difftool -x, filter-branch's
// filters, send-email's --to-cmd and the like, grep -O; git configuration
// whose value git runs, given by -c or written by git config (core.pager,
// core.editor, core.sshCommand, core.fsmonitor, sequence.editor,
// diff.external, pager.*, diff.*.textconv, filter.*.smudge, merge.*.driver,
// a credential helper starting with "!", ...: git config core.pager 'rm -rf
// x' arms every later git log); and variables that hold a command, assigned
// before a command, on their own, by export or declare, or through env:
// GIT_SSH_COMMAND, GIT_EDITOR, GIT_PAGER, EDITOR, VISUAL, PAGER, MANPAGER,
// LESSOPEN, PROMPT_COMMAND and any name ending in _COMMAND, _CMD, EDITOR,
// PAGER, ASKPASS or _RSH (GIT_SSH_COMMAND='rm -rf x' git fetch). A value
// wholly known only at run time (EDITOR="$MY_EDITOR") is left alone, and
// so are the values of other variables (MSG='rm -rf x' is text).
//
// srm and wipe with -r, safe-rm with rm's options, and SDelete with -s, are
// fs.recursive-delete as rm is. Windows' runners of code at a URL install
// it (pkg.install): mshta URL, msiexec /i URL (/package); a local .msi is
// judged by its name only. yarn NAME, pnpm NAME and bun NAME (and yarn
// run, bun run) that are not the tool's own subcommands run a package
// script or the installed binary NAME, judged as that binary (yarn rimraf
// dist). A shell or interpreter given /dev/stdin, /dev/fd/0 or
// /proc/self/fd/0 as its script reads its standard input (bash /dev/stdin
// <<< 'rm -rf x', source /dev/stdin). zsh's precommand modifiers noglob and
// nocorrect run the rest, and =rm is rm. vim, nvim, ex and ed write the
// files they edit when their commands (-c, +cmd, or standard input in ex
// mode and for ed) hold a write (:w, :wq, :x, :update, :saveas; ed's w):
// vim -c '%d|wq' go.sum is fs.protected. pip's extras after a local path
// (pip install -e '.[dev]') keep it local.
//
// SQL clients' own shell escapes run commands, judged as bash: psql's and
// mysql's \! CMD, mysql's system CMD, sqlite3's and duckdb's .shell and
// .system, sqlcmd's !! CMD (psql -c '\! rm -rf x'). TRUNCATE of a
// variable ($T, :t, {{t}}) is sql.destroy. Tools that rewrite files in
// place write their operands: dos2unix and kin (not with -n), yq -i,
// prettier --write, gofmt/goimports/gofumpt -w, shfmt -w, clang-format -i,
// autopep8 -i, black, isort, rustfmt (not with --check or --diff), eslint
// --fix; a protected path, or one inside it, is fs.protected, while a
// directory that only holds one is not (prettier --write . is allowed).
// Tools that copy an image onto an output write it (ddrescue IN OUT,
// bmaptool copy IMAGE DEST, dcfldd and dc3dd of=), so a device is sys.disk.
// setpriv is a wrapper; asyncio.create_subprocess_shell and _exec run a
// command; deno run npm:PKG runs the package's binary; cargo binstall
// installs. Code of languages harnish has no scanner for (elixir, groovy,
// scala, kotlin, clojure, racket, erl, swift, raku, ... by -e or standard
// input) fails closed coarsely: a string literal that is a command line,
// or literals naming a program and then its arguments, are judged as that
// command (so a printed mention blocks too), and a call named as a
// recursive delete in any language (rm_rf, rmtree, deleteDir,
// deleteRecursively, ...) is fs.recursive-delete. Tcl read from standard
// input: exec runs argv, file delete -force deletes trees.
//
// printf's output piped or substituted is what printf prints: its
// format's escapes (\xHH, \NNN, \uHHHH) decoded and its conversions
// filled, the format reused for the remaining arguments (printf 'rm -rf
// %s\n' a b | sh). git clean -i whose answers come from a pipe or a file
// deletes as told (git.discard). A function that deletes trees passed as a
// value (map(shutil.rmtree, dirs), dirs.forEach(fs.rmSync),
// executor.submit(shutil.rmtree, d)) is fs.recursive-delete; one that runs
// commands fails closed (shell.unresolved). zx (-e, --eval) is
// JavaScript, and its $`cmd` runs a shell line. sg_format --format and
// sg_sanitize's erases are sys.disk; ksh93, pdksh and lksh are shells.
//
// docker, podman and nerdctl run, and compose run, with --entrypoint run
// the entrypoint with the arguments after the image (docker run
// --entrypoint rm alpine -rf /data). cmake -E rm -r and remove_directory
// are fs.recursive-delete, and its rm, remove, rename and copy write their
// paths; its echo only prints. make -f /dev/stdin reads its makefile from
// standard input as make -f - does.
//
// Programs that prepare an environment and then run a command are
// unwrapped like sudo: cross-env (after its NAME=value words; cross-env-shell
// runs a shell line), dotenv (and python-dotenv's dotenv run), env-cmd,
// direnv exec DIR, op run, doppler run and infisical run (--command is a
// shell line), aws-vault exec PROFILE,
// sops exec-env and exec-file (a shell line), nix-shell --run/--command,
// nix develop and nix shell -c/--command, mise/rtx exec and x (after "--",
// or -c), asdf, rbenv, pyenv, nodenv, goenv, plenv and jenv exec, nvm exec
// [VERSION], fnm exec, volta run, devbox run, toolbox run, distrobox enter
// ... --, podman unshare, ddev exec and adb shell (a line for the other
// side's shell), kubectl debug ... --, ifne, lckdo, retry, run-one and its
// kin, start-stop-daemon's --exec or --startas with the arguments after
// "--", terminal emulators (xterm -e, gnome-terminal --, konsole -e,
// --command=...), nodemon --exec, chokidar -c, onchange ... --, each command
// line given to concurrently (npm:NAME and the like are package scripts),
// and git bisect run. Example: cross-env NODE_ENV=production rm -rf dist is
// fs.recursive-delete; doppler run -- npm start is allowed.
//
// sql.drop and sql.destroy also take the database tools that drop or
// empty a database by subcommand, as dropdb does: rails and rake db:drop,
// db:drop:all, db:reset, db:migrate:reset and db:purge (db:truncate_all is
// sql.destroy); php artisan migrate:fresh and db:wipe; doctrine:database:drop
// and doctrine:schema:drop with --force (bin/console, symfony console);
// manage.py and django-admin reset_db (flush is sql.destroy); prisma migrate
// reset and db push --force-reset; mix ecto.drop and ecto.reset; dotnet ef
// database drop; sequelize db:drop; typeorm schema:drop; supabase db reset;
// dbmate drop; golang-migrate's drop; flyway clean; liquibase drop-all;
// diesel and sqlx database drop and reset; atlas schema clean; bq rm (not -j,
// a job's record); gcloud
// sql databases delete and sql instances delete; heroku pg:reset;
// pg_dropcluster. Rolling every migration back drops the tables as
// db:migrate:reset does: rails db:schema:load (its create_table force:
// :cascade), php artisan migrate:reset and migrate:refresh, manage.py
// migrate APP zero, alembic downgrade base, knex migrate:rollback --all,
// sequelize db:migrate:undo:all, mix ecto.rollback --all, dotnet ef
// database update 0, goose reset and down-to 0. Their
// --help, and the other subcommands (db:migrate, migrate dev, ecto.create,
// a rollback of one step, alembic downgrade -1), are allowed. SQL run
// from interpreter code on a database connection is
// judged as a SQL client's: a string literal given to a method named
// execute, executescript, executemany, exec, query, statement, unprepared,
// raw, run and the like (python3 -c "sqlite3.connect('a.db').execute('DROP
// TABLE t')" is sql.drop; .execute('SELECT 1') and .execute(q) are
// allowed), and so is the code of framework consoles given by argument:
// rails runner CODE (Ruby), manage.py shell -c CODE (Python), artisan tinker
// --execute=CODE (PHP). Cloud CLIs' SQL options count too: aws athena
// --query-string, aws rds-data --sql. Interpreter code is read further:
// IPython's shell escapes (a line starting with !, !!, %system or %sx, in
// ipython -c or python -m IPython -c), R's c(...) vectors as lists (R -e
// 'system2("rm", c("-rf", "x"))') and R -e as Rscript -e, shelljs's
// rm('-rf', ...), Ruby's Pathname(p).rmtree, PHP's pcntl_exec.
//
// pkg.install also takes these package managers' installs, each under its
// own ecosystem name: pacman, yay and paru -S (and -U of a URL; -Ss, -Si,
// -Sc, -Syu without names and local package files are allowed), zypper
// install, snap install, flatpak install, nix-env -i and nix profile
// install, port install, pkg install, scoop install, composer require,
// luarocks install, cpanm and cpan, gh extension install, deno install and
// add with names, cabal and stack install with names, opam install, dart and
// flutter pub add, micromamba install, pixi add, rye add, pdm add, vcpkg
// install, nimble install, raco pkg install, krew and kubectl krew install,
// mix archive.install hex, swift package add-dependency, asdf plugin add,
// sdk install; and interpreter code that installs: R's install.packages,
// remotes:: and devtools::install_*, pak, BiocManager::install ("cran"),
// Julia's Pkg.add ("julia"). Example: composer require guzzlehttp/guzzle;
// composer install, cabal build and dart pub get are allowed.
//
// Options that name a file a program writes make it a write of that path
// (fs.protected, sys.files, sys.disk): find -fprint, -fprint0, -fls and
// -fprintf; git --output and --output-directory, and -o of git
// format-patch and git archive; base64 -o; wget -P and aria2c -d (with
// -o); openssl -out; gpg, iconv, pandoc and zstd -o; the -o of gcc, g++,
// cc, clang, rustc and go build; javac -d. scp's local destination is
// written. A copy's destination that is a directory (".", "..", a path
// ending in "/") is written into: it counts when what lands there is
// protected or the system's (cp -t .git/ x, cp tool /usr/local/bin/), not
// when the directory only holds a protected path, so cp /tmp/report.txt .
// and scp host:x . are allowed (cp's "." was a false block before).
//
// Editors, debuggers and build tools read further: vim's and nvim's
// commands split at "|", with silent, lua CODE (Lua), call delete(p, "rf")
// (fs.recursive-delete; delete(p) deletes p), call jobstart(...) and exe
// "!..."; lldb's -o/--one-line commands (platform shell and shell lines,
// script CODE as Python); Emacs Lisp from emacs --eval or the like, read as
// the languages without a scanner are, with (delete-directory "x" t) as a
// recursive delete and (delete-file p) as a delete; make --eval and -E
// makefile text, whose tab recipes and "target: ; recipe" lines are shell
// lines; npm pkg set scripts.NAME=CMD and npm set-script NAME CMD, whose
// CMD npm run will run; ripgrep's --pre PROGRAM, run on every file searched
// (rg --pre rm x deletes the tree). PowerShell: [scriptblock]::Create('...')
// is a script the line runs; -Command:"..." and -c:"..." attach the
// script; .Delete($true) on any object deletes recursively;
// [IO.File]::WriteAllBytes, WriteAllLines, AppendAllText and
// AppendAllLines write their path, a variable's head kept as a dynamic
// path's ([IO.File]::Delete("$PWD\.git\index") is fs.protected); a quoted path's blanks are its own
// ('C:\Program Files\App' is one path); wsl -e from PowerShell or cmd runs
// its command in Linux, as bash. cmd: runas's program line and schtasks
// /tr's command line are cmd lines; the command an if or a for runs is
// read without its @ and out of a parenthesised block, the else block's
// too (if exist x (rd /s /q x) else (...)); and a variable set earlier in
// the line (set X=VALUE, set "X=VALUE") is put in the text where %X% or
// !X! uses it, as cmd does, before the command is read (set X=rd /s /q &
// call %X% build is fs.recursive-delete). sys.disk also takes gpart destroy and
// delete, bcachefs format, lvreduce, nwipe, and scrub of a device.
//
// Copy and sync tools with a local destination write it, and those that
// delete what the source lacks delete recursively there, as rsync --delete
// does: rclone sync and bisync (fs.recursive-delete), purge, delete and
// rmdirs of a local path, copy, copyto, move and moveto onto one; aws s3
// sync with --delete (and s3 cp, mv, sync onto a local path); gsutil rsync
// -d (and cp, mv); unison with -force or -prefer; docker, podman and kubectl
// cp from a container or pod; git clone URL DIR; python -m json.tool IN OUT.
// Remote destinations (s3://, gs://, remote:path, a container's path) are
// not the machine's, so uploads stay allowed. Interpreter code that walks a
// tree and deletes what it finds (os.walk or Path.rglob with os.remove or
// unlink, File::Find with unlink, Dir.glob("**") with File.delete,
// readdirSync(..., {recursive}) with unlinkSync, PHP's recursive
// iterators with unlink) is fs.recursive-delete, as find -delete is; and
// JavaScript's rm and rmdir with recursive count under any receiver.
// pg_restore --clean into a database (-d) drops what it restores first
// (sql.drop; with -f it only writes a script); DROP KEYSPACE is sql.drop.
// deno run URL and an interpreter given a downloading process substitution
// (python3 <(curl ...)) run downloaded code (pkg.install). hub is git; gh
// repo sync --force rewrites the fork given (git.force-push) or resets the
// local branch (git.discard). pnpm's -w is --workspace-root, a flag.
//
// Remote and container runners run their command: machinectl shell
// MACHINE PROGRAM, systemd-nspawn ... PROGRAM, mosh HOST -- CMD, tsh ssh
// HOST CMD, fab -H HOST -- CMD; on Windows psexec \\HOST PROGRAM (judged
// as cmd's) and wmic process call create "CMD". A script a download earlier
// in the line wrote, run afterwards, is downloaded code (pkg.install): curl
// -o i.sh URL && sh i.sh, curl -O URL then ./NAME, wget URL; bash NAME, iwr
// URL -OutFile i.ps1; .\i.ps1, and an interpreter given it (what a
// download prints into a file by redirection counts: curl URL > i.sh; sh
// i.sh); in cmd a bare
// name runs it too (curl -o i.cmd URL && i.cmd, or i, or call i.cmd), as
// do pwsh -File, cmd /c and Start-Process; the downloads of certutil
// -urlcache, bitsadmin /transfer, Start-BitsTransfer and .NET's
// WebClient.DownloadFile(URL, FILE) count (Start-Process finds a bare name
// in the current location: iwr URL -OutFile a.exe; Start-Process a.exe),
// and a path
// known only at run time names the same file when written the same way
// (-OutFile "$env:TEMP\i.exe"; & "$env:TEMP\i.exe"); reading or
// extracting the download is allowed. In PowerShell a name with .exe (or
// .com, .bat, .cmd) is the program, not the alias of its stem: curl.exe
// and wget.exe download, sc.exe is not Set-Content. Archives are written where tar -c
// (-f, --file), zip and 7z a put them, and git config --file PATH writes
// PATH (git config -f .git/config ... is fs.protected). ORM calls that empty
// or drop a whole table in interpreter code and framework consoles count
// as the SQL they send: Model.delete_all and destroy_all, drop_table
// (Rails), Model.objects.all().delete() (Django), deleteMany() or
// deleteMany({}) (Prisma, MongoDB), knex's dropTable, Laravel's
// Schema::drop and Model::truncate() — not when scoped (where(...),
// filter(...)) nor inside a string. SQLAlchemy's metadata.drop_all and
// Flask-SQLAlchemy's db.drop_all, and Sequelize's sequelize.drop() and
// sync({force: true}), drop every table (sql.drop); a statement given to
// execute as SQLAlchemy's text('...') is that literal.
//
// A pathspec that is the working tree's top or the current directory at
// run time covers the whole tree for git.discard: "$(git rev-parse
// --show-toplevel)", "$(pwd)", "$PWD" (git checkout -- "$PWD"); a file
// under them is one path. So does the list of the tree's files git prints,
// handed by xargs to git checkout or git restore (git diff --name-only |
// xargs git checkout --, git ls-files -m, git status --porcelain, through
// grep, awk, cut, sed, sort, uniq or tr; -I too); a list from anywhere
// else is unknown paths. Downloaded text that xargs hands to a shell or an
// interpreter (curl URL | xargs sh -c) is running downloaded code
// (pkg.install).
//
// PowerShell's array arguments go on while their elements end in a comma
// (Start-Process cmd.exe -ArgumentList '/c', 'rd', '/s', '/q', 'x' runs rd
// /s). Windows' system directories named through their variables count
// for sys.files: $env:windir, $env:SystemRoot, $env:ProgramFiles,
// ${env:ProgramFiles(x86)}, $env:ProgramData and cmd's %WINDIR%,
// %SystemRoot%, %ProgramFiles%, %ProgramData%.
//
// shell.depth also covers commands judged inside one another without a
// payload between them (wrappers, xargs, find -exec, a git alias): more than
// 64 deep (sudo sudo sudo ... rm) fails closed, so a long line costs bounded
// work; an unknown program's arguments are tried as at most 8 commands.
//
// A unified diff that patch or git apply reads from a here-document, a
// here-string or echo is judged like the hook's patches: each file it
// changes is written (fs.protected for git apply <<EOF with +++
// b/.harnish/state.json), and its added lines are judged by the secret rules
// with the file's name (edit.secret.*). git apply --check, --stat,
// --numstat and --summary only read it.
//
// Text that only mentions danger is allowed: echo and printf arguments, grep
// patterns, commit messages, comments, here-documents given to cat, file and
// script names (bash rm-rf.sh). Variables from outside the command line are
// opaque words: rm "$F" is a single-file delete.
//
// A file the line itself writes with text it states (echo or printf
// redirected, a here-document to cat or tee, Set-Content, Out-File, cmd's
// echo; appends added on) and then runs is judged as that text: by a shell
// (bash s.sh, source s.sh, ./s.sh, pwsh -File c.ps1, .\c.ps1, c.cmd, call
// c.bat), an interpreter (python3 c.py) or a SQL client (psql -f x.sql,
// mysql < t.sql), make (a makefile it reads by default or by -f, not with
// -n or -C) or crontab (a table given by name): echo 'rm -rf build' > s.sh
// && bash s.sh is
// fs.recursive-delete, echo 'DROP TABLE t;' > x.sql && psql -f x.sql is
// sql.drop. Reading, linting, committing it, and sh -n, are allowed. SQL
// given to a client as a substitution that only prints text (psql -c
// "$(echo 'DROP TABLE t')") is judged as that text, as a shell's is.
//
// Interpreters' own code is scanned, outside its strings and comments:
// python -c, node -e/-p/--eval, deno eval, bun -e, perl -e/-E, ruby -e,
// php -r, lua -e, and code fed to their standard input by a
// here-document, a here-string or echo (python3 - <<EOF). A call that runs
// a shell has its string judged as a bash command line (os.system,
// os.popen, subprocess.* with a string, child_process.exec/execSync,
// Bun.$`...`, Perl's and Ruby's system/exec and backticks, qx{}, %x(),
// PHP's system, exec, shell_exec, passthru and backticks, Lua's
// os.execute); a call given argv as a list has the list judged as argv
// (subprocess.run(["rm", "-rf", "x"]), spawn("rm", ["-rf", "x"]),
// execFileSync, Deno.Command, Bun.spawn, system LIST, os.execvp, os.spawnlp).
// Module aliases are followed (import shutil as s; from shutil import
// rmtree as nuke). ipython, tsx, ts-node and julia -e are read too, and
// awk's program (its system() calls). A recursive-delete
// API counts as rm -r (fs.recursive-delete): shutil.rmtree,
// fs.rmSync/rmdirSync/rm with recursive: true, Deno.remove with
// recursive, rimraf, fs-extra's remove, FileUtils.rm_rf/rm_r/remove_dir,
// File::Path's rmtree and remove_tree, R's unlink(recursive=TRUE), Julia's
// rm(recursive=true); single-file deletes (os.remove,
// fs.unlinkSync, unlink, File.delete) are judged for protected paths. A
// shell call whose command is an expression fails closed
// (shell.unresolved), and so does code piped in from another program
// (cat x.py | python3); a downloaded script piped in is pkg.install, and
// so is code that downloads code and evaluates it in the language itself
// (exec(urlopen(URL).read()), eval of what https.get or fetch returned,
// new Function(body), Ruby's eval(URI.open(...).read), Perl's eval
// get(URL), PHP's eval(file_get_contents(URL))); evaluating a literal, or
// printing or parsing what was fetched, is allowed. A
// script file (python3 tool.py) is judged by its name only, and text that
// mentions a call (print("os.system('rm -rf /')")) is allowed.
//
// # Edit rules
//
// [EditGuard] judges [KindEdit] actions: one file's change in a hook, or the
// whole git diff of an attempt through [EditGuard.CheckEdit], which returns
// every decision as an [EditDecision] (path, line, and as Match the masked
// secret or the protected path).
// [ParseDiff] reads the unified diff, as git diff prints it. Only added lines
// are scanned for secrets, but the context lines before them are read for
// what they say of them: an edit that replaces a value alone is judged under
// the key on the line before it (password:, then the new value on its own
// line), a data value of a Kubernetes Secret under the kind and data:
// lines around it, and a private key's body under a BEGIN line the file
// already holds; a secret on a context line is not the change's. A diff
// that does not parse fails closed. The rules, by ID:
//
//   - edit.protected (hard): the diff creates, modifies, renames or deletes a
//     path under [Protected] (the state directory .harnish/, the
//     repository's .git/, the plugin manifest and the plan's
//     guardrails.protected). A rename is judged on both paths; the source of
//     a copy is only read. Example: deleting secrets/prod.env.gpg with
//     protected: [secrets/].
//   - edit.secret.<provider> (hard): a provider's token, found by the rule set
//     the gitleaks project maintains (its default configuration, well over a
//     hundred providers, imported as data with its allowlists, keywords and
//     entropy thresholds; see guardrail/internal/secretrules for the version),
//     whatever the file's syntax: an unquoted KEY=value line, YAML, JSON, code,
//     prose, a URL's query or user part, an .npmrc _authToken line. The rule ID
//     is edit.secret. and gitleaks' rule ID (edit.secret.stripe-access-token,
//     edit.secret.npm-access-token, edit.secret.openai-api-key, ...), but for
//     the families harnish named before, which keep their IDs: edit.secret.aws
//     (AKIA..., ASIA...), edit.secret.github (ghp_, gho_, ghs_, ghu_, ghr_,
//     github_pat_), edit.secret.gitlab (glpat-, glrt-, ...), edit.secret.slack
//     (xoxb-, xoxp-, ..., hooks.slack.com webhooks), edit.secret.gcp (AIza...),
//     edit.secret.azure. gitleaks' generic-api-key, private-key, jwt and
//     kubernetes-secret-yaml rules are left out: the rules below do their work
//     with harnish's allowances, or they need more than a line; its pkcs12-file
//     rule is edit.secret.pkcs12-file below. A token ends at & # @ ? : ( ) < > ,
//     ` and \ too (a URL, markup, curl -u TOKEN:, markdown code, a JSON-escaped
//     string). harnish adds the providers whose token its prefix alone
//     identifies and gitleaks misses or ties to a keyword near it (Docker Hub
//     dckr_pat_, Doppler dp.st./dp.ct./..., SonarQube squ_/sqp_/sqa_, Mailgun
//     key-, Notion ntn_, Supabase sbp_ and sb_secret_, Replicate r8_, xAI xai-,
//     Groq gsk_, CircleCI CCIPAT_, Netlify nfp_, Render rnd_, Buildkite bkua_,
//     Google OAuth GOCSPX-, Stripe whsec_, New Relic ...NRAL, Telegram bot
//     tokens, Discord webhooks, FCM server keys, Azure SAS sig=, Twitter bearer
//     tokens, Mapbox sk.eyJ, Amazon Bedrock ABSK..., Facebook EAA..., Airtable
//     pat....., Square sq0csp-, LangSmith lsv2_, Neon napi_, New Relic NRII-,
//     Bitbucket ATBB, Pinecone pcsk_, Google OAuth ya29. and 1//0 tokens,
//     Mattermost and Teams (outlook.office.com) webhooks, CloudFront signed
//     URLs with their Key-Pair-Id, Power Automate sig=), under the same IDs. A token is also found when a line joins it from literals
//     ("ghp_ab" + "cd...", literals side by side over two lines, a join of a
//     list) and when a value that ends a line is base64 of text holding one (a
//     Kubernetes Secret's data, a kubeconfig's client-key-data holding a PEM
//     key). A provider's match that is a name called in code (letters and _
//     before a '(', GLC_CreateTexture(...)) is allowed, and so is a
//     prefix followed by a run of one character (glc_1111...).
//     Allowed, as for every secret rule: test-mode keys whose prefix says
//     so (Stripe's sk_test_ and rk_test_, Shippo's shippo_test_, Duffel's
//     duffel_test_, Flutterwave's FLWSECK_TEST- and FLWPUBK_TEST-, any
//     _test or sandbox in a token's prefix), which reach no real account
//     or money, placeholders and labelled examples (ghp_xxxx...,
//     AKIAIOSFODNN7EXAMPLE, sk_test_..., Slack's documented
//     T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX), and files gitleaks'
//     allowlist exempts (lock files, go.sum, vendored trees, images). A value on
//     the line after its name is read as assigned to it: an XML element whose
//     text is on its own line (<apiToken>, the value, </apiToken>), a YAML block
//     scalar (token: | or >-, the value on the next line), a value continued
//     after a backslash (KEY = \), a JSON or YAML key whose value is indented on
//     the next line. KEY= alone is an empty value, and the next line is not read
//     as its value.
//   - edit.secret.kubernetes-secret-yaml (hard): a value of a Kubernetes
//     Secret's data in a YAML file (.yaml, .yml), base64 that decodes to
//     one line of text, under whatever name (extra, key) and indentation
//     (tabs too), the document's kind: Secret before or after its data.
//     Allowed: other kinds' data (a ConfigMap's), base64 of placeholders
//     or of words, another document's values (after ---).
//   - edit.secret.pkcs12-file (hard): a PKCS#12 key store (.p12, .pfx, in
//     any case) added, copied, changed, or written by a tool known by its
//     path alone: it holds a private key, and a binary file has no line to
//     scan. Allowed: deleting one, renaming one unchanged.
//   - edit.secret.aws (hard), also: a 40-character secret access key
//     assigned to aws_secret_access_key. Allowed: AWS's documented
//     wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.
//   - edit.secret.gcp (hard), also: the "private_key" of a GCP
//     service-account JSON file, with key material.
//   - edit.secret.azure (hard), also: AccountKey= or SharedAccessKey= in an
//     Azure connection string. Allowed: the storage emulator's public key.
//   - edit.secret.private-key (hard): -----BEGIN ... PRIVATE KEY----- with
//     key material on the same line or the next; and a key outside PEM: a
//     JWK's private "d", .NET's <RSAKeyValue> with its <InverseQ>, a hardhat
//     network's accounts: ["0x<64 hex>"], a Solana keypair file (a JSON
//     array of 64 bytes). Allowed: code that looks for the marker, elided
//     bodies ("MIIE..."), public JWKs (no "d").
//   - edit.secret.jwt (hard): a three-part JSON Web Token whose header
//     decodes to JSON with "alg". A header alone is allowed.
//   - edit.secret.url-credentials (hard): a password in a URL,
//     postgres://app:S3cr3t@db/app. Allowed: postgres://user:password@...,
//     ${VAR} passwords and local defaults (postgres, root, admin, guest).
//   - edit.secret.basic-auth (hard): base64 of user:password hard-coded as
//     an HTTP Basic header ("Authorization: Basic ..."), an .npmrc _auth=
//     line or a Docker config.json "auth" field. Allowed: placeholders such
//     as user:password.
//   - edit.secret.assignment (hard): a literal value of four or more characters
//     assigned (=, :=, :, =>, and .= ?= += ||= ??= ::= :::=) to a name whose
//     last word is password, passwd, pass, pwd, passphrase, secret, token,
//     credential(s), creds, requirepass, masterauth (maybe followed by a number,
//     token_2, or by string, str, value or val, secretString), or whose last two
//     are api key, access key, secret key, private key, auth key, signing key,
//     encryption key, master key, or last three secret key base (Rails); a name
//     in capitals glued to password, passwd, secret or token (PGPASSWORD);
//     framework secret keys so named (Django's SECRET_KEY, Flask's
//     app.config['SECRET_KEY']): DB_PASSWORD=..., apiKey = "...",
//     "client_secret": "...", --password=..., --requirepass VALUE. The rule also
//     takes Password= or Pwd= in a connection string (Server=db;Password=...;,
//     even inside a string in code) and a password on a command line (sshpass -p
//     ..., mysql -pSECRET), and passwords in a file's own syntax: .netrc's
//     "login USER password PW", a configuration line of the word and the value
//     alone (requirepass PW), an XML element (<password>PW</password>), SQL's
//     PASSWORD 'PW' and IDENTIFIED BY 'PW', a .pgpass line, a Go MySQL DSN
//     (user:PW@tcp(...)), curl -u or --user USER:PW (one shell word, quoted in
//     parts or not, each part maybe in {braces} as API documentation writes it,
//     on the curl line or a line the command is continued onto with a
//     backslash), a registry login's -p PW, PuTTY's Private-Lines, and a .key,
//     .secret or .token file whose line is one generated token (Rails'
//     master.key). It takes credentials in the shapes code and configuration
//     give them too: a literal token after Bearer (or token in an Authorization
//     header), a credential's name and value as two arguments
//     (req.Header.Set("X-Api-Key", "..."), os.Setenv("GITHUB_TOKEN", "...")), as
//     name and value fields on one line or two (a container's env: - name:
//     DB_PASSWORD / value: ...), Dockerfile's ENV NAME value, fish's set -gx and
//     csh's setenv, and string prefixes (Python's b'...', C#'s @"..."). A name
//     whose last word is only key or pat (key, 'key' =>, GH_PAT) counts when its
//     value is generated: 20 or more characters mixing letters and digits, not
//     hex, a UUID or a path (Laravel's base64:... too). In source code (.go,
//     .py, .ts, ...) only quoted values count; in configuration and scripts
//     unquoted ones too, and a typed declaration (var token string = "...") when
//     its value is quoted. Allowed: empty values, ${VAR}, $VAR, %VAR%, {{
//     templates }}, <placeholders>, environment lookups (os.Getenv, process.env,
//     os.environ), references (var.x, vault:...), variable names, booleans and
//     numbers, values with spaces (labels), names such as page_token or
//     password_hash, public_key or cache_key, comparisons (==), ${NAME:?message}
//     and arn:...:secret:... segments, file paths (/var/secrets/key.json),
//     a credential's name as the value (secretKey: api-key, the name of a
//     key elsewhere), public and CSRF tokens (publicToken, csrf-token), a
//     line of password and a word ending a sentence (Password
//     requirements.),
//     publishable keys (pk_live_, Mapbox pk.eyJ), base64 that decodes to a
//     placeholder, encrypted blobs (a SealedSecret's, base64 of 128 or more
//     binary bytes that are not a DER key), a value that a gitleaks rule found
//     by a provider's name when the name ends in id, name, url, user, ...
//     (HEROKU_APP_ID), and values saying they are not real: containing example,
//     dummy, fake, test, sample, placeholder, changeme, your, redacted, ***,
//     ####, xxx in a short value or xxxxxx in a long one (a random token may
//     hold xxxx), or a run of one character. Whole files of configuration hold
//     credentials in more shapes, which the rule takes too
//     (guardrail/secrets_files.go): the password a command line gives ldapsearch
//     -w, redis-cli -a, sqlcmd -P, mongosh -p, codecov -t, keytool -storepass,
//     wget --password, az login -p, and htpasswd -b's third argument; a libpq
//     connection string's password= among its other keys (host=... password=...
//     dbname=...); a literal a credential's setter takes (WithToken("..."),
//     setApiKey("...")) or a conversion assigned to a credential's name
//     (signingKey = []byte("...")), but not a lookup's (getToken("github")); a
//     literal after a user's email address or LDAP DN among a call's arguments,
//     and the password a call that authenticates takes after the user (new
//     NetworkCredential("u", "..."), SetBasicAuth, HTTPBasicAuth, login("u",
//     "..."), Python's auth=("u", "...")); the literal a credential's
//     environment variable falls back to (process.env.DB_PASSWORD || '...',
//     env::var("X").unwrap_or("..."), getenv("X") or "...") or an
//     interpolation's default (${DB_PASSWORD:-...}, Spring's
//     ${DB_PASSWORD:...}); a literal in a credential's column of an SQL INSERT's
//     rows; a Terraform variable named for a credential given a literal default;
//     Postman's {"key": "password", "value": ...} and a HAR file's session
//     cookie; SQL's unquoted IDENTIFIED BY (Oracle); a Postfix relay's
//     [host]:port user:PW; a wallet's mnemonic (12 to 24 lower-case words under
//     mnemonic or *_phrase). Names may glue an acronym to a credential word
//     (SSLPassword, JWTSecret), and also end in pw, bindpw, rootpw or authtok
//     (ldap_bind_pw, sssd's ldap_default_authtok, nslcd's bindpw line), app,
//     integration, service, server, write, SDK or admin key, npmAuthIdent, or
//     glue a credential word to access, refresh, identity, auth, ... in lower
//     case (identitytoken). A value may start with ! (a YAML tag is only ! and
//     letters: !vault, !Ref) or ~ (NAME=~x assigns; =~ with a blank is a match),
//     hold < > among its symbols (only a <...> span of words is a placeholder)
//     or a dot in a random-case part (not a reference: Ab3x.9Qz), be followed by
//     a call converting it (.freeze, .toCharArray(), .to_string()), and be
//     base64 with + / = under a name that ends in key. Allowed besides:
//     existing, update, reset, change and forgot before a credential word
//     (existingSecret: db-creds, update_password: on_create), read and write
//     (id-token: write), password verifiers (SCRAM-SHA-256$..., md5 and 32 hex,
//     MySQL's *<40 hex>, SQL Server's 0x0200..., pbkdf2_, {SSHA}), name:/path
//     references (LoadCredential=db:/etc/creds/db), PostHog's public phc_ key,
//     OpenPGP-encrypted blobs (Renovate's wcFMA...), MinIO's default minioadmin,
//     the commonest passwords (pass1234, hunter2, ...), and hardhat's well-known
//     test mnemonic. An unsigned JWT (alg none) is still flagged, as gitleaks'
//     own tests want. Also found: a configuration line inside a multi-line string of source
//     code (password = OklUD^Gfi* in a Python triple-quoted or Go raw string:
//     a line that is only a name, '=' or ':' and one random-case word that
//     cannot be an expression, as a trailing operator or a part like 2ac
//     says); a credential named in prose with its value in a code span
//     (password `...`, the token is `...`; not after the verb pass, not a
//     dotted name); user:password under an auth name (cloud.auth,
//     http_auth; not oauth); pgbouncer's userlist.txt "user" "password"
//     (md5 and SCRAM verifiers allowed); a literal hashed where it is
//     assigned (Hash::make('...'), bcrypt, make_password,
//     generate_password_hash; 'password' => counts as assigned); Rust's
//     const X: &str = "..."; C's #define API_KEY "..."; and a flag and its
//     value as a list's items (["--api-key", "..."]). Allowed besides:
//     LiteLLM's os.environ/NAME and a SealedSecret's ciphertext (AgA...AgD,
//     100 characters and more).
//     Also found (guardrail/secrets_more.go): a C# auto-property's
//     initializer (string DbPassword { get; set; } = "..."); RSpec's
//     let(:api_token) { '...' }; a test's assertion that a credential equals
//     a literal (assert cfg.api_key == "...", expect(cfg.apiKey).toBe('...'),
//     assertEquals("...", cfg.getApiKey()); what the literal is compared
//     with must end with the credential's name), but not != or .not; a
//     credential in a URL's query (&password= with any literal; ?api_key=,
//     &access_token=, &client_secret= with a generated value; sig=, auth=,
//     key= too when the query is a URL's); the password of an Oracle JDBC URL
//     (jdbc:oracle:thin:user/PW@//host, as edit.secret.url-credentials);
//     .NET's <add key="JwtSecret" value="..."/>, Android's <string
//     name="smtp_pass">...</string>, a plist's <key>ApiSecret</key> and the
//     <string> after it; an element named for a password ending in pwd or
//     pass (<pwd>, <smtpPass>); JSON escaped in a string ({\"rootPwd\":\"...\"});
//     an Elixir module attribute (@api_token "..."); R's api_key <- "...";
//     a builder's method a line of a chain starts with (.rootPwd("..."));
//     and names whose last word is hmac or bearer, given a generated value
//     (not SIGNATURE_HMAC = "HMAC-SHA1" nor _BEARER = 'Bearer').
//     PowerShell files are source code: only quoted values count
//     ($password = Read-Host ... is a call). Allowed besides: template substitutions #{Octopus.Var},
//     %(name)s, __TOKEN__ (a value starting with % is a placeholder only as
//     %VAR%), ${NAME:?message}, a signed URL's X-Goog-Credential scope,
//     and Oracle's scott/tiger.
//     Also found (guardrail/secrets_context.go): a function or getter named
//     for a credential that returns a literal (func getApiKey() string {
//     return "..." }, def api_key(): return '...', fun getToken(): String =
//     "...", GetSecret() => "...", const getToken = () => '...', a Ruby def
//     or Rust fn whose body is the literal; not a call's result, nor a
//     name like tokenType or getTokenUrl); a credential's literal on the
//     line after its name (std::string ApiKey{ then "..."}; a Java
//     constant's = "..." on the next line; process.env.X || or ?? then
//     "..."; X = ( then "..."; name = """ then value"""); an Azure storage
//     account key (86 base64 characters and ==) on or under a line naming a
//     key, but not a digest's (sha512- integrity, hash, signature, an RSA
//     modulus) nor the Azurite emulator's; a docker auths' auth escaped in a
//     string, once or more, that decodes to user:password; a log line or a
//     sentence (using key = ..., your API key is ..., the password is ...)
//     with a value of letters and digits; a table's row apiKey | value;
//     environment names with the credential word glued on (ACRPWD, DBPASS,
//     DEFAULT_CLIENTSECRET; not BYPASS nor COMPASS), Duo's skey, and
//     Azure's account and function keys (AccountKey, azureFunctionKey).
//     Allowed besides: a Kubernetes Secret's data under a key that names a
//     name, host, URL, endpoint, region or namespace
//     (azurestorageaccountname).
//     Allowed because real code holds them under a credential's name
//     (guardrail/secrets_realcode.go, found scanning a Go module cache,
//     Go's sources and npm packages): a value that is the name itself or
//     its first or last words (CorsErrorInvalidAllowCredentials =
//     "InvalidAllowCredentials", s3DisableExpressSessionAuthKey =
//     "s3_disable_express_session_auth", credential = "Credential=") or
//     words at least half of which are the name's (headerAmzSessionToken =
//     "x-amz-s3session-token"), but not one word of it (ELASTIC_PASSWORD=
//     elastic counts); words ending in a credential word (invalid_token,
//     client-valid-token-1) or a credential word and a holder word
//     (tokenValue); versions (^1.0.0, ~2.3, 7.3.1-beta.2); ANSI escapes
//     and characters written as escapes; URLs without user information
//     nor a part of their path mixing letters and digits (a webhook's);
//     a directory at the root (/etc); the option after a
//     flag (--label); a string joined with a variable ("PWD="+dir);
//     PowerShell's New-Object, Read-Host and the like; type words (value,
//     str, text); a word a sentence goes on after, after a colon (second
//     pass: scan the bytes); "$PWD:/src", a shell's expansion; a URL
//     query's value ends at & or #; names of an error (ERR_INVALID_PASSWORD,
//     WrongPasswordMsg); a bare word after the credential word in source
//     code (a field and its type: password SecretReader), where Pascal, D,
//     Haskell, VB, OCaml, Nim, Crystal, Solidity and Ada count as source
//     code too; and in a user's argument list, an item of the same
//     kind:value shape (IAM's "group:ops@...", "domain:...") or a part of
//     the address. Of provider tokens: a name in camel case after a short
//     prefix (s.ReadUint16LengthPrefixed is no Vault token), and the
//     RFCs' example of Basic authentication (Aladdin, open sesame).
//     Also found (guardrail/secrets_shapes.go), by their shape alone and
//     wherever they stand (a header, a URL's query, a log line, a fixture,
//     a CSV row, a comment, a bare line): OpenRouter's sk-or-v1- and 64 hex
//     digits; sk- and exactly 32 hex digits (DeepSeek's form); Anthropic's
//     OAuth tokens (sk-ant-oat01-, sk-ant-ort01-); Atlassian's ATATT3xFfGF0
//     and ATCTT3xFfGN0 tokens of any length from 150; Bitbucket Data
//     Center's BBDC- and 44 characters; AWS AppSync's da2- and 26; New
//     Relic's NRAK- and 27; Tavily's tvly-; Contentful's CFPAT-; Notion's
//     secret_ and 43 letters and digits; Figma's figd_; Mailgun's key- and
//     32 letters and digits; LaunchDarkly's sdk- and api- and a UUID;
//     Langfuse's sk-lf- and a UUID (not pk-lf-); Firecrawl's fc- and 32
//     hex digits; sk_ and 48 hex digits (ElevenLabs' form); Rootly's
//     rootly_ and BestTime's pri_; OpenAI's sk-proj-, sk-svcacct-,
//     sk-admin- and sk-None- keys of any length that hold T3BlbkFJ; sk-
//     and 48 letters and digits (Stability's, Moonshot's); Resend's re_;
//     Axiom's xaat- and xapt- and a UUID; Honeycomb's hcaik_ and hcaic_;
//     NuGet's oy2 and 43; Brevo's SMTP keys (xsmtpsib-); Okta's SSWS 00...;
//     Plaid's access-production- and a UUID (not access-sandbox-);
//     Braintree's access_token$production$; Flutterwave's live FLWSECK-
//     (not FLWPUBK-); ClickUp's pk_, its user's number and 32 capitals;
//     Tencent Cloud's SecretId (AKID and 32, as AWS's and Alibaba's key
//     IDs are read); a Mailchimp key (32 hex digits, -us and one or two
//     digits);
//     Facebook's EAA tokens after '=' in a query; most needing a body of
//     letters and digits both where a word could stand, and not inside a
//     longer word or base64. A Discord bot token (the base64 of a bot's ID
//     of 17 to 20 digits, six characters, then 27 to 38); a Twilio account
//     SID literal followed, as the next argument, by a literal of 32
//     letters and digits (its auth token); a generated literal of 32 or
//     more characters given first to a constructor named Client or
//     ClientV2 (cohere.Client("..."), MistralClient("..."),
//     Client::new("...")), not hex, a UUID, a URL or a host; a URL's
//     password after a user that is an interpolation (#{ENV["USER"]},
//     ${USER}, {user}); Datadog's application key under its name
//     (DD-APPLICATION-KEY); the value of aws configure set
//     aws_secret_access_key (40 characters) or aws_session_token, and the
//     key given to wandb login or wandb.login(key=) (40 hex digits), as a
//     word after no = or :; Azure's subscription keys (32 letters and
//     digits) after Ocp-Apim-Subscription-Key or subscription-key= and given
//     to SpeechConfig.FromSubscription; (Azure) OpenAI's key under its name
//     (AZURE_OPENAI_KEY), whatever its value's shape. Allowed besides: Supabase's anon key (a JWT
//     whose role is anon) and Datadog's client token (pub and 32 hex
//     digits), which their providers publish to browsers.
//     Also found (guardrail/secrets_formats.go), by the grammar of the file a
//     credential lives in: a configuration directive that is a credential's
//     name, blanks and one value (mbsync's Pass PW, keepalived's auth_pass,
//     fluent-bit's HTTP_Passwd, Apache's AuthLDAPBindPassword "PW"; in
//     configuration, not source code); BIND's secret "KEY"; and yarn 1's
//     "//host/:_authToken" "TOKEN"; names with pass, passwd, password or pwd
//     glued on (remotepass, $wgDBpassword, GPP's cpassword; not bypass nor
//     compass); a netrc entry's password in any order (machine H password PW
//     login U, default), fetchmail's password "PW"; haproxy's insecure-password
//     and stats auth U:PW; Redis's AUTH [user] PW, an ACL's >PW, Sentinel's
//     auth-pass; Cisco's password 0 PW and a community string (not public or
//     private), SNMPv3's createUser pass phrases; kickstart's rootpw
//     --plaintext and user --password= (not --iscrypted), preseed's
//     passwd/...password; proftpd's SQLConnectInfo; ipsec.secrets' PSK, EAP,
//     XAUTH and NTLM secrets (not RSA key files); dovecot's {PLAIN} and
//     {CLEARTEXT} passwords; NTP's and chrony's keys files; a header named for
//     a credential set by nginx's proxy_set_header, Caddy's header_up or
//     Apache's RequestHeader; Authorization: Basic U:PW written unencoded;
//     Oracle's clients' U/PW@SERVICE (sqlplus, expdp, impdp, sqlldr); httpie's
//     -a U:PW; a literal echoed into a file named for a credential (echo PW >
//     /etc/mongo/keyfile) or printed by a password command (--password-command
//     "echo PW"); argv lists' "-p", "PW" after login, "--password", "PW" and
//     mysql's "-pPW"; Erlang terms ({default_pass, <<"PW">>}); an XML property
//     named for a credential (<property name="...password">PW<, value="PW");
//     Maven's <passphrase>; FileZilla's base64 <Pass>; a Windows answer file's
//     <Value> with <PlainText>true; Postman's API key auth; kaggle.json's key;
//     Consul's and Nomad's gossip encrypt key (16, 24 or 32 bytes of base64)
//     and ACL management tokens; a Terraform state's "result"
//     (random_password); PagerDuty's routing_key; kubeadm's bootstrap token
//     ID.SECRET (not abcdef.0123456789abcdef); Wi-Fi psk; Bundler's
//     BUNDLE_HOST: "U:PW"; .curlrc's user = "U:PW"; an Anaconda channel's
//     /t/TOKEN/; INI's name = """PW"""; an AWS session token; OpenVPN's static
//     key and cloudflared's tunnel token blocks; the secret field of pppd's
//     chap-secrets and pap-secrets and of davfs2's secrets; a JAAS file's
//     user_NAME="PW"; an .erlang.cookie. A value starting with @ is a password
//     unless it is a name, called or closed by @ (@Value(...), @PASSWORD@,
//     @@TOKEN@@). Allowed besides: hashes that name their scheme
//     (sha1:SALT:HASH and argon2: of Jupyter, hash: of wpa_supplicant),
//     Symfony's %env(NAME)%, and the documented defaults changeit (the JDK's
//     cacerts) and Harbor12345.
//     Also found (guardrail/secrets_positional.go): a literal an API takes by its
//     position rather than under a name. The secret of jwt.sign, jwt.encode,
//     jwt.verify and jwt.decode (their second argument; PHP's JWT::encode too),
//     Go's token.SignedString and java-jwt's Algorithm.HMAC256; the key of
//     Fernet(b"..."), EncodingKey::from_secret, SymmetricSecurityKey,
//     securecookie.New, hmac.new, createHmac, SecretKeySpec, aes.NewCipher,
//     AES.new, createCipheriv and reqwest's bearer_auth, a conversion around it
//     or not ([]byte("..."), Encoding.UTF8.GetBytes("...")). The password after
//     a literal user in a call that logs in or connects (c.Login(ctx, "admin",
//     "..."), conn.connect(url, "app", "..."), new PDO(dsn, "u", "..."),
//     DriverManager.getConnection(url, "u", "..."), new Sequelize(db, "u",
//     "..."), ftplib's FTP(host, "u", "..."), OkHttp's Credentials.basic,
//     basic_auth("u", Some("...")), Ruby's req.basic_auth 'u', '...', and
//     NetworkCredential("u@x.io", "...") with an @ in the password). A header's
//     value given before its name (Swift's addValue("...", forHTTPHeaderField:
//     "X-API-Key")). A generated literal (or a UUID, LaunchDarkly's sdk-UUID)
//     alone as a client constructor's first argument (cohere.Client("..."),
//     postmark.ServerClient("..."), ld.MakeClient("sdk-...", t)) or a bot's
//     (bot.run("..."), client.login("...")), but not a Twilio account SID;
//     Twilio's auth token (32 hex) as the argument after the SID; Algolia's
//     admin key, algoliasearch's second argument of 32 hex, unless the line
//     says search-only (or assigns the client to searchClient). Key material decoded where it is assigned to a name
//     ending in key or a credential's (key = Buffer.from('<hex>', 'hex'), key,
//     _ := hex.DecodeString("..."), aes.Key = Convert.FromBase64String("..."),
//     jwtKey = []byte("...")) when it is generated. An environment lookup's
//     literal default for a credential's variable (os.environ.get("API_TOKEN",
//     "..."), os.getenv, a getEnv helper, ENV.fetch, Laravel's env('X_SECRET',
//     '...'), getOrDefault, python-decouple's config("SECRET_KEY",
//     default="..."), viper's SetDefault("jwt.secret", "...")). A credential
//     header inside a string ("X-Api-Key: ..." given to curl_slist_append),
//     Okta's Authorization: SSWS token, an OmniAuth provider's secret
//     (config.omniauth :github, 'id', '...'), Terraform's plaintext_value
//     (github_actions_secret), a NuGet.Config apikey (<add key="https://..."
//     value="..."/>), the value attribute of an XML element whose name or key
//     attribute names a credential (Spring's <property name="password"
//     value="..."/>, <entry key="apiKey" value="..."/>), the literal
//     PowerShell's ConvertTo-SecureString "..." -AsPlainText makes a secure
//     string of, a session cookie's value in a Cookie header (sessionid=...,
//     connect.sid=...), a password among a comma-separated configuration
//     string's options (StackExchange.Redis'
//     "host:6380,password=...,ssl=True"), and NEO4J_AUTH=user/password. A
//     generated literal assigned to a name whose last word is salt or pepper
//     (HASH_SALT=..., Hashids(salt="...")), which guards an application's
//     hashes as a key does its ciphertexts; not a count or a length
//     (SALT_ROUNDS=10) nor a salt made at run time. Not found: a lookup's
//     result (jwt.sign(p, process.env.JWT_SECRET)), a literal in an expression
//     ("..." + suffix), a key generated at run time, a word
//     (db.connect("orders", "replica-set")), a digest decoded into a name that
//     is no key's, hex whose bytes count up (0102030405...) or spell a
//     sentence, a URL or host given to a client, a name numbered once given to
//     a client (GraphQLClient("MyAppClient2024")), a lookup's empty or
//     placeholder default. Placeholders besides: "my" before the credential's
//     name (connectionstrings.com's Password=myPassword), and the keys local
//     OpenAI-compatible servers take and ignore (api_key="ollama", "lm-studio",
//     "not-needed", "sk-no-key-required").
//     Also found (guardrail/secrets_frameworks.go): a generated key in a URL's
//     query under appid (OpenWeather's ?q=London&appid=<32 hex>), 32 or more
//     characters of hex or letters and digits, in a URL (after :// or in a
//     path); not an app's number or short public ID (appid=730,
//     appid=wx...), a template, a placeholder or a value that goes on. The
//     secret a session store or cookie signer takes as its first argument
//     (gorilla's sessions.NewCookieStore([]byte("...")) and
//     NewFilesystemStore's second, gin's cookie.NewStore, Express's
//     cookieParser('...')); a literal after a credential's symbol in Ruby's
//     set :session_secret, '...' (Sinatra, Capistrano's set :db_password);
//     and Gradle's buildConfigField("String", "API_KEY", "\"...\"") and
//     resValue("string", "maps_api_key", "\"...\""), a Java literal inside
//     a string. Not found: a lookup (cookieParser(process.env.X), set
//     :session_secret, ENV.fetch(...)), a value made at run time
//     (SecureRandom.hex(64)), a ${...} template in Gradle, a name that is
//     no credential's (BASE_URL, app_name, set :deploy_to). Allowed besides:
//     an @ before lower-case words joined by hyphens, Vercel's reference to a
//     secret it stores ("API_SECRET": "@api-secret"), and GraphQL's built-in
//     scalars made non-null (token: String!, apiKeyId: ID!), a field's type.
//     Allowed besides: a <...> placeholder after a name and = or :
//     (SESSION_SECRET=<session-secret>) is no XML element, so the line after
//     it is not read as its value (an element opens a line or follows
//     another's tag); and values saying they are wrong, as a test's rejected
//     login gives them (password: "wrong", "incorrect", "invalid",
//     "wrong-password", "badpassword").
//     Also found (guardrail/secrets_forms.go): a password under a name in
//     another language, whose last word is passwort, kennwort, contrasena,
//     senha, parol, wachtwoord or mot_de_passe (SMTP_PASSWORT, db_senha,
//     MOT_DE_PASSE), or that ends in 密码, 密碼, パスワード, пароль or
//     contraseña before '=', ':' or '：' (数据库密码: ..., "Пароль": "...");
//     a credential's name and a literal as two elements, an Erlang or
//     Elixir tuple ({db_password, "..."}, {:api_key, "..."}), an EDN map's
//     keyword (:password "...", :stripe/secret-key "..."), a Lisp's
//     definition ((def ^:private api-key "..."), setq, (define *token*
//     "...")) and Tcl's and fish's set api_key "..."; a Perl hash's bare key
//     ($ENV{PAGERDUTY_TOKEN} = '...'); the literal a decoding call takes
//     under a credential's or a key's name (key: Base.decode64!("..."),
//     Base64.decode64, Convert.FromBase64String, unhexlify, hex2bin); a
//     value split over two lines, its literals side by side or joined by a
//     trailing + ("PASSWORD": ("abc"⏎"def")), judged joined; and a URL's
//     password in a literal of its own after one ending with the URL's
//     user and ':' ("postgresql://etl:"⏎"<password>"⏎"@host/db"), not a
//     port, a path or a host. Not found: a lookup or a template in those
//     places ({db_password, {env, "X"}}, #env X, (System/getenv "X")), a
//     call's arguments ((println password "...")), a key's name with a
//     value that is not generated ({:key "user-id"}). Allowed besides, as
//     text rather than a credential: in a file of translated text (under
//     locales/, i18n/, l10n/, lang/, translations/, unless it is source
//     code other than PHP, JS or TS; named for a language,
//     de.json, zh-CN.yml, messages_fr.properties; .po, .arb, .strings) a
//     value of letters and punctuation without digits ("password":
//     "Passwort", "Contraseña"); anywhere, a value of letters of another
//     script than Latin's alone (Пароль, パスワード, 确认密码), the word
//     password in another language, as translations inline in code give it
//     ({ de: { password: "Passwort" } }, Contraseña, Senha, Hasło), a prompt of
//     letters ending in ':' (set /p DB_PASSWORD=Password:), and a masked
//     echo, one character repeated (••••••••) or one \uXXXX escape repeated
//     ("Token: \u00b7\u00b7\u00b7\u00b7\n" in a notebook's output).
//     Also found (guardrail/secrets_outside.go), kinds the peer secret scanners'
//     own examples hold: a name in lower case that glues any word to secret,
//     token, apikey, secretkey, accesskey or privatekey (jwtsecret,
//     cookiesecret, slacktoken, googleapikey, storage.s3.secretkey; secretkey
//     and privatekey alone), but not a word that makes it something else
//     (nexttoken, lasttoken, cancellationtoken, pushtoken, csrftoken, topsecret,
//     showsecret, hashedtoken); providers' tokens by their prefix, under
//     edit.secret.<provider> (Dependency-Track odt_, Adafruit IO aio_, Twitch
//     stream keys live_<digits>_..., New Relic NRAA- and NRIQ- keys and EU
//     license keys eu01xx...NRAL, Jina jina_, MongoDB Atlas mdb_sa_sk_,
//     PostHog's personal phx_, Sourcegraph sgp_ and slk_, Teamwork tkn.v1_,
//     Scrapfly scp-live-, Azure DevOps' 84-character PAT with AZDO, Salesforce's
//     00D...! session IDs, Slack's xoxe configuration tokens); the password
//     psexec, PsExec64 or PAExec takes after -p, and Connect-VIServer,
//     Connect-CIServer or Invoke-Sqlcmd after -Password (in any case, not $var,
//     %VAR%, a (subexpression) or a placeholder); the password after a literal
//     user in .NET's LDAP bind, new DirectoryEntry(path, "u", "..."); Vault's
//     unseal keys (Unseal Key 1: ..., vault operator unseal KEY); a TrueNAS API
//     key (N-<64>) in an auth.login_with_api_key call; a ThingsBoard device token
//     in its URL (/api/v1/TOKEN/telemetry or /attributes); a value tagged
//     !!binary or !!str under a credential's name (api_secret: !!binary ...);
//     Gradle's Groovy buildConfigField and resValue without parentheses
//     (buildConfigField 'String', 'API_KEY', '"..."'), not a ${...} template, a
//     concatenation or a name that is no credential's; and, as
//     edit.secret.private-key, a PEM private key encoded whole in base64
//     (LS0tLS1CRUdJTi...) anywhere on a line (echo ... | base64 -d > id_rsa),
//     not a public key's nor an elided one's. The tokens and keys must mix
//     letters and digits. Allowed besides, as code around a literal rather than
//     a value: PHP's concatenation after a closing quote (password =
//     '.$p['db']), a variable escaped or between a shell's juggled quotes
//     (\$_POST[...], "'$CI_TOKEN'"), a CSS id of the field's element
//     (addPassword = "#add-password") and a minified object's next key after a
//     label ("Password:",remember:).
//     Also found (guardrail/secrets_domains.go), in the files of web3,
//     mobile, device and payment code: a wallet's private key, 64 hex
//     digits with 0x or not, under a name whose last word is key with a
//     word before it or that names a signer or wallet (DEPLOYER_KEY=...,
//     signerPrivateKey: "0x...", Solidity's uint256 deployerKey = 0x...;,
//     --private-key), or given to the call that makes a wallet of it (new
//     Wallet("0x..."), Account.from_key, HexToECDSA, accounts.add,
//     privateKeyToAccount, a LocalWallet parsed from it), or first in a
//     signer's list (accounts: ["..."], privateKeys: [...]), on its line
//     or the next; a Solana secret key as 64 numbers in brackets or 86 to
//     88 base58 digits on a line naming a keypair or a secret key
//     (Keypair.fromSecretKey(Uint8Array.from([...])),
//     from_base58_string); a mnemonic given to a call named for one
//     (Wallet.fromPhrase, mnemonicToSeed, Mnemonic.to_seed); a node
//     provider's key in its RPC URL (infura.io/v3/<32 hex>, alchemy.com
//     /v2/<key>, <name>.quiknode.pro/<token>, rpc.ankr.com/<chain>/<64
//     hex>, Chainstack's p2pify.com/<32 hex>); an SNMP community
//     (rocommunity PW, com2sec NAME SOURCE PW, community = "...",
//     SNMP_COMMUNITY=..., snmpwalk -c PW); a TOTP or HOTP seed (base32)
//     given to a TOTP or HOTP call (pyotp.TOTP("..."),
//     totp.GenerateCode("...", t)) or under a name ending in seed
//     (otp_seed, seed: in an otp block); a Tasmota Backlog's Password1,
//     MqttPassword and WebPassword; MaxMind's LicenseKey line;
//     Authorize.Net's transaction key (16 letters and digits under a name
//     ending in transaction key); base64 of user:password given to
//     basic_authorization (fastlane match); FreeRDP's /p:PW; the generated
//     literals of a list under a name ending in keys or secrets (Koa's
//     app.keys = ['...', '...']); CryptoKit's SymmetricKey(data:
//     Data("...".utf8)); the first line of a recovery-codes file
//     (github-recovery-codes.txt, backup_codes.txt), and a mnemonic as the
//     first line of a file named for a secret or a seed (truffle's
//     .secret, mnemonic.txt); the first item of a list under
//     recovery_codes or backup_codes; ipmitool -P PW and
//     x11vnc -passwd PW; the password after the user that paho's
//     username_pw_set and Arduino's WiFi.begin(ssid, "...") take, and
//     PayPal's LiveEnvironment(id, secret); a value the line before opens
//     (securecookie.New(⏎[]byte("..."), LiveEnvironment(⏎"id",⏎"secret",
//     Wallet.fromPhrase(⏎"...", apiKey: {⏎mainnet: "..."); a plist key
//     and any name whose acronym is glued to a credential word after other
//     words (ShopAPISecret). Allowed besides: transaction and block hashes,
//     storage slots, event topics, keccak digests, Merkle roots, salts,
//     addresses and public keys of 64 hex digits, whatever line they are
//     on (txHash, IMPLEMENTATION_SLOT, storageKeys, "key": "0x..." alone,
//     a name saying test, mock or fixture); a pattern of few digits (0x00
//     ... 03); the keys Anvil and Hardhat fund by default, derived from
//     the well-known test mnemonic and printed at every start
//     (0xac0974be...ff80 and the others); a Solana transaction's
//     signature, as long as a key, on a line naming no key; public RPC
//     URLs and keys by reference (https://mainnet.infura.io/v3/${KEY});
//     net-snmp's default communities public and private; RFC 4226 and
//     6238's test seeds (base32 of ASCII digits) and the authenticator
//     documentation's JBSWY3DPEHPK3PXP; a random generator's seed (a
//     number); a Gradle directive's lookup (keyPassword
//     keystoreProperties['keyPassword']); and the Android SDK's debug
//     keystore password, android, a default as the JDK's changeit is.
//     Also found (guardrail/secrets_saas.go), kinds of data, ML and SaaS
//     integrations: a kaggle.json's "key" of 32 hex, in a file so named or on
//     a line that names kaggle (the file echoed from a notebook's cell), which
//     a name whose last word is key alone does not make a credential; the
//     webhook URLs whose path is the secret, Zapier's
//     hooks.zapier.com/hooks/catch/<account>/<hook>/ and Make's (Integromat's)
//     hook.<zone>.make.com/<32 letters and digits>; the token of Zendesk's
//     API login EMAIL/token:TOKEN; the API key Freshdesk's login gives as the
//     user with X as the password (auth=("KEY", "X"), curl -u KEY:X); an
//     Asana personal access token (1/ or 2/, its numbers, a colon, 32 hex)
//     after Bearer; and the Algolia key Python's SearchClient.create takes
//     second, as algoliasearch's. Allowed: documentation's counting examples
//     (catch/123456/abcdef/, abcdefghij1234567890:X), ${VAR} and {var} parts,
//     runs of one character; and Algolia's search-only key, which browsers
//     are given: a client assigned to searchClient or search_client
//     (InstantSearch's const searchClient = algoliasearch('APP', '<32
//     hex>')), and a value found by the provider's name under a name with the
//     word search (NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_KEY=<32 hex>).
//
// A secret is reported masked: at most its first four characters (never
// more than half of it) and "***".
//
// The secret scan is built for a process that judges one edit, as the hook
// does: gitleaks' rules are compiled-in Go data, not a file parsed at
// start; a keyword pass over each added line picks the rules and detectors
// that may apply, and a pattern is compiled only when a line gets past its
// keywords and cheap filters. These filters only spare work: tests compare
// the filtered scan with the full one over every secret corpus.
//
//   - edit.scope (soft): a file changed outside the declared files of the
//     action's task ([EditConfig.Scope], the plan's task files): files,
//     directories, or path.Match globs ("cmd/*" holds cmd/harnish/main.go).
//     A task without files has no scope rule.
//   - edit.size (soft): one file changes more than
//     [EditConfig.MaxChangedLines] lines, added plus removed (default 100;
//     the plan's guardrails.max_changed_lines). Binary and generated files
//     are not counted.
//   - edit.tdd (soft or hard, [TDDConfig.Level]; the plan's
//     guardrails.tdd.level, default soft): a product file is added or gets
//     new lines, and its test file is neither in the same diff nor in the
//     working tree. Tests are looked for beside the file, in a test root
//     beside it, and under a test root mirroring the tree: for
//     src/pkg/parser.py, src/pkg/test_parser.py, src/pkg/tests/test_parser.py,
//     tests/src/pkg/test_parser.py, tests/pkg/test_parser.py or
//     tests/test_parser.py. Patterns per language: Go {stem}_test.go; Python
//     test_{stem}.py, {stem}_test.py; TypeScript and JavaScript
//     {stem}.test.ts and {stem}.spec.ts (and .tsx, .js, .jsx); C and C++
//     {stem}_test.cpp, {stem}_tests.cpp, test_{stem}.cpp, {stem}.test.cpp
//     (and .cc). Test roots: test/, tests/, __tests__/. Exempt: entry points
//     (main.go, main.cpp, __main__.py, index.ts, ...), build output (build/,
//     dist/, out/, target/), vendored code (vendor/, node_modules/,
//     third_party/), generated code (a "Code generated ... DO NOT EDIT." or
//     "@generated" marker, *.pb.go, *_gen.go, ...), tests and test data, and
//     every file whose extension has no pattern (docs, configuration, data).
//     [DefaultTestPatterns], [DefaultTestRoots] and [DefaultTDDExempt] are
//     the defaults; [TDDConfig] replaces them.
package guardrail
