// Package verifytest is a conformance suite for [verify.Verifier]
// implementations: [Run] checks the contract of the interface (it never
// passes when its command fails, it reports the end of the output, it stops
// promptly with the context's cause, it is safe for concurrent use, it does
// not modify the request) against any verifier, built-in or third-party.
//
// The suite describes each case as a [task.Check] whose run argv is a helper
// program that passes, fails with known output, or hangs; the function under
// test builds a verifier that runs that check. The same check is also in the
// request's Checks, so a verifier that reads its checks from the request
// (like [verify.Acceptance]) can ignore the argument.
//
// Use it from a test of the verifier:
//
//	func TestConformance(t *testing.T) {
//		verifytest.Run(t, func(t testing.TB, c task.Check) verify.Verifier {
//			return myverifier.New(c.Run)
//		})
//	}
//
// Importing the package makes the test binary double as the suite's helper
// program: run with the arguments "harnish-verifytest-helper MODE MARKER" it
// acts out MODE and exits before any test starts.
package verifytest
