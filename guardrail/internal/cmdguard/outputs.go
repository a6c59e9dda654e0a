package cmdguard

import (
	"path"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Programs that write a file (or into a directory) an option names: find
// -fprint FILE, git log --output FILE, base64 -o FILE, wget -P DIR, a
// compiler's -o FILE. What they write is judged as a redirection's target
// is (fs.protected, sys.files, sys.disk).

// outputOpts maps a program to its options whose value is a path it
// writes. A one-letter option's value may be attached (-oFILE); a long
// one's may follow "=".
var outputOpts = map[string][]string{
	"find":    {"-fprint", "-fprint0", "-fls", "-fprintf"},
	"base64":  {"-o", "--output"},
	"wget":    {"-P", "--directory-prefix", "-o", "--output-file", "-a", "--append-output"},
	"aria2c":  {"-d", "--dir", "-o", "--out"},
	"openssl": {"-out", "-keyout"},
	"gpg":     {"-o", "--output"},
	"iconv":   {"-o", "--output"},
	"pandoc":  {"-o", "--output"},
	"gcc":     {"-o"}, "g++": {"-o"}, "cc": {"-o"}, "c++": {"-o"}, "clang": {"-o"}, "clang++": {"-o"},
	"rustc": {"-o", "--out-dir"},
	"zstd":  {"-o"},
	"javac": {"-d"},
	"go":    {"-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir"},
	"git":   {"--output", "--output-directory"},
	// Dump, test, build, trace and download tools (set 23).
	"pg_dump":    {"-f", "--file"},
	"pg_dumpall": {"-f", "--file"},
	"mysqldump":  {"-r", "--result-file"},
	"curl":       {"-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--libcurl"},
	"ssh-keygen": {"-f"},
	"xmllint":    {"--output"},
	"docker":     {"-o", "--output"},
	"podman":     {"-o", "--output"},
	"pytest":     {"--junitxml", "--junit-xml", "--result-log", "--resultlog"},
	"tsc":        {"--outDir", "--outFile", "--out", "--declarationDir", "--tsBuildInfoFile"},
	"esbuild":    {"--outfile", "--outdir"},
	"cargo":      {"--target-dir", "--out-dir", "--artifact-dir"},
	"npm":        {"--pack-destination"},
	"gh":         {"-D", "--dir", "-O", "--output"},
	"terraform":  {"-out", "-state-out", "-backup"},
	"helm":       {"--output-dir"},
	"age":        {"-o", "--output"},
	"rage":       {"-o", "--output"},
	"tcpdump":    {"-w"},
	"tshark":     {"-w"},
	"dumpcap":    {"-w"},
	"perf":       {"-o", "--output"},
	"valgrind":   {"--log-file", "--xml-file"},
	"http":       {"-o", "--output"},
	"https":      {"-o", "--output"},
	"xh":         {"-o", "--output"},
	"mktemp":     {"-p", "--tmpdir"},
	"ffmpeg":     {},
	"convert":    {},
	"magick":     {},
	"protoc":     {},
}

// wrapperOutputs are the options of wrappers (wrapperSpecs) whose value is a
// file the wrapper writes: time -o, strace -o. They are judged before the
// wrapper is unwrapped, with its own option parser, so the command it runs
// keeps its options.
var wrapperOutputs = map[string][]string{
	"time":   {"-o", "--output"},
	"strace": {"-o", "--output"},
	"ltrace": {"-o"},
}

// wrapperOutput judges a wrapper's output options, and script's typescript
// file and logs.
func (e *evaluator) wrapperOutput(k *call) {
	if k.name == "script" {
		opts, ops, v := operands(k.args, "cEIOBTom", "command echo log-in log-out log-io log-timing output-limit logging-format")
		_ = opts
		for _, key := range []string{"-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing"} {
			if w, ok := v.get(key); ok {
				e.write(w, k.match(), "writes")
			}
		}
		if len(ops) > 0 {
			e.write(ops[0], k.match(), "writes its typescript to")
		}
		return
	}
	_, v, _ := wrapperSpecs[k.name].split(k.args)
	for _, key := range wrapperOutputs[k.name] {
		if w, ok := v.get(key); ok && w.Text != "" {
			e.write(w, k.match(), "writes")
		}
	}
}

// outputSubcommands limits a program's output options to the subcommands
// that have them (docker save -o, gh release download -D).
var outputSubcommands = map[string][]string{
	"docker": {"save", "export", "build", "buildx", "image"},
	"podman": {"save", "export", "build", "image"},
	"gh":     {"release", "run", "attestation"},
	"npm":    {"pack"},
	"helm":   {"template"},
}

// lastOperandOutput are the programs whose last argument is the file they
// write (ffmpeg ... OUT, convert IN ... OUT), unless it is an option's
// value or standard output.
var lastOperandOutput = map[string]bool{"ffmpeg": true, "convert": true, "magick": true}

// outputOptions judges the paths a program's output options name.
func (e *evaluator) outputOptions(k *call, names []string) {
	a := k.args
	if k.name == "git" && len(a) > 0 {
		// -o is format-patch's and archive's output, not git's own.
		for _, w := range a {
			if w.Text == "format-patch" || w.Text == "archive" {
				names = append(names[:len(names):len(names)], "-o")
				break
			}
			if !strings.HasPrefix(w.Text, "-") {
				break
			}
		}
	}
	if subs := outputSubcommands[k.name]; subs != nil {
		first := ""
		for _, w := range a {
			if !strings.HasPrefix(w.Text, "-") {
				first = w.Text
				break
			}
		}
		if !contains(subs, first) {
			return
		}
	}
	switch {
	case k.name == "ssh-keygen":
		for _, w := range a {
			// -l, -y, -e, -B, -L, -Y and -F read the key file -f names.
			if len(w.Text) > 1 && w.Text[0] == '-' && w.Text[1] != '-' && strings.ContainsAny(w.Text[1:], "lyeBLYFK") {
				return
			}
		}
	case k.name == "git" && len(a) > 2 && a[0].Text == "bundle" && a[1].Text == "create":
		if _, ops, _ := operands(a[2:], "", ""); len(ops) > 0 {
			e.write(ops[0], k.match(), "writes")
		}
	case lastOperandOutput[k.name] && len(a) > 1:
		last, prev := a[len(a)-1], a[len(a)-2].Text
		if !strings.HasPrefix(last.Text, "-") && (!strings.HasPrefix(prev, "-") || prev == "-y" || prev == "-n" || prev == "-hide_banner" || prev == "-nostdin") {
			e.write(last, k.match(), "writes")
		}
	case k.name == "protoc":
		for _, w := range a {
			// --go_out=DIR, --python_out=opts:DIR
			name, v, ok := strings.Cut(w.Text, "=")
			if ok && strings.HasPrefix(name, "--") && strings.HasSuffix(name, "_out") {
				e.writeInto(withText(w, v[strings.LastIndexByte(v, ':')+1:]), k.match(), "writes")
			}
		}
	}
	dir := shell.Word{}
	for j := 0; j < len(a); j++ {
		t := a[j].Text
		if t == "--" {
			break
		}
		for _, n := range names {
			var v shell.Word
			switch {
			case t == n && j+1 < len(a):
				v = a[j+1]
			case strings.HasPrefix(n, "--") && strings.HasPrefix(t, n+"="):
				v = withText(a[j], t[len(n)+1:])
			case len(n) == 2 && n[0] == '-' && strings.HasPrefix(t, n) && len(t) > 2 && !strings.HasPrefix(t, "--"):
				v = withText(a[j], t[2:])
			case len(n) > 2 && n[1] != '-' && strings.HasPrefix(t, n+"="):
				v = withText(a[j], t[len(n)+1:]) // go test -coverprofile=FILE, terraform -out=FILE
			default:
				continue
			}
			if k.name == "aria2c" {
				dir = v
			}
			e.writeInto(v, k.match(), "writes")
			break
		}
	}
	if k.name == "aria2c" && dir.Text != "" {
		// aria2c -d DIR -o NAME writes DIR/NAME.
		for j, w := range a {
			if (w.Text == "-o" || w.Text == "--out") && j+1 < len(a) {
				e.write(withText(a[j+1], path.Join(dir.Text, a[j+1].Text)), k.match(), "writes")
			}
		}
	}
}

// scpCommand judges scp's destination, when it is local: it is written.
func scpCommand(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "cFiJlPSoDX", "")
	if len(ops) < 2 {
		return
	}
	dest := ops[len(ops)-1]
	if remotePath(dest.Text) {
		return
	}
	e.writeInto(dest, k.match(), "copies over")
}

