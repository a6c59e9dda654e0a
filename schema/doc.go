// Package schema is harnish's shared vocabulary: the values that cross from
// one component to another (what an attempt spent, what a reviewer found, how
// an attempt failed, what a guardrail decided) and the one error type every
// component returns when it cannot do its work.
//
// Each concept is defined here once. The packages that own a component
// ([github.com/harnish/harnish/executor], [github.com/harnish/harnish/verify],
// [github.com/harnish/harnish/loop/policy]) give the same types under their
// own names as aliases, so a value passes from one to another without a
// conversion.
//
// schema imports only pure packages of the standard library: it is a leaf
// that the decision core may import.
package schema

// StateDir is the directory, relative to a working tree's root, where harnish
// keeps a run's state and records. The agent may not write under it.
const StateDir = ".harnish"
