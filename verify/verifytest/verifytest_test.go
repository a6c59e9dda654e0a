package verifytest_test

import (
	"testing"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
	"github.com/harnish/harnish/verify/verifytest"
)

func TestAcceptance(t *testing.T) {
	verifytest.Run(t, func(testing.TB, task.Check) verify.Verifier { return verify.Acceptance{} })
}

func TestFromCheck(t *testing.T) {
	verifytest.Run(t, func(t testing.TB, c task.Check) verify.Verifier {
		v, err := verify.FromCheck(c)
		if err != nil {
			t.Fatal(err)
		}
		return v
	})
}

func TestSequence(t *testing.T) {
	verifytest.Run(t, func(t testing.TB, c task.Check) verify.Verifier {
		pass := &verify.Command{Argv: []string{"go", "version"}}
		v, err := verify.FromCheck(c)
		if err != nil {
			t.Fatal(err)
		}
		return verify.Sequence{pass, v}
	})
}
