//go:build !unix

package fsx

import "os"

// syncDir is a no-op where directories cannot be fsynced (Windows: NTFS
// makes renames durable through its journal).
func syncDir(*os.File) error { return nil }
