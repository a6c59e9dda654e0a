// Package fsx holds the file-system primitives harnish's durable state is
// built on: crash-safe atomic replacement of a file, directory fsync, and an
// exclusive advisory lock on a file; writing a program that can be run
// at once while other goroutines start processes ([NoFork]); and temporary
// files and directories named for their owning process ([MkdirTempOwned]),
// so that what a killed process left is swept later ([SweepTemp]).
//
// Crash safety here means the POSIX recipe: write a temporary file in the same
// directory, fsync it, rename it over the target, fsync the directory. After
// WriteFile returns, either the old or the new content survives a crash, never
// a mix, and the new content survives once it has returned.
package fsx
