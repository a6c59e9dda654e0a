package guardrail

// GlobMatch exposes globMatch to the tests.
var GlobMatch = globMatch

// ScanKeywords runs the secret scan's keyword pass alone over text and
// returns how many keyword ends it reported.
func ScanKeywords(text string) int {
	n := 0
	triggers().kw.Scan(text, func(gs []uint16, _ int) { n += len(gs) })
	return n
}
