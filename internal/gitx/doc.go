// Package gitx drives real git for harnish.
//
// It reads a working tree without touching the repository's index, HEAD or
// refs: a snapshot ([Snapshot]) is a tree object written from a private
// index, and a diff ([Diff]) compares two snapshots. It also makes harnish's
// branches and commits, in a way that survives a crash: a commit is found
// again by its trailers ([FindCommit]) rather than made twice, and the lock
// files a killed git leaves behind are recognised ([ErrLocked]) and removed
// once provably stale ([ClearStaleLocks]).
//
// Every failure of git is an [*Error] holding the end of git's stderr, which
// its message includes.
package gitx
