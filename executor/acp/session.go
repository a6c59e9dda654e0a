package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
)

// The rules of the violations the executor itself makes.
const (
	// RuleUnguarded: a command or an edit the session's updates show that
	// harnish neither was asked about nor carried out itself.
	RuleUnguarded = "acp.unguarded"
	// RuleUnjudged: a tool call harnish was asked about but could not judge
	// (a command it cannot read); guardrails fail closed.
	RuleUnjudged = "acp.unjudged"
	// RuleOutside: a file write outside the working tree.
	RuleOutside = "acp.outside-tree"
)

// MaxFile bounds a file harnish reads or writes for the agent, in bytes.
const MaxFile = 16 << 20

// session is harnish's side of one ACP session: the acp.Client the SDK
// calls, and what the attempt learns from it. Its methods run on the SDK's
// goroutines: requests concurrently, notifications in order.
type session struct {
	root    string
	tree    *os.Root
	guard   guardrail.Guardrail
	taskID  string
	profile Profile
	terms   *terminals
	bar     *barrier // the agent's order between updates and permission requests
	// watch is told each command call that ended; may be nil.
	watch func(executor.Activity)

	stopOnce sync.Once
	stopped  chan struct{} // closed on the first hard violation

	mu         sync.Mutex
	calls      map[acpsdk.ToolCallId]*toolCall
	order      []acpsdk.ToolCallId
	text       boundedText // the agent's messages
	final      boundedText // the message since the last tool call
	plan       []acpsdk.PlanEntry
	commands   []string
	files      []string
	written    map[string]bool // absolute paths written through fs/write_text_file
	violations []executor.Violation
	seen       map[executor.Violation]bool
	usage      executor.Usage
	costUSD    float64 // the last cumulative cost a usage_update reported
	updates    int     // session updates of the turn that carry output
}

// toolCall is what the session knows of one tool call.
type toolCall struct {
	kind      acpsdk.ToolKind
	title     string
	rawInput  any
	content   []acpsdk.ToolCallContent
	locations []acpsdk.ToolCallLocation
	status    acpsdk.ToolCallStatus
	asked     bool // a permission request named it
	mediated  bool // a terminal of harnish's ran it
}

func newSession(root string, tree *os.Root, g guardrail.Guardrail, taskID string, p Profile, terms *terminals) *session {
	return &session{root: root, tree: tree, guard: g, taskID: taskID, profile: p, terms: terms, bar: newBarrier(),
		stopped: make(chan struct{}), calls: map[acpsdk.ToolCallId]*toolCall{},
		written: map[string]bool{}, seen: map[executor.Violation]bool{}}
}

var _ acpsdk.Client = (*session)(nil)

// record adds a violation once.
func (s *session) record(v executor.Violation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[v] {
		return
	}
	s.seen[v] = true
	s.violations = append(s.violations, v)
	if v.Hard {
		s.stopOnce.Do(func() { close(s.stopped) })
	}
}

// judge runs the guardrail over acts and records every decision that is
// not an allow; it returns the first hard one, if any.
func (s *session) judge(ctx context.Context, acts []guardrail.Action) *executor.Violation {
	var hard *executor.Violation
	for _, a := range acts {
		a.Task = s.taskID
		action := a.Command
		if a.Kind == guardrail.KindEdit {
			action = a.Path
		}
		for _, d := range guardrail.EvaluateAll(ctx, s.guard, a) {
			v := executor.Violation{Hard: d.Level >= guardrail.Hard, Rule: d.Rule, Reason: d.Reason, Action: action}
			s.record(v)
			if v.Hard && hard == nil {
				hard = &v
			}
		}
	}
	return hard
}

func blockedError(v *executor.Violation) error {
	return acpsdk.NewInvalidRequest(map[string]any{
		"error": fmt.Sprintf("harnish guardrail %s blocked this: %s", v.Rule, v.Reason)})
}

