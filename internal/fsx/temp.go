package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// MkdirTempOwned is os.MkdirTemp with this process's ID in the name,
// prefix + PID + "-" + random, so that [SweepTemp] can tell when its owner
// is gone. An empty dir means os.TempDir(). The first call for a dir and
// prefix in a process sweeps what dead owners left there first.
func MkdirTempOwned(dir, prefix string) (string, error) {
	sweepOnce(dir, prefix)
	return os.MkdirTemp(dir, owned(prefix))
}

// CreateTempOwned is os.CreateTemp named, and sweeping, as [MkdirTempOwned].
func CreateTempOwned(dir, prefix string) (*os.File, error) {
	sweepOnce(dir, prefix)
	return os.CreateTemp(dir, owned(prefix))
}

// swept holds, per dir and prefix, the sweep a process does once.
var swept sync.Map // [2]string -> func()

func sweepOnce(dir, prefix string) {
	f, _ := swept.LoadOrStore([2]string{dir, prefix}, sync.OnceFunc(func() { _ = SweepTemp(dir, prefix) }))
	f.(func())()
}

func owned(prefix string) string { return prefix + strconv.Itoa(os.Getpid()) + "-*" }

// SweepTemp removes the entries of dir (empty: os.TempDir()) that
// [MkdirTempOwned] or [CreateTempOwned] made with prefix for a process that
// is no longer alive, such as one killed before it could clean up (a file
// made beside one, index + ".lock" say, goes too). An entry whose owner is
// alive, or that is not named so, is left alone. It costs one read of dir.
//
// An ID is only known within its PID namespace: processes that share dir
// across namespaces (containers with one temp directory) must not sweep it.
// A reused ID keeps a leftover until that process ends too.
func SweepTemp(dir, prefix string) error {
	if dir == "" {
		dir = os.TempDir()
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	self := os.Getpid()
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, prefix)
		digits, _, ok2 := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if !ok || !ok2 || err != nil || strings.Trim(digits, "0123456789") != "" || pid <= 0 || pid == self || alive(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
