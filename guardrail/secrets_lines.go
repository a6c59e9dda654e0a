package guardrail

import "strings"

// This file holds what a line says only with the line before it: a value
// whose name ends the line before (an XML element opened on one line and
// its text on the next, a YAML block scalar, an assignment continued with
// a backslash), and the options of a curl command continued onto it.

// continues reports whether a line ends with a backslash that continues
// it onto the next (a shell command, a properties value).
func continues(text string) bool {
	e := len(text)
	for e > 0 && reBlank(text[e-1]) {
		e--
	}
	return e > 0 && text[e-1] == '\\'
}

// bareValue returns the span of a line's value when the line is one value
// and nothing else, maybe quoted, maybe followed by ',' or ';' or by the
// closing tag of the element it is the text of; quoted says it was quoted.
func bareValue(text string) (start, end int, quoted, ok bool) {
	s := skipBlanks(text, 0)
	e := len(text)
	for e > s && reBlank(text[e-1]) {
		e--
	}
	if e-s < 8 || strings.IndexByte(text[s:e], ' ') >= 0 || strings.IndexByte(text[s:e], '\t') >= 0 {
		return 0, 0, false, false
	}
	if i := strings.Index(text[s:e], "</"); i > 0 {
		e = s + i
	}
	for e > s && (text[e-1] == ',' || text[e-1] == ';') {
		e--
	}
	if e-s >= 2 && (text[s] == '"' || text[s] == '\'') && text[e-1] == text[s] {
		s, e, quoted = s+1, e-1, true
	}
	if e-s < 8 || strings.ContainsAny(text[s:e], "\"'`()") || text[e-1] == ':' || text[e-1] == '\\' {
		return 0, 0, false, false
	}
	return s, e, quoted, true
}

// valueKey returns the name a line ends with when the value it names is
// on the next line: an XML element opened and not closed (<apiToken>), a
// YAML block scalar (token: |, secret: >-), a name and an operator with
// nothing after them but a backslash (TOKEN = \), or a name and ':'
// with the value indented more ("token":, token: in YAML).
func valueKey(prev, text string) (string, bool) {
	e := len(prev)
	for e > 0 && reBlank(prev[e-1]) {
		e--
	}
	if e < 3 {
		return "", false
	}
	if prev[e-1] == '>' && prev[e-2] != '/' && prev[e-2] != '=' && prev[e-2] != ' ' {
		lt := strings.LastIndexByte(prev[:e], '<')
		if lt < 0 || lt+1 >= e || !letter(prev[lt+1]) {
			return "", false
		}
		if b := strings.TrimRight(prev[:lt], " \t"); b != "" && b[len(b)-1] != '>' {
			// An element opens a line or follows another's tag; after a
			// name and = or : (KEY=<session-secret>) <...> is a placeholder.
			return "", false
		}
		j := lt + 1
		for j < e && (identByte(prev[j]) || prev[j] == ':') {
			j++
		}
		if j < e && prev[j] != '>' && !reBlank(prev[j]) {
			return "", false
		}
		return prev[lt+1 : j], true
	}
	marked := false // by a backslash or a block scalar's indicator
	if prev[e-1] == '\\' {
		e, marked = e-1, true
	} else if k := e - 1; strings.IndexByte("-+0123456789|>", prev[k]) >= 0 {
		// A YAML block scalar's indicator: |, >, with chomping (- +) and
		// an indentation digit.
		for n := 0; n < 2 && k > 0 && strings.IndexByte("-+0123456789", prev[k]) >= 0; n++ {
			k--
		}
		if (prev[k] == '|' || prev[k] == '>') && k > 0 && reBlank(prev[k-1]) {
			e, marked = k, true
		}
	}
	for e > 0 && reBlank(prev[e-1]) {
		e--
	}
	// The operator: = : := => ?= and the like.
	op, assign := e, false
	for op > 0 && e-op < 4 && strings.IndexByte("=:?.+>", prev[op-1]) >= 0 {
		assign = assign || prev[op-1] == '=' || prev[op-1] == ':'
		op--
	}
	if !assign || !marked && (prev[e-1] != ':' || indent(text) <= indent(prev)) {
		// KEY= alone is an empty value, and the next line another; a
		// bare key: holds the next line only when it is indented more.
		return "", false
	}
	for op > 0 && reBlank(prev[op-1]) {
		op--
	}
	if op > 0 && (prev[op-1] == '"' || prev[op-1] == '\'') {
		op--
	}
	n := op
	for n > 0 && identByte(prev[n-1]) {
		n--
	}
	if n == op {
		return "", false
	}
	return prev[n:op], true
}

