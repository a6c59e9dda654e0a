package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(mkfsCommand, "mke2fs", "mkswap", "mkdosfs", "mkntfs", "mkexfatfs", "mkfs", "newfs",
		"blkdiscard", "cryptsetup", "format-volume", "clear-disk", "initialize-disk", "remove-partition")
	handle(wipefsCommand, "wipefs")
	handle(sgFormatCommand, "sg_format", "sg_sanitize")
	handle(partitionCommand, "fdisk", "gdisk", "cfdisk", "sfdisk", "sgdisk", "parted")
	handle(hdparmCommand, "hdparm")
	handle(diskutilCommand, "diskutil")
	handle(formatCommand, "format", "diskpart")
	handle(volumeCommand, "zpool", "zfs", "lvremove", "vgremove", "pvremove", "mdadm", "nvme")
	handle(badblocksCommand, "badblocks")
}

// blockDevice matches the device files of disks, partitions and memory: a
// write to one destroys a file system or the running machine, wherever the
// working tree is.
var blockDevice = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^/dev/(?:(?:s|h|v|xv)d[a-z]+[0-9]*|nvme[0-9]+(?:n[0-9]+(?:p[0-9]+)?)?|mmcblk[0-9]+(?:p[0-9]+|boot[0-9]+)?|md[0-9]*|md/.+|dm-[0-9]+|mapper/.+|loop[0-9]+|nbd[0-9]+(?:p[0-9]+)?|zd[0-9]+|sr[0-9]+|r?disk[0-9]+(?:s[0-9]+)*|disk/.+|root|mem|kmem|port|mtd(?:block)?[0-9]+|ram[0-9]+|zram[0-9]+|bcache[0-9]+|dasd[a-z]+[0-9]*|ubd[a-z]*[0-9]*|cciss/.+|rbd[0-9]+|pmem[0-9]+)$`)
})

// device reports whether w names, or may name, a block device or memory:
// a /dev path that matches blockDevice, a glob over such names, or a /dev
// path completed at run time.
func device(w shell.Word) bool {
	t := w.Text
	if windowsDevice(t) {
		return true
	}
	if !strings.HasPrefix(t, "/dev/") {
		return false
	}
	if w.Dynamic() {
		// /dev/$DISK, /dev/sd$X: unknown, unless the static part is a
		// harmless device.
		st := w.Segs[0]
		return !st.Dynamic && !harmlessDevice(st.Text)
	}
	if w.Glob || strings.ContainsAny(t, "*?[") {
		// Redirection targets are globbed too, though not marked.
		stem := t[:strings.IndexAny(t, "*?[")]
		for _, p := range []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/md", "/dev/dm-", "/dev/mapper/", "/dev/loop", "/dev/rdisk"} {
			if strings.HasPrefix(stem, p) || strings.HasPrefix(p, stem) && stem != "/dev/" {
				return true
			}
		}
		return stem == "/dev/"
	}
	t = strings.TrimSuffix(t, "/")
	return blockDevice().MatchString(t) || volumePath(t)
}

// volumePath reports whether the /dev path t is DIR/NAME in a directory of
// /dev that holds no character devices: LVM's /dev/VG/LV, Android's and
// Linux's /dev/block/NAME. The directories of terminals, sound, input,
// graphics, buses and the like are not volumes.
func volumePath(t string) bool {
	dir, name, ok := strings.Cut(strings.TrimPrefix(t, "/dev/"), "/")
	if !ok || dir == "" || name == "" || strings.Contains(name, "/") {
		return false
	}
	switch dir {
	case "pts", "shm", "fd", "tcp", "udp", "input", "snd", "dri", "net", "bus", "char", "cpu", "hugepages",
		"mqueue", "usb", "serial", "v4l", "vfio", "dma_heap", "xen", "infiniband", "gpiochip", "i2c", "tpm",
		"log", "console", "stdin", "stdout", "stderr", "null", "zero", "random", "urandom", "full", "tty":
		return false
	}
	for i := 0; i < len(dir); i++ {
		if c := dir[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '+') {
			return false
		}
	}
	return true
}

// windowsDevice reports whether t is a Windows raw device path: a physical
// drive, a volume or a partition (\\.\PhysicalDrive1, \\.\D:,
// \\?\Volume{...}, \\.\Harddisk0Partition1), with either slash.
func windowsDevice(t string) bool {
	if len(t) < 5 || t[0] != '\\' && t[0] != '/' {
		return false
	}
	t = strings.ToLower(strings.ReplaceAll(t, "/", `\`))
	rest, ok := strings.CutPrefix(t, `\\.\`)
	if !ok {
		if rest, ok = strings.CutPrefix(t, `\\?\`); !ok {
			return false
		}
	}
	return windowsDeviceName().MatchString(rest) // with a trailing \ it is the root directory
}

var windowsDeviceName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:physicaldrive[0-9]+|[a-z]:|harddisk[0-9]+partition[0-9]+|harddiskvolume[0-9]+|volume\{[0-9a-f-]+\}|cdrom[0-9]+|tape[0-9]+)$`)
})

