package agent

import "strings"

// BlockedPrefix starts the line by which an agent claims to be blocked: a
// line "HARNISH-BLOCKED: <what it needs>" in its final message.
const BlockedPrefix = "HARNISH-BLOCKED:"

// BlockedInstruction tells the agent the convention; [WithBlockedInstruction]
// appends it to a prompt.
const BlockedInstruction = "If you cannot finish this task without help from a person, stop and end your " +
	"final message with one line of the form `" + BlockedPrefix + " <what you need>`."

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
