package shell_test

import (
	"testing"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// The fuzz targets check that no input makes a parser panic or hang, and
// that every command it returns has a source text.

var bashSeeds = []string{
	`GIT_SSH_COMMAND="ssh -i $K" EDITOR='rm -rf x' git fetch; export PAGER=$(x) VISUAL=a; declare -x A_CMD=b; LESSOPEN='|x %s'`,
	`args=(-rf "$x" b); rm "${args[@]}"; set -- a -rf; rm "$@" $* ${args[*]}`,
	"for d in /dev/sd? a b; do dd of=$d; done > log; exec 3>f; echo x >&3",
	"read -r a b <<< 'x y z'; read -a c -d , -p q <<E\nu v\nE\n$a ${c[@]} ${a:-d} ${n:=e} ${m-f} ${a:+g}",
	`rm -rf "$HOME/x" && echo $'\x72m' | sh`,
	"cat <<'EOF' | bash\nrm -rf /\nEOF",
	`X=-rf; rm $X {a,b}/c *.go ~/x`,
	`f() { (cd x; rm -r y) > out; }; for i in $(ls); do eval "$i"; done`,
	`diff <(ls) >(cat) ${x:-$(date)} $((1+2)) [[ -f $(pwd) ]]`,
	"alias a='sudo '; alias b='rm -rf'; a b x; f() { g \"$@\"; }; g() { f \"$1\"; }; f -rf x",
	`declare -n r=c; c=rm; $r -rf x; bash < <(echo rm -rf x); x(){ x|x& }; x`,
}

var psSeeds = []string{
	"Remove-Item -Recurse -Force 'C:\\x' ; gci -r | ri",
	"& $cmd @args 2>&1 > out.txt; $x = \"a`\"b$(Get-Date)\"",
	"@'\nDROP TABLE x\n'@ | psql <# c #> # d",
	"if (Test-Path x) { rm -r x } else { [IO.Directory]::Delete('x', $true) }",
	"cmd /c --% rd /s /q x",
	"$c = 'git'; $d = \"x\"; $e = 'it''s'; $c += 'x'; & $c $d \"$e\\y\"; $f = Get-X; & $f",
	"$p = @{Path='x'; Recurse=$true; Force=1}; Remove-Item @p; . Remove-Item @q",
}

var cmdSeeds = []string{
	`%0|%0 & %~dp0x %~f0|%~ & %* %1%2%`,
	`rd/s/q build & del /s /q "a b" || echo ^& %PATH% !X!`,
	`(cd x && rd /s /q y) > out.txt 2>&1`,
	`for /r %%f in (*.tmp) do del "%%f"`,
	"@echo off\nrem x\n:: y\nif exist x rd /s x",
	`cmd /c "powershell -Command ""rm -r x"""`,
}

func fuzzParser(f *testing.F, seeds []string, parse func(string) (*shell.Script, error)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := parse(src)
		if err != nil {
			return
		}
		for _, c := range s.Cmds {
			if len(c.Args) > 0 && c.Source == "" && src != "" {
				t.Errorf("command %q without a source", c.Args[0].Text)
			}
		}
	})
}

func FuzzParseBash(f *testing.F) { fuzzParser(f, bashSeeds, shell.ParseBash) }
func FuzzParseBashArgs(f *testing.F) {
	fuzzParser(f, bashSeeds, func(src string) (*shell.Script, error) {
		return shell.ParseBashArgs(src, []string{"sh", "-rf", "x", "$(y)"})
	})
}
func FuzzParsePowerShell(f *testing.F) { fuzzParser(f, psSeeds, shell.ParsePowerShell) }
func FuzzParseCmd(f *testing.F)        { fuzzParser(f, cmdSeeds, shell.ParseCmd) }
