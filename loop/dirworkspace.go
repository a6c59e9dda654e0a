package loop

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/linediff"
)

// DirWorkspace is the [Workspace] of a plain directory, without git.
// Snapshots are manifests (each file's path, git-style mode and SHA-256)
// kept with the files' contents in a content-addressed store; a file's
// content is stored once however many snapshots hold it. Diffs are written
// as git diff writes them, without renames. Its zero value is not usable:
// Dir is required.
//
// Snapshots leave out every ".git" directory, the store itself (and the
// default store, StateDir/snapshots), the transcripts (TranscriptsDir)
// and what is neither a regular file nor a symbolic link. The rest of the
// state directory is in them, as in a [GitWorkspace], so an agent's writes
// there are judged; [DirWorkspace.Restore] leaves it alone.
// Empty directories are not recorded, as in git. A file's mode is recorded
// as git does: executable or not, or a symbolic link (its target, not
// followed).
//
// The store is written without fsync: a snapshot survives the crash of the
// process, not necessarily that of the machine (git's default too). Nothing
// is ever removed from it.
//
// Its methods are safe for concurrent use.
type DirWorkspace struct {
	// Dir is the directory's root.
	Dir string
	// Store is the directory snapshots are kept in; empty means
	// Dir/.harnish/snapshots.
	Store string

	mu sync.Mutex
	// seen is what the last Snapshot found, to skip hashing a file whose
	// size and modification time did not change since.
	seen map[string]seenFile
	// seenAt is when that Snapshot began.
	seenAt time.Time
}

// A manifest is a snapshot: the files of the tree, sorted by path.
type manifest struct {
	Files []manifestFile `json:"files"`
}