// harmlessDevice reports whether the start of a /dev path is one of the
// devices scripts write to all the time.
func harmlessDevice(prefix string) bool {
	for _, p := range []string{"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/pts/", "/dev/fd/", "/dev/shm/", "/dev/tcp/", "/dev/udp/"} {
		if strings.HasPrefix(prefix, p) {
			return true
		}
	}
	return false
}

// isMkfs reports whether name is a file-system maker: mkfs, mkfs.ext4,
// mkfs_msdos, newfs_apfs, ...
func isMkfs(name string) bool {
	for _, ext := range []string{".sh", ".bash", ".py", ".pl", ".rb", ".js", ".ps1"} {
		if strings.HasSuffix(name, ext) {
			return false // a script named after it
		}
	}
	for _, p := range []string{"mkfs.", "mkfs_", "newfs_", "mkfs-"} {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

// infoOnly reports whether the arguments only ask for help or a version.
func infoOnly(a []shell.Word) bool {
	if len(a) == 0 {
		return false
	}
	for _, w := range a {
		if !infoFlags[w.Text] {
			return false
		}
	}
	return true
}

func mkfsCommand(e *evaluator, k *call) {
	if infoOnly(k.args) {
		return
	}
	switch k.name {
	case "cryptsetup":
		// Only formatting and erasing destroy what the device holds.
		if !hasWord(k.args, "luksformat", "erase", "luksErase", "reencrypt") {
			return
		}
	case "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "mkexfatfs", "newfs":
	}
	e.add(RuleDisk, k.match(), "%s creates a file system or erases a disk, destroying what it held", k.name)
}

func hasWord(a []shell.Word, words ...string) bool {
	for _, w := range a {
		for _, x := range words {
			if strings.EqualFold(w.Text, x) {
				return true
			}
		}
	}
	return false
}

func wipefsCommand(e *evaluator, k *call) {
	opts, _, _ := operands(k.args, "otO", "offset types output")
	if hasShort(opts, "n", "--no-act") {
		return
	}
	if hasShort(opts, "ao", "--all", "--offset") {
		e.add(RuleDisk, k.match(), "wipefs %s erases file-system signatures", strings.Join(opts, " "))
	}
}

// partitionCommand handles the partition editors: listing is allowed,
// anything else rewrites a partition table.
func partitionCommand(e *evaluator, k *call) {
	if infoOnly(k.args) {
		return
	}
	opts, ops, _ := operands(k.args, "bcCHSuLoOsa", "sector-size compatibility cylinders heads sectors units color output label label-nested align")
	switch k.name {
	case "fdisk", "gdisk", "cfdisk":
		if hasShort(opts, "l", "--list", "--list-details") || k.name == "gdisk" && hasShort(opts, "l") {
			return
		}
	case "sfdisk":
		if hasShort(opts, "ldgsVJr", "--list", "--dump", "--json", "--show-geometry", "--show-size", "--verify", "--no-act", "--list-free", "--list-types", "--show-pt-geometry") {
			return
		}
	case "sgdisk":
		if !hasShort(opts, "ZzodnNEgGmRrUsxXt", "--zap", "--zap-all", "--clear", "--delete", "--new", "--largest-new", "--mbrtogpt", "--gpttombr", "--replicate", "--randomize-guids", "--sort", "--typecode", "--transpose", "--load-backup") {
			return
		}
	case "parted":
		if hasShort(opts, "l", "--list") {
			return
		}
		readOnly := true
		for _, w := range ops[min(1, len(ops)):] {
			switch strings.ToLower(w.Text) {
			case "print", "p", "unit", "s", "b", "kb", "mb", "gb", "mib", "gib", "free", "list", "all", "help", "version":
			default:
				readOnly = false
			}
		}
		if readOnly && len(ops) > 1 {
			return
		}
	}
	e.add(RuleDisk, k.match(), "%s rewrites a disk's partition table", k.name)
}

func hdparmCommand(e *evaluator, k *call) {
	for _, w := range k.args {
		t := strings.ToLower(w.Text)
		if strings.HasPrefix(t, "--security-erase") || strings.HasPrefix(t, "--trim-sector") ||
			t == "--write-sector" || t == "--yes-i-know-what-i-am-doing" || t == "--fwdownload" {
			e.add(RuleDisk, k.match(), "hdparm %s erases or overwrites a disk", w.Text)
			return
		}
	}
}

func diskutilCommand(e *evaluator, k *call) {
	for _, w := range k.args {
		switch strings.ToLower(w.Text) {
		case "erasedisk", "erasevolume", "partitiondisk", "zerodisk", "randomdisk", "secureerase", "reformat", "apfs":
			if strings.EqualFold(w.Text, "apfs") && !hasWord(k.args, "deleteContainer", "eraseVolume", "deleteVolume") {
				continue
			}
			e.add(RuleDisk, k.match(), "diskutil %s erases a disk", w.Text)
			return
		}
	}
}

// formatCommand handles cmd's format (of a drive) and diskpart.
func formatCommand(e *evaluator, k *call) {
	if k.name == "format" {
		// format is also a harmless Unix-ish word (clang-format is not it);
		// only a drive letter makes it Windows' formatter.
		for _, w := range k.args {
			if len(w.Text) == 2 && w.Text[1] == ':' {
				e.add(RuleDisk, k.match(), "format %s erases a drive", w.Text)
				return
			}
		}
		return
	}
	if infoOnly(k.args) {
		return
	}
	e.add(RuleDisk, k.match(), "diskpart runs partitioning commands no guard judges")
}

// forkBomb judges a command inside a function that calls the function
// itself beside its caller (in the background or in a pipeline): every call
// makes more processes until the machine stops.
func (e *evaluator) forkBomb(c *shell.Cmd) {
	if len(c.Args) == 0 {
		return
	}
	if selfScript(c) && (c.Async || c.Stdin.Kind == shell.Pipe && c.Stdin.From != nil && selfScript(c.Stdin.From)) {
		e.add(RuleForkBomb, c.Source, "the script runs itself (%s) in the background or a pipeline: a fork bomb", c.Args[0].Text)
		return
	}
	if c.Func == "" || !c.Async || c.Args[0].Dynamic() || c.Args[0].Text != c.Func {
		return
	}
	e.add(RuleForkBomb, c.Source, "the function %s calls itself in the background or a pipeline: a fork bomb", c.Func)
}

// selfScript reports whether c runs the script it is in: bash's $0 (or a
// shell given $0), cmd's %0 (or %~f0 and the like).
func selfScript(c *shell.Cmd) bool {
	if len(c.Args) > 1 && !c.Args[0].Dynamic() && isShell(canonical(Bash, c.Args[0].Text)) {
		// bash $0: the script run by a shell named.
		t := c.Args[1].Text
		return t == "$0" || t == "${0}" || t == `"$0"`
	}
	if len(c.Args) == 0 || !c.Args[0].Dynamic() {
		return false
	}
	t := strings.Trim(c.Args[0].Text, `"`)
	switch {
	case t == "$0" || t == "${0}":
		return true
	case strings.HasPrefix(t, "%") && strings.HasSuffix(t, "0") && len(t) >= 2:
		return t == "%0" || strings.HasPrefix(t, "%~")
	}
	return false
}

// volumeCommand judges the tools that destroy pools, volumes and RAID or
// NVMe namespaces: zpool destroy and labelclear, zfs destroy, lvremove,
// vgremove, pvremove, mdadm --zero-superblock, nvme format and sanitize.
func volumeCommand(e *evaluator, k *call) {
	if infoOnly(k.args) {
		return
	}
	destroy := false
	switch k.name {
	case "zpool":
		// zpool create writes a new pool over its devices' contents.
		destroy = hasWord(k.args, "destroy", "labelclear", "create")
	case "zfs":
		destroy = hasWord(k.args, "destroy")
	case "lvremove", "vgremove", "pvremove":
		destroy = true
	case "mdadm":
		// --create (-C) writes new RAID metadata over its member devices.
		destroy = hasWord(k.args, "--zero-superblock", "--create", "-C")
	case "nvme":
		destroy = hasWord(k.args, "format", "sanitize")
	}
	if destroy {
		e.add(RuleDisk, k.match(), "%s destroys a storage pool, volume or namespace and the file systems on it", k.name)
	}
}

// badblocksCommand judges badblocks -w, whose write test overwrites the
// whole device (-n, the non-destructive read-write test, restores it).
func badblocksCommand(e *evaluator, k *call) {
	for _, w := range k.args {
		t := w.Text
		if len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t[1:], 'w') {
			e.add(RuleDisk, k.match(), "badblocks -w overwrites the whole device")
			return
		}
	}
}

// sgFormatCommand judges the SCSI formatters: sg_format --format (-F) and
// sg_sanitize with an erase (--block, --crypto, --overwrite) destroy the
// disk; without them they only report.
func sgFormatCommand(e *evaluator, k *call) {
	erase := []string{"--format", "-F"}
	if k.name == "sg_sanitize" {
		erase = []string{"--block", "--crypto", "--overwrite", "-B", "-C", "-O"}
	}
	for _, w := range k.args {
		name, _, _ := strings.Cut(w.Text, "=")
		if contains(erase, name) {
			e.add(RuleDisk, k.match(), "%s %s erases the disk", k.name, name)
			return
		}
	}
}

func init() {
	handle(btrfsCommand, "btrfs")
	handle(lvresizeCommand, "lvresize")
}

// btrfsCommand judges btrfs subvolume delete, which destroys the
// subvolumes named and every file in them. btrfs takes any unique prefix
// of its command words (btrfs sub del).
func btrfsCommand(e *evaluator, k *call) {
	words := skipOpts(k.args, "", "")
	if len(words) < 2 || infoOnly(words[2:]) || hasWord(words[2:], "--help", "-h") {
		return
	}
	sub, verb := strings.ToLower(words[0].Text), strings.ToLower(words[1].Text)
	if len(sub) >= 2 && strings.HasPrefix("subvolume", sub) && strings.HasPrefix("delete", verb) && len(words) > 2 {
		e.add(RuleDisk, k.match(), "btrfs subvolume delete destroys the subvolumes and every file in them")
	}
}

// lvresizeCommand judges lvresize given a size to take away (-L -10G,
// --size=-10G, -l -100%FREE), which shrinks the volume as lvreduce does.
func lvresizeCommand(e *evaluator, k *call) {
	a := k.args
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		var v string
		switch {
		case t == "-L" || t == "-l" || t == "--size" || t == "--extents":
			if i+1 < len(a) {
				i++
				v = a[i].Text
			}
		case strings.HasPrefix(t, "--size=") || strings.HasPrefix(t, "--extents="):
			_, v, _ = strings.Cut(t, "=")
		case len(t) > 2 && (strings.HasPrefix(t, "-L") || strings.HasPrefix(t, "-l")):
			v = t[2:]
		}
		if strings.HasPrefix(v, "-") {
			e.add(RuleDisk, k.match(), "lvresize %s shrinks the volume, cutting off its file system's end", v)
			return
		}
	}
}

