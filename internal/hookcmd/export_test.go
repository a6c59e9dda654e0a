package hookcmd

import (
	"io"

	"github.com/harnish/harnish/guardrail"
)

// What the tests of package hookcmd_test reach inside.
var ApplyPatchPaths = applyPatchPaths

const MaxStopRefusals = maxStopRefusals

// DecodeHookInput decodes a PreToolUse call and returns the actions it asks
// for, with the working directory it names ("" when it names none).
func DecodeHookInput(r io.Reader) ([]guardrail.Action, string, error) {
	acts, in, err := decodeHookCall(r)
	return acts, in.Cwd, err
}
