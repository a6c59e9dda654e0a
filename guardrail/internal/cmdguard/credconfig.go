package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Package managers' and registries' commands that store a credential in a
// configuration file of theirs (pip config set, poetry config http-basic,
// cargo login, uv auth login, bundle config, composer config): the value
// they store is judged as the line they write, in that file, by the edit
// guard's secret rules, as npm config set's and git config's are.

// credentialConfigs maps a command to the judge of its credential
// subcommands.
var credentialConfigs = map[string]func(e *evaluator, ops []shell.Word, v optValues){
	"pip": pipConfig, "pip3": pipConfig,
	"poetry":   poetryConfig,
	"cargo":    cargoLogin,
	"uv":       uvAuthLogin,
	"bundle":   bundleConfig,
	"composer": composerConfig,
}

// credentialConfig judges k when it stores a credential.
func (e *evaluator) credentialConfig(k *call) {
	judge := credentialConfigs[k.name]
	if judge == nil || e.p.Secret == nil {
		return
	}
	_, ops, v := operands(k.args, "u", "registry username password token index-url global-option")
	judge(e, ops, v)
}

// pipConfig: pip config [--global|--user|--site] set KEY VALUE writes
// pip.conf.
func pipConfig(e *evaluator, ops []shell.Word, _ optValues) {
	if len(ops) > 2 && ops[0].Text == "config" && ops[1].Text == "set" {
		e.configSecret("pip.conf", ops[2:], " = ")
	}
}

// poetryConfig: poetry config http-basic.REPO USER PASSWORD, pypi-token.REPO
// TOKEN and other KEY VALUE write poetry's auth.toml or config.toml.
func poetryConfig(e *evaluator, ops []shell.Word, _ optValues) {
	if len(ops) < 3 || ops[0].Text != "config" {
		return
	}
	key := ops[1].Text
	switch {
	case strings.HasPrefix(key, "http-basic.") && len(ops) > 3:
		e.secret(shell.Lit("auth.toml"), "password = "+ops[3].Text)
	case strings.HasPrefix(key, "pypi-token."):
		e.secret(shell.Lit("auth.toml"), "token = "+ops[2].Text)
	default:
		e.configSecret("config.toml", ops[1:], " = ")
	}
}

// cargoLogin: cargo login TOKEN writes ~/.cargo/credentials.toml.
func cargoLogin(e *evaluator, ops []shell.Word, _ optValues) {
	if len(ops) > 1 && ops[0].Text == "login" {
		e.secret(shell.Lit("credentials.toml"), `token = "`+ops[1].Text+`"`)
	}
}

// uvAuthLogin: uv auth login SERVICE --password P or --token T stores them.
func uvAuthLogin(e *evaluator, ops []shell.Word, v optValues) {
	if len(ops) < 2 || ops[0].Text != "auth" || ops[1].Text != "login" {
		return
	}
	if p, ok := v.get("--password"); ok {
		e.secret(shell.Lit("credentials.toml"), "password = "+p.Text)
	}
	if t, ok := v.get("--token"); ok {
		e.secret(shell.Lit("credentials.toml"), "token = "+t.Text)
	}
}

// bundleConfig: bundle config [set] [--global|--local] KEY VALUE writes
// .bundle/config; a gem source's credentials are USER:PASSWORD there.
func bundleConfig(e *evaluator, ops []shell.Word, _ optValues) {
	if len(ops) == 0 || ops[0].Text != "config" {
		return
	}
	ops = ops[1:]
	if len(ops) > 0 && ops[0].Text == "set" {
		ops = ops[1:]
	}
	if len(ops) > 1 {
		e.configSecret(".bundle/config", ops, ": ")
	}
}

// composerConfig: composer config [--global] [--auth] KEY VALUE... writes
// auth.json for github-oauth.HOST TOKEN, gitlab-token.HOST TOKEN,
// bearer.HOST TOKEN and http-basic.HOST USER PASSWORD.
func composerConfig(e *evaluator, ops []shell.Word, _ optValues) {
	if len(ops) < 3 || ops[0].Text != "config" {
		return
	}
	key := ops[1].Text
	if strings.HasPrefix(key, "http-basic.") && len(ops) > 3 {
		e.secret(shell.Lit("auth.json"), `"password": "`+ops[3].Text+`"`)
		return
	}
	e.configSecret("auth.json", ops[1:], " = ")
}
