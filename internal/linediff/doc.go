// Package linediff computes the difference of two texts line by line and
// writes it as the hunks of a unified diff, as git diff prints them. It is
// pure (no I/O), for workspaces that diff files without git
// (loop.DirWorkspace).
//
// The algorithm is Myers' O(ND) difference in linear space (divide and
// conquer on the middle snake), so the diff is minimal. Its cost is
// bounded: past a fixed amount of work, what is left of a region is
// reported as all removed and all added, a correct but not minimal diff.
package linediff
