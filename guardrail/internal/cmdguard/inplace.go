package cmdguard

import (
	"path"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Tools that rewrite the files they are given in place (formatters, line
// ending converters, yq -i) and tools that copy an image onto their output
// (ddrescue, bmaptool, dcfldd): their written operands are judged as any
// write is, so a protected path is fs.protected and a block device
// sys.disk.

// inPlaceTool says when a tool rewrites its file operands: always, or only
// with one of the options in flags (a long option, or a short letter in a
// cluster), and never with one in dry (a check or a diff).
type inPlaceTool struct {
	flags  []string
	dry    []string
	valued string // short options taking a value
	long   string // long options taking a value
}

var inPlaceTools = map[string]inPlaceTool{
	"dos2unix":     {dry: []string{"-n", "--newfile", "-i", "--info"}},
	"unix2dos":     {dry: []string{"-n", "--newfile", "-i", "--info"}},
	"mac2unix":     {dry: []string{"-n", "--newfile", "-i", "--info"}},
	"unix2mac":     {dry: []string{"-n", "--newfile", "-i", "--info"}},
	"yq":           {flags: []string{"-i", "--inplace"}, valued: "pIoe", long: "output-format input-format expression indent"},
	"prettier":     {flags: []string{"-w", "--write"}, long: "config ignore-path plugin parser"},
	"gofmt":        {flags: []string{"-w"}},
	"goimports":    {flags: []string{"-w"}},
	"gofumpt":      {flags: []string{"-w"}},
	"shfmt":        {flags: []string{"-w", "--write"}, valued: "ilf", long: "indent language-dialect"},
	"clang-format": {flags: []string{"-i"}, long: "style assume-filename"},
	"autopep8":     {flags: []string{"-i", "--in-place"}},
	"black":        {dry: []string{"--check", "--diff"}, valued: "lStc", long: "line-length target-version config include exclude"},
	"isort":        {dry: []string{"--check", "--check-only", "-c", "--diff"}},
	"rustfmt":      {dry: []string{"--check"}, long: "edition config config-path"},
	"eslint":       {flags: []string{"--fix"}, valued: "cf", long: "config format ext rule plugin"},
	"stylua":       {dry: []string{"--check", "-c"}},
	"sponge":       {}, // handled by spongeCommand; listed so the table is the whole kind
}

func init() {
	for name := range inPlaceTools {
		if name != "sponge" {
			handle(inPlaceCommand, name)
		}
	}
	handle(imageCopy, "ddrescue", "bmaptool", "dcfldd", "dc3dd", "partclone.dd")
}

// inPlaceCommand judges a tool that rewrites its file operands.
func inPlaceCommand(e *evaluator, k *call) {
	t := inPlaceTools[k.name]
	opts, ops, _ := operands(k.args, t.valued, t.long)
	for _, d := range t.dry {
		if contains(opts, d) || len(d) == 2 && hasShort(opts, d[1:]) {
			return
		}
	}
	if len(t.flags) > 0 {
		on := false
		for _, f := range t.flags {
			if contains(opts, f) || len(f) == 2 && hasShort(opts, f[1:]) {
				on = true
			}
		}
		if !on {
			return
		}
	}
	expr := ""
	if k.name == "yq" {
		if len(ops) > 0 && yqCommands[ops[0].Text] {
			ops = ops[1:] // yq e -i EXPR FILE
		}
		if len(ops) > 1 {
			expr, ops = ops[0].Text, ops[1:] // the expression first
		}
	}
	for _, w := range ops {
		e.rewrite(w, k.match())
		if expr != "" {
			e.secret(w, expr) // .db.password = "..." puts the value in
		}
	}
}

// yqCommands are yq's subcommands, before its expression.
var yqCommands = map[string]bool{"e": true, "eval": true, "ea": true, "eval-all": true}

// outputText returns what a command whose output a redirection writes into
// a file puts there, as far as its arguments say: the program of a JSON or
// YAML processor (jq, yq, gojq, jaq), what it assigns (.apiKey = "...")
// being what the file gets; the literals of a Secret manifest kubectl
// prints (kubectl create secret ... --from-literal=K=V --dry-run -o yaml).
func outputText(c *shell.Cmd, sh string) (string, bool) {
	if len(c.Args) < 2 || c.Args[0].Dynamic() {
		return "", false
	}
	switch canonical(sh, c.Args[0].Text) {
	case "jq", "gojq", "jaq", "yq":
	case "kubectl", "oc":
		return secretManifest(c.Args[1:])
	default:
		return "", false
	}
	_, ops, _ := operands(c.Args[1:], "fLI", "arg argjson slurpfile rawfile indent from-file")
	if len(ops) > 0 && yqCommands[ops[0].Text] {
		ops = ops[1:]
	}
	if len(ops) == 0 || !strings.Contains(ops[0].Text, "=") {
		return "", false
	}
	return ops[0].Text, true
}

// rewrite judges a tool rewriting the file w, or the files of its language
// under the directory w: protected when w is a protected path or inside
// one, not when it only holds one (prettier --write . formats the tree, and
// what harnish protects is no source it formats).
func (e *evaluator) rewrite(w shell.Word, match string) {
	if device(w) {
		e.write(w, match, "rewrites in place")
		return
	}
	entry, ok := e.protected(w)
	if !ok {
		return
	}
	name := strings.ReplaceAll(w.Text, `\`, "/")
	if w.Dynamic() {
		name = strings.TrimLeft(strings.ReplaceAll(w.Tail(), `\`, "/"), "/")
	}
	if isAbs(name) {
		if rel, ok := strings.CutPrefix(path.Clean(name), strings.TrimSuffix(e.root, "/")+"/"); ok {
			name = rel
		}
	}
	name = path.Clean(name)
	entry = strings.TrimSuffix(entry, "/")
	if e.dir != "" || w.Glob || name == entry || strings.HasPrefix(name, entry+"/") || strings.HasSuffix(name, "/"+entry) ||
		strings.Contains(name, "/"+entry+"/") {
		e.add(RuleProtected, match, "the command rewrites in place %q, which is protected (%s)", w.Text, entry)
	}
}

// imageCopy judges the tools that copy an image onto an output path:
// ddrescue IN OUT [MAP], bmaptool copy IMAGE DEST, dcfldd and dc3dd of=.
func imageCopy(e *evaluator, k *call) {
	switch k.name {
	case "dcfldd", "dc3dd":
		ddCommand(e, k)
	case "bmaptool":
		_, ops, _ := operands(k.args, "", "bmap")
		if len(ops) > 2 && ops[0].Text == "copy" {
			e.write(ops[len(ops)-1], k.match(), "overwrites")
		}
	case "partclone.dd":
		e.writeOption(k, "-o", "--output")
	default: // ddrescue
		_, ops, _ := operands(k.args, "bcdeimsKLrTx", "")
		if len(ops) > 1 {
			e.write(ops[1], k.match(), "overwrites")
		}
	}
}

// writeOption writes the value of the short or long option of k.
func (e *evaluator) writeOption(k *call, short, long string) {
	a := k.args
	for i, w := range a {
		switch {
		case (w.Text == short || w.Text == long) && i+1 < len(a):
			e.write(a[i+1], k.match(), "overwrites")
		case strings.HasPrefix(w.Text, long+"="):
			e.write(withText(w, w.Text[len(long)+1:]), k.match(), "overwrites")
		}
	}
}

// secretManifest returns the literals kubectl create secret puts into the
// manifest it prints with -o (--output): --from-literal's KEY=VALUE and
// docker-registry's --docker-password, a line each, as KEY: VALUE.
func secretManifest(args []shell.Word) (string, bool) {
	_, ops, v := operands(args, "on", "output namespace from-literal from-file from-env-file docker-password docker-username docker-server docker-email type cert key context kubeconfig")
	if len(ops) < 2 || ops[0].Text != "create" || ops[1].Text != "secret" {
		return "", false
	}
	if _, ok := v.get("-o"); !ok {
		if _, ok := v.get("--output"); !ok {
			return "", false // no manifest printed
		}
	}
	var b strings.Builder
	for _, o := range v {
		switch o.key {
		case "--from-literal":
			if k, val, ok := strings.Cut(o.w.Text, "="); ok {
				b.WriteString(k + ": " + val + "\n")
			}
		case "--docker-password":
			b.WriteString("password: " + o.w.Text + "\n")
		}
	}
	return b.String(), b.Len() > 0
}