// RequestPermission judges the tool call the agent asks about.
func (s *session) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	s.bar.wait(ctx, p.ToolCall.ToolCallId)
	s.mu.Lock()
	c := s.call(p.ToolCall.ToolCallId)
	c.merge(p.ToolCall.Kind, p.ToolCall.Title, p.ToolCall.RawInput, p.ToolCall.Content, p.ToolCall.Locations, nil)
	c.asked = true
	snapshot := *c
	s.mu.Unlock()

	acts, err := s.actions(&snapshot)
	var hard *executor.Violation
	if err != nil {
		v := executor.Violation{Hard: true, Rule: RuleUnjudged, Reason: err.Error(), Action: snapshot.describe()}
		s.record(v)
		hard = &v
	} else {
		hard = s.judge(ctx, acts)
	}
	if hard != nil {
		return reject(p.Options), nil
	}
	for _, a := range acts {
		if a.Kind == guardrail.KindCommand {
			s.addCommand(a.Command)
		}
	}
	return allow(p.Options), nil
}

// MaxCommands bounds the commands an attempt records.
const MaxCommands = 10000

func (s *session) addCommand(c string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.commands) < MaxCommands {
		s.commands = append(s.commands, c)
	}
}

// allow picks the option that allows this call once: never "always", which
// would let the agent skip asking next time.
func allow(opts []acpsdk.PermissionOption) acpsdk.RequestPermissionResponse {
	for _, kind := range []acpsdk.PermissionOptionKind{acpsdk.PermissionOptionKindAllowOnce, acpsdk.PermissionOptionKindAllowAlways} {
		for _, o := range opts {
			if o.Kind == kind {
				return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{
					Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}
			}
		}
	}
	return reject(opts) // nothing to allow with
}

func reject(opts []acpsdk.PermissionOption) acpsdk.RequestPermissionResponse {
	for _, kind := range []acpsdk.PermissionOptionKind{acpsdk.PermissionOptionKindRejectOnce, acpsdk.PermissionOptionKindRejectAlways} {
		for _, o := range opts {
			if o.Kind == kind {
				return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{
					Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}
			}
		}
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{
		Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}}
}

// MaxText bounds the agent's messages an attempt keeps, in bytes: the end
// of them, where a final message and a blocked claim are.
const MaxText = 1 << 20

// boundedText keeps the last MaxText bytes of what is added to it.
type boundedText struct{ b []byte }

func (t *boundedText) add(s string) {
	t.b = append(t.b, s...)
	if over := len(t.b) - MaxText; over > 0 {
		for over < len(t.b) && t.b[over]&0xC0 == 0x80 {
			over++ // a character boundary
		}
		t.b = append(t.b[:0], t.b[over:]...)
	}
}

func (t *boundedText) reset()         { t.b = t.b[:0] }
func (t *boundedText) String() string { return string(t.b) }

// call returns the state of the tool call id, made on first sight; s.mu is
// held.
func (s *session) call(id acpsdk.ToolCallId) *toolCall {
	c := s.calls[id]
	if c == nil {
		c = &toolCall{}
		s.calls[id] = c
		s.order = append(s.order, id)
	}
	return c
}

func (c *toolCall) merge(kind *acpsdk.ToolKind, title *string, raw any, content []acpsdk.ToolCallContent,
	locs []acpsdk.ToolCallLocation, status *acpsdk.ToolCallStatus) {
	if kind != nil && *kind != "" {
		c.kind = *kind
	}
	if title != nil && *title != "" {
		c.title = *title
	}
	if raw != nil {
		c.rawInput = raw
	}
	if content != nil {
		c.content = content
	}
	if locs != nil {
		c.locations = locs
	}
	if status != nil && *status != "" {
		c.status = *status
	}
}

// describe names the call for a violation.
func (c *toolCall) describe() string {
	if c.title != "" {
		return c.title
	}
	return string(c.kind)
}

// ran reports whether the call got as far as running.
func (c *toolCall) ran() bool {
	return c.status == acpsdk.ToolCallStatusInProgress || c.status == acpsdk.ToolCallStatusCompleted ||
		c.status == acpsdk.ToolCallStatusFailed
}

// changes reports whether a call of this kind changes the tree or runs
// something: the calls harnish judges.
func changes(k acpsdk.ToolKind) bool {
	return k == acpsdk.ToolKindExecute || k == acpsdk.ToolKindEdit || k == acpsdk.ToolKindDelete || k == acpsdk.ToolKindMove
}

