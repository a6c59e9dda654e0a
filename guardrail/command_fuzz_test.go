package guardrail_test

import (
	"testing"

	"github.com/harnish/harnish/guardrail"
)

// FuzzCommandGuard checks that no command line, in any of the three shells,
// makes the command guard panic or fail: a panic would already be a hard
// decision through Evaluate, but it must not happen.
func FuzzCommandGuard(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(string(c.shell), c.command)
	}
	g := corpusGuard(f)
	f.Fuzz(func(t *testing.T, sh, command string) {
		switch guardrail.Shell(sh) {
		case guardrail.ShellBash, guardrail.ShellPowerShell, guardrail.ShellCmd:
		default:
			sh = string(guardrail.ShellBash)
		}
		if _, err := g.CheckCommand(t.Context(), guardrail.Action{Kind: guardrail.KindCommand, Shell: guardrail.Shell(sh), Command: command}); err != nil {
			t.Errorf("CheckCommand(%s, %q) error: %v", sh, command, err)
		}
	})
}
