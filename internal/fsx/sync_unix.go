//go:build unix

package fsx

import "os"

func syncDir(d *os.File) error { return d.Sync() }
