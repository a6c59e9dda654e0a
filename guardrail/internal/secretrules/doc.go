// Package secretrules matches gitleaks' default rule set: the provider
// token formats (well over a hundred providers) that the gitleaks project
// maintains as data and updates as providers change formats. The rules are
// imported as data, not as the gitleaks module: gitleaks.json is generated
// from gitleaks' config/gitleaks.toml by ./gen, and carries its source and
// version; LICENSE.gitleaks is its license (MIT, Copyright (c) 2019 Zachary
// Rice).
//
// A [Set] runs the rules on one line at a time, as package guardrail scans
// added lines: a keyword automaton over the lowercased line picks the rules
// whose keywords occur (gitleaks' own prefilter), and only those rules'
// regular expressions run, each compiled the first time it is needed. A
// match counts when its secret has the rule's entropy and no allowlist of
// the rule or of the configuration allows it, with gitleaks' semantics
// (secretGroup or the first non-empty group; regexTarget secret, match or
// line; condition OR or AND).
package secretrules
