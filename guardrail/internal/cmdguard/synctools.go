package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Copy and sync tools whose destination may be local: what they copy onto
// a local path writes it, and a sync that deletes what the source lacks
// deletes recursively in a local tree, as rsync --delete does. Remote
// destinations (s3://, gs://, remote:path, a container's path) are not the
// machine's files.

func init() {
	handle(rcloneCommand, "rclone")
	handle(gsutilCommand, "gsutil")
	handle(unisonCommand, "unison")
	handle(pgRestore, "pg_restore")
	handle(ghRepoSync, "gh")
}

// remoteURL reports whether s names a remote location for a copy tool:
// SCHEME://, or NAME:path with no slash before the colon (rclone's
// remotes, a container's or pod's path).
func remoteURL(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	return remotePath(s) && !(len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/')) // not C:\x
}

// rcloneCommand judges rclone: sync (and bisync) delete what the source
// lacks from the destination; purge, delete and rmdirs delete; copy,
// copyto, move and moveto write the destination.
func rcloneCommand(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "", "config include exclude filter transfers checkers bwlimit max-age min-age log-file backup-dir")
	if len(ops) == 0 {
		return
	}
	args := ops[1:]
	switch ops[0].Text {
	case "sync", "bisync":
		if len(args) == 2 && !remoteURL(args[1].Text) {
			e.add(RuleRecursiveDelete, k.match(), "rclone %s deletes files in %q the source lacks, recursively", ops[0].Text, args[1].Text)
			e.write(args[1], k.match(), "syncs into")
		}
	case "purge", "delete", "rmdirs":
		if len(args) > 0 && !remoteURL(args[0].Text) {
			e.add(RuleRecursiveDelete, k.match(), "rclone %s deletes %q recursively", ops[0].Text, args[0].Text)
			e.write(args[0], k.match(), "deletes")
		}
	case "copy", "copyto", "move", "moveto", "copyurl":
		if n := len(args); n >= 2 && !remoteURL(args[n-1].Text) {
			e.writeInto(args[n-1], k.match(), "copies over")
		}
	}
}

// s3Command judges aws s3 cp, mv and sync onto a local path; sync with
// --delete deletes what the source lacks.
func (e *evaluator) s3Command(k *call, ops []shell.Word, opts []string) {
	if len(ops) < 4 || ops[0].Text != "s3" {
		return
	}
	sub, src, dst := ops[1].Text, ops[2], ops[3]
	if remoteURL(dst.Text) || !remoteURL(src.Text) {
		return
	}
	switch sub {
	case "sync":
		if contains(opts, "--delete") {
			e.add(RuleRecursiveDelete, k.match(), "aws s3 sync --delete deletes files in %q the source lacks, recursively", dst.Text)
		}
		e.writeInto(withText(dst, strings.TrimSuffix(dst.Text, "/")+"/"), k.match(), "syncs into")
	case "cp", "mv":
		e.writeInto(dst, k.match(), "copies over")
	}
}

// gsutilCommand judges gsutil cp, mv and rsync onto a local path; rsync -d
// deletes what the source lacks.
func gsutilCommand(e *evaluator, k *call) {
	a := k.args
	for len(a) > 0 && strings.HasPrefix(a[0].Text, "-") {
		if (a[0].Text == "-o" || a[0].Text == "-h") && len(a) > 1 {
			a = a[1:] // its value
		}
		a = a[1:]
	}
	if len(a) == 0 {
		return
	}
	opts, ops, _ := operands(a[1:], "", "")
	if len(ops) < 2 || remoteURL(ops[len(ops)-1].Text) {
		return
	}
	dst := ops[len(ops)-1]
	switch a[0].Text {
	case "rsync":
		if hasShort(opts, "d", "--delete") {
			e.add(RuleRecursiveDelete, k.match(), "gsutil rsync -d deletes files in %q the source lacks, recursively", dst.Text)
		}
		e.writeInto(withText(dst, strings.TrimSuffix(dst.Text, "/")+"/"), k.match(), "syncs into")
	case "cp", "mv":
		e.writeInto(dst, k.match(), "copies over")
	}
}

// containerCopy judges docker, podman and kubectl cp onto a local path: a
// are the words after cp.
func containerCopy(e *evaluator, k *call, a []shell.Word) {
	_, ops, _ := operands(a, "cn", "container namespace")
	// [NAMESPACE/]POD:PATH or CONTAINER:PATH is the other side.
	inContainer := func(t string) bool {
		return strings.Contains(t, ":") && !(len(t) > 2 && t[1] == ':' && (t[2] == '\\' || t[2] == '/'))
	}
	if len(ops) == 2 && inContainer(ops[0].Text) && !inContainer(ops[1].Text) {
		e.writeInto(ops[1], k.match(), "copies over")
	}
}

// unisonCommand judges unison with -force ROOT (or -prefer ROOT): the other
// root is made to match it, deleting what it lacks.
func unisonCommand(e *evaluator, k *call) {
	for j, w := range k.args {
		if (w.Text == "-force" || w.Text == "-prefer") && j+1 < len(k.args) {
			e.add(RuleRecursiveDelete, k.match(), "unison %s makes the other replica match, deleting what it lacks recursively", w.Text)
			return
		}
	}
}

// pgRestore judges pg_restore --clean into a database: it drops the
// objects it restores first. Without a database (-f, stdout) it only
// writes a script.
func pgRestore(e *evaluator, k *call) {
	opts, _, v := operands(k.args, "dfFjILnNPsStTU", "dbname file format jobs schema table host port username role section")
	_, db := v.get("-d")
	_, dbLong := v.get("--dbname")
	if hasShort(opts, "c", "--clean") && (db || dbLong) {
		e.add(RuleSQLDrop, k.match(), "pg_restore --clean drops the database's objects before restoring them")
	}
}

// cloneCommand judges git clone URL DIR: DIR is written; a are the words
// after clone.
func cloneCommand(e *evaluator, k *call, a []shell.Word) {
	_, ops, _ := operands(a, "obcju", "origin branch config depth jobs upload-pack reference separate-git-dir template filter shallow-since shallow-exclude")
	if len(ops) == 2 {
		e.write(ops[1], k.match(), "clones into")
	}
}

// ghRepoSync judges gh repo sync --force: with a repository it resets the
// fork's branch on GitHub to the source (a force push); without one it
// resets the local branch (discarding work).
func ghRepoSync(e *evaluator, k *call) {
	a := k.args
	if len(a) < 2 || a[0].Text != "repo" || a[1].Text != "sync" {
		return
	}
	opts, ops, _ := operands(a[2:], "bs", "branch source")
	if !contains(opts, "--force") {
		return
	}
	if len(ops) > 0 {
		e.add(RuleForcePush, k.match(), "gh repo sync --force resets %s's branch, rewriting its history", ops[0].Text)
		return
	}
	e.add(RuleDiscard, k.match(), "gh repo sync --force hard-resets the local branch, discarding its work")
}
