package guardrail_test

import (
	"context"
	"testing"

	"github.com/harnish/harnish/guardrail"
)

// With RefuseInteractive, a shell or REPL started without a script is
// hard, however it is wrapped or chained; one that is given its commands
// (-c, a script, a pipe, a file, a here-document) or only prints its
// version is not. Without it, none is.
func TestCommandRefuseInteractive(t *testing.T) {
	refusing, err := guardrail.NewCommandGuard(guardrail.CommandConfig{RefuseInteractive: true})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := guardrail.NewCommandGuard(guardrail.CommandConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd     string
		refused bool
	}{
		{"bash", true},
		{"'bash'", true},
		{"/usr/bin/env python3 -i", true},
		{"sudo bash", true},
		{"timeout 600 python3", true},
		{"nohup sh", true},
		{"env -i bash", true},
		{"cd /tmp && python3", true},
		{"bash -v", true},
		{"R", true},
		{"bash -c 'ls'", false},
		{"bash build.sh", false},
		{"python3 -c 'print(1)'", false},
		{"python3 --version", false},
		{"node -v", false},
		{"sh < steps.sh", false},
		{"echo ls | bash", false},
		{"bash <<'EOF'\nls\nEOF", false},
		{"bash $SCRIPT", false},
		{"ls -la", false},
	}
	ctx := context.Background()
	for _, tt := range tests {
		a := guardrail.Action{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: tt.cmd}
		d, err := refusing.Check(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if refused := d.Level == guardrail.Hard && d.Rule == guardrail.RuleInteractive; refused != tt.refused {
			t.Errorf("%q: %+v, want refused %v", tt.cmd, d, tt.refused)
		}
		if d, _ := plain.Check(ctx, a); d.Rule == guardrail.RuleInteractive {
			t.Errorf("%q refused without RefuseInteractive", tt.cmd)
		}
	}
}
