package guardrail_test

import (
	"context"
	"fmt"

	"github.com/harnish/harnish/guardrail"
)

// The command guard parses a command line, so obfuscated spellings are caught
// and text that only mentions danger is not.
func ExampleCommandGuard() {
	g, err := guardrail.NewCommandGuard(guardrail.CommandConfig{
		Protected: guardrail.NewProtected("secrets/"),
		Packages:  map[string][]string{"npm": {"zod"}},
		Root:      "/repo",
	})
	if err != nil {
		panic(err)
	}
	for _, a := range []guardrail.Action{
		{Kind: guardrail.KindCommand, Command: `echo "rm -rf /"; git commit -m "no force push"`},
		{Kind: guardrail.KindCommand, Command: `sudo env X=1 'r'm -f\r build`},
		{Kind: guardrail.KindCommand, Command: `bash -c "git push origin +main"`},
		{Kind: guardrail.KindCommand, Command: `npm install zod && npm install left-pad`},
		{Kind: guardrail.KindCommand, Shell: guardrail.ShellPowerShell, Command: `ri .\secrets\prod.env`},
		{Kind: guardrail.KindCommand, Shell: guardrail.ShellCmd, Command: `rd/s/q build`},
	} {
		d := guardrail.Evaluate(context.Background(), g, a)
		if d.Level == guardrail.Allow {
			fmt.Println("allow")
			continue
		}
		fmt.Printf("%s %s: %s\n", d.Level, d.Rule, d.Match)
	}
	// Output:
	// allow
	// hard fs.recursive-delete: sudo env X=1 'r'm -f\r build
	// hard git.force-push: git push origin +main
	// hard pkg.install: npm install left-pad
	// hard fs.protected: ri .\secrets\prod.env
	// hard fs.recursive-delete: rd/s/q build
}