// SessionUpdate follows the turn: messages, tool calls, plan, usage.
func (s *session) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	defer s.bar.took()
	u := n.Update
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			s.text.add(t.Text)
			s.final.add(t.Text)
			s.updates++
		}
	case u.ToolCall != nil:
		tc := u.ToolCall
		c := s.call(tc.ToolCallId)
		c.merge(&tc.Kind, &tc.Title, tc.RawInput, tc.Content, tc.Locations, &tc.Status)
		s.final.reset()
		s.updates++
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		c := s.call(tc.ToolCallId)
		was := c.status
		c.merge(tc.Kind, tc.Title, tc.RawInput, tc.Content, tc.Locations, tc.Status)
		s.final.reset()
		s.updates++
		if ended := c.status == acpsdk.ToolCallStatusCompleted || c.status == acpsdk.ToolCallStatusFailed; ended && was != c.status &&
			c.kind == acpsdk.ToolKindExecute && s.watch != nil {
			cmd := rawCommand(c.rawInput)
			if cmd == "" {
				cmd = c.title
			}
			out, _ := json.Marshal(tc.RawOutput)
			s.watch(executor.Activity{Command: cmd, Result: string(c.status) + "\n" + string(out) + "\n" + s.contentText(c.content)})
		}
	case u.Plan != nil:
		s.plan = u.Plan.Entries
	case u.UsageUpdate != nil:
		if c := u.UsageUpdate.Cost; c != nil && strings.EqualFold(c.Currency, "USD") {
			s.costUSD = c.Amount
		}
	}
	return nil
}

// unguarded returns a hard violation for each call that changes the tree
// or runs something, ran, and that harnish was neither asked about nor
// carried out: an edit whose every file went through fs/write_text_file
// was carried out by harnish, and so was a command of a terminal of
// harnish's, each terminal standing for one call. A call of another kind
// that ran a command unasked (Codex runs what it deems read-only, such as
// ls, without asking and reports it as a read or a search) is judged after
// the fact: one the guardrail would not have allowed ran unguarded too.
func (s *session) unguarded(ctx context.Context) []executor.Violation {
	type unasked struct {
		c   toolCall
		cmd string
	}
	var suspects []unasked
	var out []executor.Violation
	s.mu.Lock()
	terminals := s.terms.count()
	for _, id := range s.order {
		c := s.calls[id]
		if c.asked || !c.ran() {
			continue
		}
		switch {
		case c.kind == acpsdk.ToolKindExecute && terminals > 0:
			terminals--
		case changes(c.kind) && c.kind != acpsdk.ToolKindExecute && len(c.locations) > 0 && s.allWritten(c.locations):
		case changes(c.kind):
			out = append(out, executor.Violation{Hard: true, Rule: RuleUnguarded, Action: c.describe(),
				Reason: fmt.Sprintf("the agent ran a tool call of kind %s without asking harnish and not through harnish", c.kind)})
		default:
			if cmd := rawCommand(c.rawInput); cmd != "" {
				suspects = append(suspects, unasked{*c, cmd})
			}
		}
	}
	s.mu.Unlock()
	for _, u := range suspects {
		ds := guardrail.EvaluateAll(ctx, s.guard, guardrail.Action{Kind: guardrail.KindCommand, Command: u.cmd, Task: s.taskID})
		if len(ds) > 0 {
			out = append(out, executor.Violation{Hard: true, Rule: RuleUnguarded, Action: u.cmd,
				Reason: fmt.Sprintf("the agent ran a command without asking harnish (a tool call of kind %s) that harnish would not have allowed: %s: %s",
					u.c.kind, ds[0].Rule, ds[0].Reason)})
		}
	}
	return out
}

func (s *session) allWritten(locs []acpsdk.ToolCallLocation) bool {
	for _, l := range locs {
		if !s.written[filepath.Clean(l.Path)] {
			return false
		}
	}
	return true
}

// rel returns path relative to the working tree, slash-separated, or an
// error when it is outside it.
func (s *session) rel(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("acp: %q is not an absolute path", path)
	}
	rel, err := filepath.Rel(s.root, filepath.Clean(path))
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("acp: %s is outside the working tree %s", path, s.root)
	}
	return filepath.ToSlash(rel), nil
}

// ReadTextFile reads a file of the working tree for the agent. A missing
// file reads as empty, as Gemini CLI needs to write a new one.
func (s *session) ReadTextFile(_ context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	rel, err := s.rel(p.Path)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	content, _, err := s.readFile(rel)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return acpsdk.ReadTextFileResponse{Content: lines(content, p.Line, p.Limit)}, nil
}

