package guardrail_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
)

func TestInstalls(t *testing.T) {
	install := func(eco, pkg string) guardrail.Action {
		return guardrail.Action{Kind: guardrail.KindInstall, Ecosystem: eco, Package: pkg, Task: "T1"}
	}
	tests := []struct {
		name  string
		shell guardrail.Shell
		cmd   string
		want  []guardrail.Action
	}{
		{name: "none", cmd: "go test ./..."},
		{name: "one", cmd: "pip install requests", want: []guardrail.Action{install("pypi", "requests")}},
		{name: "in order, through wrappers", cmd: "npm i zod left-pad && sudo bash -c 'go get github.com/google/go-cmp@v0.7.0'",
			want: []guardrail.Action{install("npm", "zod"), install("npm", "left-pad"), install("go", "github.com/google/go-cmp")}},
		{name: "what the repository declares", cmd: "npm ci && pip install -r requirements.txt"},
		{name: "known only at run time", cmd: `pip install "$PKG"`},
		{name: "powershell", shell: guardrail.ShellPowerShell, cmd: "Install-Module PSReadLine",
			want: []guardrail.Action{install("psgallery", "PSReadLine")}},
		{name: "unknown shell", shell: "fish", cmd: "pip install requests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := guardrail.Installs(guardrail.Action{Kind: guardrail.KindCommand, Shell: tt.shell, Command: tt.cmd, Task: "T1"})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Installs(%q) (-want +got):\n%s", tt.cmd, diff)
			}
		})
	}
	if got := guardrail.Installs(guardrail.Action{Kind: guardrail.KindEdit, Path: "go.mod"}); got != nil {
		t.Errorf("Installs of an edit = %v, want nil", got)
	}
}
