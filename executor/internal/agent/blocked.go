package agent

import "strings"

// BlockedPrefix starts the line by which an agent claims to be blocked: a
// line "HARNISH-BLOCKED: <what it needs>" in its final message.
const BlockedPrefix = "HARNISH-BLOCKED:"

// The prefixes of the lines by which an agent leaves the tasks after it
// what they should know (implement_plan_micro's handoff): a decision it
// made, a question it left open, what stands in the way of what comes next.
const (
	DecisionPrefix = "HARNISH-DECISION:"
	QuestionPrefix = "HARNISH-QUESTION:"
	BlockerPrefix  = "HARNISH-BLOCKER:"
)

// BlockedInstruction tells the agent the conventions; [WithBlockedInstruction]
// appends it to a prompt.
const BlockedInstruction = "If you cannot finish this task without help from a person, stop and end your " +
	"final message with one line of the form `" + BlockedPrefix + " <what you need>`.\n" +
	"For the tasks after this one, you may end your final message with lines `" + DecisionPrefix +
	" <a decision you made and why>`, `" + QuestionPrefix + " <a question you left open>` and `" +
	BlockerPrefix + " <what stands in the way of the next task>`."

// WithBlockedInstruction returns prompt with [BlockedInstruction] appended.
func WithBlockedInstruction(prompt string) string {
	return strings.TrimRight(prompt, "\n") + "\n\n" + BlockedInstruction + "\n"
}

// Blocked reports whether the agent's final message claims it is blocked,
// and the reason it gives: the text after [BlockedPrefix] on the last line
// that starts with it (leading space and Markdown backquotes aside). A claim
// without a reason gets one saying so, since a blocked claim needs one.
func Blocked(final string) (reason string, ok bool) {
	lines := strings.Split(final, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.Trim(strings.TrimSpace(lines[i]), "`")
		if rest, found := strings.CutPrefix(line, BlockedPrefix); found {
			reason = strings.TrimSpace(strings.Trim(strings.TrimSpace(rest), "`"))
			if reason == "" {
				reason = "the agent said it is blocked but gave no reason"
			}
			return reason, true
		}
	}
	return "", false
}

// MaxNotes bounds the decisions and questions read from one message.
const MaxNotes = 20

// Notes reads the handoff lines of the agent's final message: its
// decisions and open questions in order (at most MaxNotes each), and the
// last blocker.
func Notes(final string) (decisions, questions []string, blocker string) {
	for _, line := range strings.Split(final, "\n") {
		line = strings.Trim(strings.TrimSpace(line), "`")
		note := func(prefix string) (string, bool) {
			rest, ok := strings.CutPrefix(line, prefix)
			rest = strings.TrimSpace(strings.Trim(strings.TrimSpace(rest), "`"))
			return rest, ok && rest != ""
		}
		if d, ok := note(DecisionPrefix); ok && len(decisions) < MaxNotes {
			decisions = append(decisions, d)
		} else if q, ok := note(QuestionPrefix); ok && len(questions) < MaxNotes {
			questions = append(questions, q)
		} else if b, ok := note(BlockerPrefix); ok {
			blocker = b
		}
	}
	return decisions, questions, blocker
}