func init() {
	handle(gpartCommand, "gpart")
	handle(diskWiper, "nwipe", "lvreduce")
	handle(bcachefsCommand, "bcachefs")
	handle(scrubCommand, "scrub")
}

// gpartCommand judges FreeBSD's gpart: destroy and delete remove a
// partition table or a partition.
func gpartCommand(e *evaluator, k *call) {
	if len(k.args) > 0 && (k.args[0].Text == "destroy" || k.args[0].Text == "delete") {
		e.add(RuleDisk, k.match(), "gpart %s removes partitions and the file systems on them", k.args[0].Text)
	}
}

// diskWiper judges the tools whose every run destroys disk data: nwipe
// (with no device it offers every disk), lvreduce (shrinking a volume cuts
// off its file system's end).
func diskWiper(e *evaluator, k *call) {
	if infoOnly(k.args) || len(k.args) == 0 && k.name == "lvreduce" {
		return
	}
	e.add(RuleDisk, k.match(), "%s destroys the data on a disk or volume", k.name)
}

// bcachefsCommand judges bcachefs format, a file-system maker.
func bcachefsCommand(e *evaluator, k *call) {
	if len(k.args) > 0 && k.args[0].Text == "format" && !infoOnly(k.args[1:]) {
		e.add(RuleDisk, k.match(), "bcachefs format makes a file system, destroying what the device held")
	}
}

