// Package shell turns a command line of bash, PowerShell or cmd into a
// [Script]: the simple commands it runs, each as argv words with quoting and
// escapes resolved, with its redirections and what feeds its standard input.
//
// It parses; it never runs anything and never reads the file system or the
// environment. What cannot be known without running (a variable set outside
// the script, a command substitution's output) stays in the word as written
// and marks it dynamic, so the rules in package guardrail can fail closed on
// it. Bash is parsed with mvdan.cc/sh/v3; PowerShell and cmd have small
// tokenizers of their own that know their quoting, escapes, separators,
// redirections and blocks, and no more.
package shell
