package guardrail

// GlobMatch exposes globMatch to the tests.
var GlobMatch = globMatch
