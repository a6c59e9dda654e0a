package guardrail_test

import "testing"

// TestSecretRealCode measures the scanner on the look-alikes real code
// holds (testdata/edits/secrets-realcode.txt) and on their neighbours
// that must stay secrets.
func TestSecretRealCode(t *testing.T) { secretRecall(t, "secrets-realcode.txt") }
