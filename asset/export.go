package asset

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// ExportFormat says what [Export] writes.
type ExportFormat string

// The export formats.
const (
	// FormatSkill is a skill as Claude Code (and the Agent Skills format)
	// reads one: SKILL.md, YAML front matter with a name and a description,
	// then the instructions.
	FormatSkill ExportFormat = "skill"
	// FormatAgents is a section to paste into AGENTS.md (or CLAUDE.md).
	FormatAgents ExportFormat = "agents"
)

// Limits of a skill's front matter, as Claude Code's skills have them.
const (
	MaxSkillName        = 64
	MaxSkillDescription = 1024
)

// ExportRequest configures [Export].
type ExportRequest struct {
	// Format is FormatSkill or FormatAgents. Empty means FormatSkill.
	Format ExportFormat
	// Tags are the tags the assets were selected by; they name the skill
	// and say when to use it.
	Tags []string
	// Name is the skill's name: lowercase letters, digits and '-', at most
	// [MaxSkillName]. Empty: derived from Tags ("harnish-" and the tags), as
	// [Slugify] derives a slug.
	Name string
}

// exportOrder is the order the types are exported in, with their headings:
// what must not be done first, then what went wrong and how it was fixed.
var exportOrder = []struct {
	t       Type
	heading string
}{
	{TypeGuardrail, "Guardrails: never do these"},
	{TypeFailure, "Failures and how they were resolved"},
	{TypePattern, "Patterns that worked"},
	{TypeDecision, "Decisions and their reasons"},
	{TypeSnippet, "Snippets"},
}

// Export turns assets (say, a query's result for some tags) into text a
// person reviews and then commits for agents to read: the harnish engine's
// "skillify". The assets are grouped by type, guardrails first, each group
// in the order given; each asset is its title as a heading, its body, and a
// line with its type, date, tags and slug. Assets of an unknown type are
// left out. Export is deterministic: the same assets give the same text.
func Export(assets []*Asset, req ExportRequest) ([]byte, error) {
	format := req.Format
	if format == "" {
		format = FormatSkill
	}
	if format != FormatSkill && format != FormatAgents {
		return nil, fmt.Errorf("%w: export format %q: want %s or %s", ErrInvalid, format, FormatSkill, FormatAgents)
	}
	name := req.Name
	if name == "" {
		name = skillName(req.Tags)
	} else if !validSkillName(name) {
		return nil, fmt.Errorf("%w: skill name %q: want at most %d lowercase letters, digits and '-'", ErrInvalid, name, MaxSkillName)
	}
	about := "everything"
	if len(req.Tags) > 0 {
		about = strings.Join(req.Tags, ", ")
	}
	var b strings.Builder
	level := "#"
	if format == FormatSkill {
		desc := fmt.Sprintf("Lessons harnish runs learned about %s: %s. Use when working on %s.", about, countTypes(assets), about)
		fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n\n", name, yamlString(clip(plain(desc), MaxSkillDescription)))
		fmt.Fprintf(&b, "# Lessons: %s\n\n", oneLine(about))
	} else {
		level = "##"
		fmt.Fprintf(&b, "## Lessons: %s\n\n", oneLine(about))
		fmt.Fprintf(&b, "<!-- harnish assets export --format agents: %s. Review before committing. -->\n\n", countTypes(assets))
	}
	b.WriteString("Experience recorded by harnish runs (`harnish assets`), reviewed by a person before it was committed. " +
		"Follow the guardrails; check the other lessons against the code as it is now.\n")
	for _, g := range exportOrder {
		first := true
		for _, a := range assets {
			if a.Type != g.t {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s# %s\n", level, g.heading)
				first = false
			}
			fmt.Fprintf(&b, "\n%s## %s\n\n", level, oneLine(a.Title))
			if body := strings.TrimSpace(a.Body); body != "" {
				b.WriteString(body + "\n\n")
			}
			meta := []string{string(a.Type)}
			if !a.Date.IsZero() {
				meta = append(meta, a.Date.UTC().Format(time.DateOnly))
			}
			if len(a.Tags) > 0 {
				meta = append(meta, "tags: "+strings.Join(a.Tags, ", "))
			}
			if a.Slug != "" {
				meta = append(meta, "asset "+a.Slug)
			}
			fmt.Fprintf(&b, "_%s_\n", oneLine(strings.Join(meta, " · ")))
		}
	}
	return []byte(b.String()), nil
}

// skillName derives a skill's name from tags.
func skillName(tags []string) string {
	name := "harnish-lessons"
	if len(tags) > 0 {
		name = "harnish-" + Slugify(strings.Join(tags, "-"))
	}
	if len(name) > MaxSkillName {
		name = name[:MaxSkillName]
	}
	return strings.TrimRight(name, "-")
}

func validSkillName(s string) bool {
	if s == "" || len(s) > MaxSkillName {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// countTypes says how many assets of each type there are.
func countTypes(assets []*Asset) string {
	n := map[Type]int{}
	for _, a := range assets {
		n[a.Type]++
	}
	var parts []string
	for _, g := range exportOrder {
		if c := n[g.t]; c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c, g.t))
		}
	}
	if parts == nil {
		return "no assets"
	}
	return strings.Join(parts, ", ")
}

// yamlString quotes s as a YAML double-quoted scalar: JSON's quoting,
// which YAML reads the same way.
func yamlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// plain is s as text YAML takes in a quoted scalar: valid UTF-8, control
// characters (which YAML refuses, escaped or not in some readers) as spaces,
// on one line.
func plain(s string) string {
	return oneLine(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\uFEFF' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "")))
}

// oneLine is s on one line: its lines joined by spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes, at a character boundary, with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