// indent returns the blanks a line starts with.
func indent(text string) int { return skipBlanks(text, 0) }

// keyEnd reports whether a line ends as valueKey wants, by its last byte
// but blanks: most lines of code end otherwise (; { } ) , and words), and
// spare the line after them the rest of the check.
func keyEnd(prev string) bool {
	e := len(prev)
	for e > 0 && reBlank(prev[e-1]) {
		e--
	}
	return e > 0 && keyEndBytes[prev[e-1]]
}

// keyEndBytes end a line valueKey may take: an XML tag's or a block
// scalar's >, a block scalar's | and its indicators, a backslash, ':'.
var keyEndBytes = func() (t [256]bool) {
	for _, c := range []byte(">|-+0123456789\\:") {
		t[c] = true
	}
	return t
}()

// findNextLineValue scans a line that is one value, when the line before
// ends with its name, as the name assigned that value on one line.
func (f *scanFile) findNextLineValue(text string, lineNo int) []found {
	if !keyEnd(f.prev) {
		return nil
	}
	s, e, quoted, ok := bareValue(text)
	if !ok {
		return nil
	}
	name, ok := valueKey(f.prev, text)
	if !ok {
		return nil
	}
	v := text[s:e]
	line := name + " = " + v
	if quoted {
		line = name + ` = "` + v + `"`
	}
	return f.nested([]string{line}, lineNo, s, e, v, "on the line after its name")
}

// curlUsers returns the spans of the passwords curl's -u and --user take,
// user:password, in a line of a curl command: the argument is one shell
// word (quoted in parts, 'u':'p', or not), its password maybe in braces as
// API documentation writes it ({password}, judged without them).
func curlUsers(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); i++ {
		if text[i] != '-' || i > 0 && !reBlank(text[i-1]) {
			continue
		}
		j := i + 1
		switch {
		case strings.HasPrefix(text[j:], "-user"):
			j += 5
			if j < len(text) && (text[j] == '=' || reBlank(text[j])) {
				j++
			} else {
				continue
			}
		case strings.HasPrefix(text[j:], "u"):
			j++
		default:
			continue
		}
		j = skipBlanks(text, j)
		// One shell word, unquoted.
		var word []byte
		k := j
		for k < len(text) && !reBlank(text[k]) {
			if q := text[k]; q == '"' || q == '\'' {
				c := strings.IndexByte(text[k+1:], q)
				if c < 0 {
					break
				}
				word = append(word, text[k+1:k+1+c]...)
				k += c + 2
				continue
			}
			word = append(word, text[k])
			k++
		}
		_, pw, ok := strings.Cut(string(word), ":")
		if !ok {
			continue
		}
		if len(pw) > 2 && pw[0] == '{' && pw[len(pw)-1] == '}' {
			pw = pw[1 : len(pw)-1]
		}
		if !literal(pw) {
			continue
		}
		out = append(out, [2]int{j, k})
		i = k
	}
	return out
}

// findCurlUser finds the passwords of curl's -u on a line of a curl
// command: the line that calls curl, from the call on, or a line it is
// continued onto.
func (f *scanFile) findCurlUser(text string) []found {
	from := 0
	if !f.curl {
		from = strings.Index(text, "curl")
		if from < 0 {
			return nil
		}
	}
	var out []found
	for _, sp := range curlUsers(text[from:]) {
		s, e := from+sp[0], from+sp[1]
		out = append(out, found{Secret: Secret{Rule: RuleSecretAssignment, What: "password on a command line", Masked: mask(text[s:e])}, start: s, end: e})
	}
	return out
}
