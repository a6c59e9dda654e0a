package shell_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// argvs returns the argv texts of every command of s.
func argvs(s *shell.Script) [][]string {
	var out [][]string
	for _, c := range s.Cmds {
		var argv []string
		for _, a := range c.Args {
			argv = append(argv, a.Text)
		}
		out = append(out, argv)
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		parse func(string) (*shell.Script, error)
		src   string
		want  [][]string
	}{
		{"bash quoting and escapes", shell.ParseBash, `'r'm \-r"f" $'\x2e\u002e' "a\"b" 'c''d'`,
			[][]string{{"rm", "-rf", "..", `a"b`, "cd"}}},
		{"bash variables set in the script", shell.ParseBash, `X="a b"; echo $X "$X" ${X} $Y`,
			[][]string{{"echo", "a", "b", "a b", "a", "b", "$Y"}}},
		{"bash subshell variables do not leak", shell.ParseBash, `(X=1); echo $X`,
			[][]string{{"echo", "$X"}}},
		{"bash brace expansion", shell.ParseBash, `rm -{r,f} x{1..3}`,
			[][]string{{"rm", "-r", "-f", "x1", "x2", "x3"}}},
		{"bash substitutions come first", shell.ParseBash, `echo $(date) <(ls)`,
			[][]string{{"date"}, {"ls"}, {"echo", "$(date)", "<(ls)"}}},
		{"bash pipeline and list", shell.ParseBash, "a | b && c; d &",
			[][]string{{"a"}, {"b"}, {"c"}, {"d"}}},
		{"powershell quoting", shell.ParsePowerShell, "Re`move-Item 'it''s' \"a`tb\" -Recurse:$true",
			[][]string{{"Remove-Item", "it's", "a\tb", "-Recurse:$true"}}},
		{"powershell blocks and pipes", shell.ParsePowerShell, "gci | % { ri $_ -r }; $x = rm y",
			[][]string{{"gci"}, {"ri", "$_", "-r"}, {"%", "{ ri $_ -r }"}, {"rm", "y"}}},
		{"powershell here-string", shell.ParsePowerShell, "@'\nDROP TABLE x\n'@ | psql",
			[][]string{{"DROP TABLE x"}, {"psql"}}},
		{"powershell comments", shell.ParsePowerShell, "ls <# rm -r x #> # rd /s",
			[][]string{{"ls"}}},
		{"cmd carets, quotes and glued options", shell.ParseCmd, `r^d/s/q "a b" & del x,y`,
			[][]string{{"rd", "/s/q", "a b"}, {"del", "x", "y"}}},
		{"cmd groups and comments", shell.ParseCmd, "(echo a) && rem rd /s x\n:: y\n@dir",
			[][]string{{"echo", "a"}, {"dir"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.parse(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, argvs(s)); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseInputs(t *testing.T) {
	s, err := shell.ParseBash("echo a | psql; cat <<'EOF' | sh\nrm x\nEOF\nsh <<< 'ls'; sh < f.sh")
	if err != nil {
		t.Fatal(err)
	}
	type in struct {
		Kind shell.InputKind
		Text string
		From string
	}
	var got []in
	for _, c := range s.Cmds {
		i := in{Kind: c.Stdin.Kind, Text: c.Stdin.Text.Text}
		if c.Stdin.From != nil {
			i.From = c.Stdin.From.Args[0].Text
		}
		got = append(got, i)
	}
	want := []in{
		{}, {Kind: shell.Pipe, From: "echo"},
		{Kind: shell.Text, Text: "rm x\n"}, {Kind: shell.Pipe, From: "cat"},
		{Kind: shell.Text, Text: "ls\n"}, {Kind: shell.File, Text: "f.sh"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		parse func(string) (*shell.Script, error)
		src   string
	}{
		{shell.ParseBash, `echo "x`},
		{shell.ParsePowerShell, `echo 'x`},
		{shell.ParsePowerShell, `(ls`},
		{shell.ParsePowerShell, `ls }`},
		{shell.ParseCmd, `(dir`},
		{shell.ParseCmd, `| dir`},
	} {
		if _, err := tt.parse(tt.src); err == nil {
			t.Errorf("parse %q: no error", tt.src)
		}
	}
}

// TestParseCommandVariables checks what Cmd.Env keeps: every assignment
// before a command (its environment), and alone or by export only those of
// variables holding a command or git configuration.
func TestParseCommandVariables(t *testing.T) {
	s, err := shell.ParseBash(`GIT_SSH_COMMAND='rm -rf x' MSG=hi git fetch; EDITOR=vim; export PAGER=less X=1; Y=2 ls; GIT_CONFIG_COUNT=1; Z=3`)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, c := range s.Cmds {
		var env []string
		for _, w := range c.Env {
			env = append(env, w.Text)
		}
		got = append(got, env)
	}
	want := [][]string{{"GIT_SSH_COMMAND=rm -rf x", "MSG=hi"}, {"EDITOR=vim"}, {"PAGER=less"}, {"Y=2"}, {"GIT_CONFIG_COUNT=1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Env per command (-want +got):\n%s", diff)
	}
	for name, want := range map[string]bool{"GIT_SSH_COMMAND": true, "FZF_DEFAULT_COMMAND": true, "SUDO_ASKPASS": true,
		"MANPAGER": true, "RSYNC_RSH": true, "LESSOPEN": true, "MSG": false, "PATH": false, "EDITOR_CONFIG": false} {
		if got := shell.CommandVariable(name); got != want {
			t.Errorf("CommandVariable(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_KEY_3": true, "EDITOR": true,
		"GIT_DIR": false, "CONFIG_COUNT": false} {
		if got := shell.EnvVariable(name); got != want {
			t.Errorf("EnvVariable(%q) = %v, want %v", name, got, want)
		}
	}
}
