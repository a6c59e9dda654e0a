package guardrail_test

import (
	"context"
	"fmt"

	"github.com/harnish/harnish/guardrail"
)

// The loop judges the whole git diff of an attempt with CheckEdit, which
// returns every decision; hooks judge one edit with Check.
func ExampleEditGuard_CheckEdit() {
	g, err := guardrail.NewEditGuard(guardrail.EditConfig{
		Protected: guardrail.NewProtected("go.sum"),
		Scope:     map[string][]string{"T1": {"calc/"}},
		TDD:       guardrail.TDDConfig{Level: guardrail.Soft},
	})
	if err != nil {
		panic(err)
	}
	diff := `diff --git a/calc/calc.go b/calc/calc.go
--- a/calc/calc.go
+++ b/calc/calc.go
@@ -1,3 +1,4 @@
 package calc
 
+const apiKey = "sk_live_f7EbsDe0G9Cryn687neLfjVH"
 func Add(a, b int) int { return a + b }
diff --git a/go.sum b/go.sum
deleted file mode 100644
--- a/go.sum
+++ /dev/null
@@ -1 +0,0 @@
-example.com/m v1.0.0 h1:abc=
`
	ds, err := g.CheckEdit(context.Background(), guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: "T1"})
	if err != nil {
		panic(err)
	}
	for _, d := range ds {
		fmt.Println(d)
	}
	// Output:
	// hard edit.secret.stripe-access-token calc/calc.go:3: Stripe access token added (sk_l***); read credentials from the environment or a secret store instead
	// soft edit.tdd calc/calc.go: product file changed without its test; write the test first (calc/calc_test.go, calc/test/calc_test.go, calc/tests/calc_test.go and 7 more)
	// hard edit.protected go.sum: go.sum is protected (under "go.sum"); no change may delete it
	// soft edit.scope go.sum: go.sum is outside the declared files of task T1 (calc/)
}
