package fsx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile replaces path with data atomically and durably: a temporary file in
// the same directory, fsync, rename, fsync of the directory.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, true)
}

// ReplaceFile replaces path with data atomically but without fsync: a reader
// sees the old content or the new, never a mix, and a crash of the process
// leaves one or the other; a crash of the machine may lose the new content.
// It is for files derived from a durable record, such as reports.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, false)
}

func replace(path string, data []byte, perm os.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+replaceTemp+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory, making renames and creations in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = syncDir(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// replaceTemp marks the temporary files ReplaceFile and WriteFile write
// beside their target: ".NAME.tmp-RANDOM".
const replaceTemp = ".tmp-"

// IsReplaceTemp reports whether name is one of those temporary files, which
// a crash during a write leaves behind; its owner may remove it once no
// write of its own is under way.
func IsReplaceTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, replaceTemp)
}