// readFile reads rel in the tree; a missing file is "", false.
func (s *session) readFile(rel string) (string, bool, error) {
	f, err := s.tree.Open(filepath.FromSlash(rel))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	if !st.Mode().IsRegular() {
		return "", false, fmt.Errorf("acp: %s is not a regular file", rel)
	}
	if st.Size() > MaxFile {
		return "", false, fmt.Errorf("acp: %s is larger than %d bytes", rel, MaxFile)
	}
	b := make([]byte, st.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && n != len(b) {
		return "", false, err
	}
	return string(b[:n]), true, nil
}

// lines returns limit lines of s from the 1-based line (nil: all).
func lines(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	ls := strings.SplitAfter(s, "\n")
	from := 0
	if line != nil && *line > 1 {
		from = min(*line-1, len(ls))
	}
	to := len(ls)
	if limit != nil && *limit >= 0 {
		to = min(from+*limit, len(ls))
	}
	return strings.Join(ls[from:to], "")
}

// WriteTextFile judges the write's new content, then writes it in the
// working tree.
func (s *session) WriteTextFile(ctx context.Context, p acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	rel, err := s.rel(p.Path)
	if err != nil {
		v := executor.Violation{Hard: true, Rule: RuleOutside, Action: p.Path, Reason: err.Error()}
		s.record(v)
		return acpsdk.WriteTextFileResponse{}, blockedError(&v)
	}
	if len(p.Content) > MaxFile {
		return acpsdk.WriteTextFileResponse{}, acpsdk.NewInvalidParams(map[string]any{
			"error": fmt.Sprintf("acp: %d bytes is more than harnish writes (%d)", len(p.Content), MaxFile)})
	}
	old, exists, err := s.readFile(rel)
	if err != nil {
		return acpsdk.WriteTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	if hard := s.judge(ctx, []guardrail.Action{editAction(rel, old, exists, p.Content)}); hard != nil {
		return acpsdk.WriteTextFileResponse{}, blockedError(hard)
	}
	name := filepath.FromSlash(rel)
	if dir := filepath.Dir(name); dir != "." {
		if err := s.tree.MkdirAll(dir, 0o755); err != nil {
			return acpsdk.WriteTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
		}
	}
	mode := os.FileMode(0o644)
	if st, err := s.tree.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	if err := s.tree.WriteFile(name, []byte(p.Content), mode); err != nil {
		return acpsdk.WriteTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	s.mu.Lock()
	s.written[filepath.Join(s.root, name)] = true
	s.files = appendNew(s.files, rel)
	s.mu.Unlock()
	return acpsdk.WriteTextFileResponse{}, nil
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// CreateTerminal judges the command, then runs it.
func (s *session) CreateTerminal(ctx context.Context, p acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	line := commandLine(p.Command, p.Args)
	if hard := s.judge(ctx, []guardrail.Action{{Kind: guardrail.KindCommand, Command: line}}); hard != nil {
		return acpsdk.CreateTerminalResponse{}, blockedError(hard)
	}
	dir := s.root
	if p.Cwd != nil && *p.Cwd != "" {
		dir = *p.Cwd
	}
	s.addCommand(line)
	id, err := s.terms.start(p, dir)
	if err != nil {
		return acpsdk.CreateTerminalResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (s *session) TerminalOutput(_ context.Context, p acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return s.terms.output(p.TerminalId)
}

func (s *session) WaitForTerminalExit(ctx context.Context, p acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return s.terms.wait(ctx, p.TerminalId)
}

func (s *session) KillTerminal(_ context.Context, p acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, s.terms.kill(p.TerminalId, false)
}

func (s *session) ReleaseTerminal(_ context.Context, p acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, s.terms.kill(p.TerminalId, true)
}

// contentText is the text of a tool call's content blocks: a terminal's
// stands for its output and exit status, not its ID, which is new each time.
func (s *session) contentText(cs []acpsdk.ToolCallContent) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Content != nil && c.Content.Content.Text != nil {
			b.WriteString(c.Content.Content.Text.Text)
		}
		if t := c.Terminal; t != nil {
			if out, err := s.terms.output(t.TerminalId); err == nil {
				b.WriteString(out.Output)
				if e := out.ExitStatus; e != nil && e.ExitCode != nil {
					fmt.Fprintf(&b, "\nexit %d", *e.ExitCode)
				}
			}
		}
	}
	return b.String()
}