type manifestFile struct {
	// Path is slash-separated, relative to the root.
	Path string `json:"path"`
	// Mode is git's: 100644, 100755 or 120000 (a symbolic link, whose
	// content is its target).
	Mode string `json:"mode"`
	// Hash is the SHA-256 of the content, in hex.
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

// The git modes a manifest records.
const (
	modeFile = "100644"
	modeExec = "100755"
	modeLink = "120000"
)

type seenFile struct {
	size  int64
	mtime time.Time
	mode  string
	hash  string
}

// racyWindow is how long before a snapshot began a file's modification
// time must lie for the next snapshot to trust it unchanged when its size
// and time are. A write just after a snapshot may get a time a little
// before it (file systems stamp with a coarse clock), so a file modified
// within the window is hashed again, as git does for "racily clean" files.
const racyWindow = 2 * time.Second

// smallFile is the size up to which a file is read into memory to hash;
// larger ones are streamed.
const smallFile = 64 << 10

// maxLineDiff is the size above which a file's change is not diffed line by
// line but written as all its old lines removed and all new ones added.
const maxLineDiff = 16 << 20

// defaultStore is where snapshots are kept by default, relative to Dir.
const defaultStore = StateDir + "/snapshots"

func (w *DirWorkspace) store() string {
	if w.Store != "" {
		return w.Store
	}
	return filepath.Join(w.Dir, filepath.FromSlash(defaultStore))
}

func (w *DirWorkspace) objectPath(hash string) string {
	return filepath.Join(w.store(), "objects", hash[:2], hash[2:])
}

// Snapshot records the tree and returns the hash of its manifest.
func (w *DirWorkspace) Snapshot(ctx context.Context) (string, error) {
	if w.Dir == "" {
		panic("loop: DirWorkspace.Dir is empty")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	start := time.Now()
	if err := os.MkdirAll(filepath.Join(w.store(), "objects"), 0o755); err != nil {
		return "", fmt.Errorf("loop: snapshot: %w", err)
	}
	skipStore, _ := filepath.Abs(w.store())
	root, err := filepath.Abs(w.Dir)
	if err != nil {
		return "", fmt.Errorf("loop: snapshot: %w", err)
	}
	seen := make(map[string]seenFile, len(w.seen))
	var m manifest
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || path == skipStore || rel == defaultStore || rel == TranscriptsDir {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we walked
		}
		if err != nil {
			return err
		}
		mode := gitMode(info.Mode())
		if mode == "" {
			return nil // a socket, a device, a pipe
		}
		f := seenFile{size: info.Size(), mtime: info.ModTime(), mode: mode}
		if prev, ok := w.seen[rel]; ok && prev.size == f.size && prev.mtime.Equal(f.mtime) &&
			prev.mode == f.mode && f.mtime.Before(w.seenAt.Add(-racyWindow)) {
			f.hash = prev.hash
		} else if f.hash, f.size, err = w.storeFile(path, mode); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		seen[rel] = f
		m.Files = append(m.Files, manifestFile{Path: rel, Mode: mode, Hash: f.hash, Size: f.size})
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("loop: snapshot: %w", err)
	}
	slices.SortFunc(m.Files, func(a, b manifestFile) int { return strings.Compare(a.Path, b.Path) })
	if m.Files == nil {
		m.Files = []manifestFile{}
	}
	data, err := json.Marshal(&m)
	if err != nil {
		return "", fmt.Errorf("loop: snapshot: %w", err)
	}
	id, err := w.storeBytes(data)
	if err != nil {
		return "", fmt.Errorf("loop: snapshot: %w", err)
	}
	w.seen, w.seenAt = seen, start
	return id, nil
}

// gitMode returns the git mode of a file of mode m, or "" for one git does
// not record.
func gitMode(m fs.FileMode) string {
	switch {
	case m.Type() == fs.ModeSymlink:
		return modeLink
	case !m.IsRegular():
		return ""
	case m.Perm()&0o100 != 0:
		return modeExec
	}
	return modeFile
}

// storeFile stores the content of the file at path (a link's target) and
// returns its hash and size.
func (w *DirWorkspace) storeFile(path, mode string) (string, int64, error) {
	if mode == modeLink {
		target, err := os.Readlink(path)
		if err != nil {
			return "", 0, err
		}
		hash, err := w.storeBytes([]byte(filepath.ToSlash(target)))
		return hash, int64(len(target)), err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	buf := make([]byte, smallFile+1)
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		hash, err := w.storeBytes(buf[:n])
		return hash, int64(n), err
	}
	if err != nil {
		return "", 0, err
	}
	// Large: stream it into a temporary object while hashing it.
	tmp, err := os.CreateTemp(filepath.Join(w.store(), "objects"), ".tmp-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	h := sha256.New()
	size, err := io.Copy(io.MultiWriter(h, tmp), io.MultiReader(bytes.NewReader(buf[:n]), f))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	hash := hex.EncodeToString(h.Sum(nil))
	return hash, size, w.keepObject(tmp.Name(), hash)
}

// storeBytes stores data, unless the store has it, and returns its hash.
func (w *DirWorkspace) storeBytes(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if _, err := os.Stat(w.objectPath(hash)); err == nil {
		return hash, nil
	}
	tmp, err := os.CreateTemp(filepath.Join(w.store(), "objects"), ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return hash, w.keepObject(tmp.Name(), hash)
}

// keepObject renames the temporary file tmp to the object hash, unless
// the store has it already.
func (w *DirWorkspace) keepObject(tmp, hash string) error {
	dst := w.objectPath(hash)
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// manifest reads snapshot id.
func (w *DirWorkspace) manifest(id string) (map[string]manifestFile, error) {
	if len(id) != sha256.Size*2 || strings.Trim(id, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("loop: %q is not a snapshot of a DirWorkspace", id)
	}
	data, err := os.ReadFile(w.objectPath(id))
	if err != nil {
		return nil, fmt.Errorf("loop: snapshot %s: %w", id, err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("loop: snapshot %s: %w", id, err)
	}
	files := make(map[string]manifestFile, len(m.Files))
	for _, f := range m.Files {
		files[f.Path] = f
	}
	return files, nil
}

// Diff returns the change from snapshot from to snapshot to as git diff
// prints it (without renames; a file that changes between a regular file
// and a link is deleted and added), with three lines of context.
func (w *DirWorkspace) Diff(ctx context.Context, from, to string) (string, error) {
	if from == to {
		return "", nil
	}
	a, err := w.manifest(from)
	if err != nil {
		return "", err
	}
	b, err := w.manifest(to)
	if err != nil {
		return "", err
	}
	paths := make([]string, 0, len(b))
	for p := range a {
		paths = append(paths, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out strings.Builder
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		oldF, inA := a[p]
		newF, inB := b[p]
		var err error
		switch {
		case inA && inB && oldF == newF:
			continue
		case inA && inB && (oldF.Mode == modeLink) != (newF.Mode == modeLink):
			err = w.diffFile(&out, &oldF, nil)
			if err == nil {
				err = w.diffFile(&out, nil, &newF)
			}
		case !inA:
			err = w.diffFile(&out, nil, &newF)
		case !inB:
			err = w.diffFile(&out, &oldF, nil)
		default:
			err = w.diffFile(&out, &oldF, &newF)
		}
		if err != nil {
			return "", fmt.Errorf("loop: diff %s: %w", p, err)
		}
		if out.Len() > gitx.MaxDiff {
			return "", errors.New("loop: diff: larger than the limit")
		}
	}
	return out.String(), nil
}

// diffFile writes the diff of one file from a to b; a nil side is absent.
func (w *DirWorkspace) diffFile(out *strings.Builder, a, b *manifestFile) error {
	path := b
	if path == nil {
		path = a
	}
	nameA, nameB := quotePath("a/"+path.Path), quotePath("b/"+path.Path)
	fmt.Fprintf(out, "diff --git %s %s\n", nameA, nameB)
	switch {
	case a == nil:
		fmt.Fprintf(out, "new file mode %s\n", b.Mode)
	case b == nil:
		fmt.Fprintf(out, "deleted file mode %s\n", a.Mode)
	case a.Mode != b.Mode:
		fmt.Fprintf(out, "old mode %s\nnew mode %s\n", a.Mode, b.Mode)
	}
	var oldText, newText string
	var err error
	if a != nil {
		if oldText, err = w.object(a.Hash); err != nil {
			return err
		}
	}
	if b != nil {
		if newText, err = w.object(b.Hash); err != nil {
			return err
		}
	}
	if oldText == newText {
		return nil // a mode change, or an empty file added or deleted
	}
	if a == nil {
		nameA = "/dev/null"
	}
	if b == nil {
		nameB = "/dev/null"
	}
	if binary(oldText) || binary(newText) {
		fmt.Fprintf(out, "Binary files %s and %s differ\n", nameA, nameB)
		return nil
	}
	fmt.Fprintf(out, "--- %s%s\n+++ %s%s\n", nameA, tabIfSpace(nameA), nameB, tabIfSpace(nameB))
	if len(oldText) > maxLineDiff || len(newText) > maxLineDiff {
		out.WriteString(linediff.Replaced(oldText, newText))
		return nil
	}
	out.WriteString(linediff.Unified(oldText, newText, 3))
	return nil
}

func (w *DirWorkspace) object(hash string) (string, error) {
	data, err := os.ReadFile(w.objectPath(hash))
	return string(data), err
}

// binary reports whether git would take text for binary: a NUL byte in its
// first 8000 bytes.
func binary(text string) bool {
	return strings.IndexByte(text[:min(len(text), 8000)], 0) >= 0
}

// tabIfSpace is what git writes after a path with a space on the ---
// and +++ lines, so that the path's end is plain.
func tabIfSpace(name string) string {
	if strings.Contains(name, " ") {
		return "\t"
	}
	return ""
}

// quotePath quotes a path as git does with core.quotepath off: in double
// quotes with C escapes when it holds a quote, a backslash or a control
// character; as it is otherwise.
func quotePath(p string) string {
	if !strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '"' || r == '\\' }) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Restore puts back every file of snapshot to that differs in the tree
// (each written atomically: a temporary file renamed over it), removes the
// files current has and to lacks, and the directories that leaves empty.
// Files neither snapshot has are left alone, and so is the state directory.
func (w *DirWorkspace) Restore(ctx context.Context, to, current string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	want, err := w.manifest(to)
	if err != nil {
		return err
	}
	have, err := w.manifest(current)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range sortedKeys(have) {
		if _, keep := want[p]; keep || p == StateDir || strings.HasPrefix(p, StateDir+"/") {
			continue
		}
		full := filepath.Join(w.Dir, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		// Remove the directories that this leaves empty; Remove fails on
		// one that is not.
		for dir := filepath.Dir(p); dir != "."; dir = filepath.Dir(dir) {
			if os.Remove(filepath.Join(w.Dir, filepath.FromSlash(dir))) != nil {
				break
			}
		}
	}
	for _, p := range sortedKeys(want) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.restoreFile(want[p]); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("loop: restore: %w", err)
	}
	return nil
}

func sortedKeys(m map[string]manifestFile) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// restoreFile makes the tree's file f.Path what f says, unless it is.
func (w *DirWorkspace) restoreFile(f manifestFile) error {
	if f.Path == StateDir || strings.HasPrefix(f.Path, StateDir+"/") {
		return nil
	}
	full := filepath.Join(w.Dir, filepath.FromSlash(f.Path))
	info, err := os.Lstat(full)
	same := err == nil && (info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0) && w.sameContent(full, f) // hashed once
	switch {
	case same && gitMode(info.Mode()) == f.Mode:
		return nil
	case same && f.Mode != modeLink && info.Mode().IsRegular():
		return os.Chmod(full, filePerm(f.Mode))
	case err == nil && info.IsDir():
		// A directory where the file was: what is in it came after.
		if err := os.RemoveAll(full); err != nil {
			return err
		}
	}
	// Otherwise (absent, of another kind or content, or under a file that
	// is in the way) it is written afresh.
	if err := w.makeParents(f.Path); err != nil {
		return err
	}
	dir := filepath.Dir(full)
	if f.Mode == modeLink {
		target, err := w.object(f.Hash)
		if err != nil {
			return err
		}
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d", filepath.Base(full), time.Now().UnixNano()))
		if err := os.Symlink(filepath.FromSlash(target), tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, full); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	src, err := os.Open(w.objectPath(f.Hash))
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(full)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Chmod(filePerm(f.Mode))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), full)
}

// makeParents makes the directories of path, replacing what stands in
// their way: a file, or a link (which could lead out of the tree).
func (w *DirWorkspace) makeParents(path string) error {
	dir := w.Dir
	parts := strings.Split(path, "/")
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if err == nil && info.IsDir() {
			continue
		}
		if err == nil {
			if err := os.Remove(dir); err != nil {
				return err
			}
		}
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// sameContent reports whether the file at full has f's content.
func (w *DirWorkspace) sameContent(full string, f manifestFile) bool {
	if f.Mode == modeLink {
		target, err := os.Readlink(full)
		return err == nil && filepath.ToSlash(target) == w.mustObject(f.Hash)
	}
	file, err := os.Open(full)
	if err != nil {
		return false
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || info.Size() != f.Size {
		return false
	}
	if prev, ok := w.seen[f.Path]; ok && prev.size == info.Size() && prev.mtime.Equal(info.ModTime()) &&
		info.ModTime().Before(w.seenAt.Add(-racyWindow)) {
		return prev.hash == f.Hash
	}
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == f.Hash
}

func (w *DirWorkspace) mustObject(hash string) string {
	s, _ := w.object(hash)
	return s
}

func filePerm(mode string) fs.FileMode {
	if mode == modeExec {
		return 0o755
	}
	return 0o644
}