// scrubCommand judges scrub, which overwrites its operands: a device is
// sys.disk, a file is written.
func scrubCommand(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "psXD", "pattern")
	for _, w := range ops {
		e.write(w, k.match(), "overwrites")
	}
}

// endlessStarts reports whether a PowerShell or cmd script starts shells
// in a loop that never ends, as for /l with a step of 0 does: PowerShell's
// while ($true) { ... }, while (1) and for (;;) around Start-Process of a
// shell, Start-Job or a shell run in the background (&); cmd's label that start %0 (or cmd,
// powershell) runs under and goto jumps back to (:a, start %0, goto a).
func endlessStarts(src, sh string) bool {
	low := strings.ToLower(src)
	if !strings.Contains(low, "start") && !strings.Contains(low, "powershell") && !strings.Contains(low, "pwsh") {
		return false
	}
	if sh == PowerShell {
		return psEndlessStart().MatchString(low)
	}
	if !strings.Contains(low, "goto") {
		return false
	}
	for _, m := range cmdLabel().FindAllStringSubmatchIndex(low, 8) {
		label := low[m[2]:m[3]]
		body := low[m[1]:]
		g := cmdGoto().FindAllStringSubmatchIndex(body, 8)
		for _, gm := range g {
			if body[gm[2]:gm[3]] == label && cmdStart().MatchString(body[:gm[0]]) {
				return true
			}
		}
	}
	return false
}

var (
	psEndlessStart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\b(?:while\s*\(\s*(?:\$true|1)\s*\)|for\s*\(\s*;\s*;\s*\))\s*\{[^}]{0,200}(?:\b(?:start-process|saps|start)\s+(?:-filepath\s+)?['"]?(?:powershell|pwsh|cmd)\b|\b(?:start-job|sajb)\b|\b(?:powershell|pwsh)\b[^};]*&)`)
	})
	cmdLabel = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*:([a-z0-9_]+)\b`)
	})
	cmdGoto = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bgoto\s+:?([a-z0-9_]+)\b`)
	})
	cmdStart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bstart\b[^\n&]*?(?:%0|%~f0|\bcmd\b|\bpowershell\b|\bpwsh\b)`)
	})
)