// writeInto judges a copy's destination: a directory (".", "..", a path
// ending in "/") is written into, so it counts when what lands in it is
// protected or the system's (.git/, /usr/local/bin/), not when it merely
// holds a protected path (scp host:x . is allowed); any other path is
// written itself.
func (e *evaluator) writeInto(w shell.Word, match, verb string) {
	t := w.Text
	if t != "." && t != ".." && !strings.HasSuffix(t, "/") || w.Dynamic() {
		e.write(w, match, verb)
		return
	}
	probe := withText(w, path.Join(t, "x"))
	if dir, ok := e.systemFile(probe); ok {
		e.add(RuleSystemFiles, match, "the command %s into %q, a directory of the system's own (%s), outside the working tree", verb, t, dir)
		return
	}
	if entry, ok := e.protected(probe); ok {
		e.add(RuleProtected, match, "the command %s into %q, which is protected (%s)", verb, t, entry)
	}
}

// remotePath reports whether an scp or rsync operand names a remote path:
// HOST:PATH or scp://..., a colon before any slash.
func remotePath(s string) bool {
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return false
	}
	j := strings.IndexByte(s, '/')
	return j < 0 || i < j
}

func init() {
	handle(outputOperand, "uniq", "split", "csplit", "xxd")
	handle(compressCommand, "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "pigz", "unpigz", "lzip", "compress", "uncompress")
	handle(scpCommand, "scp")
	handle(rgCommand, "rg")
}

// rgCommand judges ripgrep's --pre PROGRAM, which rg runs on every file it
// searches (PROGRAM FILE): a deleting program deletes the whole tree.
func rgCommand(e *evaluator, k *call) {
	pre, ok := optionValue(k.args, "--pre")
	if !ok || pre.Dynamic() {
		return
	}
	base := pre.Text[strings.LastIndexAny(pre.Text, `/\`)+1:]
	switch canonical(Bash, base) {
	case "rm", "unlink", "shred", "srm", "wipe", "rmdir", "trash":
		if base != "trash" {
			e.add(RuleRecursiveDelete, k.match(), "rg --pre %s runs %s on every file rg searches: it deletes the tree", pre.Text, base)
		}
	}
}

// outputOperand judges the programs whose second operand, or an option's
// value, is a file they write: uniq IN OUT, xxd IN OUT, split FILE PREFIX
// (PREFIXaa, PREFIXab, ...), csplit -f PREFIX.
func outputOperand(e *evaluator, k *call) {
	var ops []shell.Word
	var v optValues
	switch k.name {
	case "uniq":
		_, ops, _ = operands(k.args, "fsw", "skip-fields skip-chars check-chars")
	case "xxd":
		_, ops, _ = operands(k.args, "cglosnC", "")
	case "split":
		_, ops, _ = operands(k.args, "abClnt", "bytes line-bytes lines number separator suffix-length additional-suffix filter")
	case "csplit":
		_, ops, v = operands(k.args, "bfn", "prefix suffix-format digits")
		for _, key := range []string{"-f", "--prefix"} {
			if w, ok := v.get(key); ok {
				e.write(w, k.match(), "writes files named from")
			}
		}
		return
	}
	if len(ops) > 1 && ops[1].Text != "-" {
		e.write(ops[1], k.match(), "writes")
	}
}

// compressCommand judges gzip, bzip2, xz and their kin: without -c, -k,
// -l or -t each operand is replaced by its compressed (or decompressed)
// file, so the operand is deleted.
func compressCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "SFCTM", "suffix format check threads memlimit")
	if hasShort(opts, "cklthVL", "--stdout", "--to-stdout", "--keep", "--list", "--test", "--help", "--version", "--license") {
		return
	}
	for _, w := range ops {
		e.write(w, k.match(), "replaces")
	}
}
