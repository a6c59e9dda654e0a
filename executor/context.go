package executor

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"unicode/utf8"
)

// ContextFile is a file of the project's own context (AGENTS.md, a design
// note) put into every prompt, as the plan's context field names it.
type ContextFile struct {
	Path string
	Text string
}

// Limits of [ReadContext]: what one file and all of them may put into a
// prompt, before the prompt budget trims.
const (
	MaxContextFile  = 32 << 10
	MaxContextFiles = 32
)

// ReadContext reads the files patterns name in fsys (the working tree), in
// the patterns' order, each file once, for [PromptParts.Context]: a pattern
// is a path or a glob (path.Match syntax, slash-separated, relative to the
// tree). A file longer than MaxContextFile keeps its start and says so; past
// MaxContextFiles files, the rest are left out. missing lists the patterns
// that named nothing; a file that cannot be read is left out too.
func ReadContext(fsys fs.FS, patterns []string) (files []ContextFile, missing []string) {
	seen := map[string]bool{}
	for _, p := range patterns {
		names, err := fs.Glob(fsys, path.Clean(p))
		if err != nil || len(names) == 0 {
			missing = append(missing, p)
			continue
		}
		slices.Sort(names)
		for _, name := range names {
			if seen[name] || len(files) == MaxContextFiles {
				continue
			}
			seen[name] = true
			if text, ok := readBounded(fsys, name); ok {
				files = append(files, ContextFile{Path: name, Text: text})
			}
		}
	}
	return files, missing
}

// readBounded reads the start of a regular file, at most MaxContextFile
// bytes, cut at a character boundary.
func readBounded(fsys fs.FS, name string) (string, bool) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	buf := make([]byte, MaxContextFile+1)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", false
	}
	if n <= MaxContextFile {
		return string(buf[:n]), true
	}
	cut := MaxContextFile // buf[cut] is the first byte left out
	for i := 0; i < utf8.UTFMax && cut > 0 && !utf8.RuneStart(buf[cut]); i++ {
		cut--
	}
	return string(buf[:cut]) + "\n[… the rest of the file is left out]\n", true
}
