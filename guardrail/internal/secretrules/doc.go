// Package secretrules matches gitleaks' default rule set: the provider
// token formats (well over a hundred providers) that the gitleaks project
// maintains as data and updates as providers change formats. The rules are
// imported as data, not as the gitleaks module: gitleaks.json is generated
// from gitleaks' config/gitleaks.toml by ./gen, and carries its source and
// version; LICENSE.gitleaks is its license (MIT, Copyright (c) 2019 Zachary
// Rice). The package compiles in rules_gen.go, the same data as Go source
// with each rule's head filter and each path pattern's literal derived
// (go generate; TestGenerated fails when it is stale), so a process that
// judges one edit decodes and parses nothing before a line needs it.
//
// A [Set] runs the rules on one line at a time, as package guardrail scans
// added lines: a keyword automaton over the lowercased line picks the rules
// whose keywords occur (gitleaks' own prefilter), and only those rules'
// regular expressions run, each compiled the first time a line passes its
// head filter. A match counts when its secret has the rule's entropy and
// no allowlist of the rule or of the configuration allows it, with
// gitleaks' semantics (secretGroup or the first non-empty group;
// regexTarget secret, match or line; condition OR or AND). An allowlist's
// patterns are compiled when it first judges a match, a path pattern's
// when a path first holds its literal.
package secretrules

//go:generate go run ./gen -go -i gitleaks.json -o rules_gen.go
