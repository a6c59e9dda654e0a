// Package proc runs the programs harnish's checks, reviewers and tools are
// made of, and only those: an argv, never a shell unless the caller asks for
// one by running "sh -c" itself.
//
// [Run] confines the working directory to the repository root (no "..", no
// absolute path outside it, no symlink leading out), bounds the run by the
// shorter of a per-command timeout and the caller's context, and on either
// ends the whole process tree: on Unix the command runs in a process group of
// its own, which gets SIGTERM, then SIGKILL after a grace period; on Windows
// the command is put in a Job Object that is terminated. A grandchild holding
// the output pipe cannot hang the caller: once the command has exited (or been
// told to), Run waits at most the grace period for its output to close.
//
// The tree dies with this process too, even on SIGKILL: on Unix each group
// is led by a watchdog shell that kills it when a pipe only this process
// holds reads EOF ([Group]); a Windows job is killed when its last handle
// closes. What escapes anyway (a daemon that called setsid, say) is found
// after a crash by [KillStrays], through the run's mark [EnvRun] that every
// child inherits.
//
// Output is kept in constant memory: the last [TailChars] characters of
// stdout, of stderr, and of both interleaved, each in a ring buffer ([Tail]).
// A caller that needs the whole stream (a go test -json parser) passes its
// own writer as [Spec.Stdout].
//
// Every child gets [EnvGuard]=1 in its environment, so a program that would
// start a verification of its own (harnish's stop hook, say) can tell it is
// already inside one.
//
// A failure is an [*Error] carrying the diagnostics a person needs: the
// stage, the argv with secrets masked ([MaskArgv]), the directory, the exit
// code and the tails.
package proc
