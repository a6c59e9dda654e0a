package guardrail

import (
	"path"
	"strings"
)

// kubeSecrets finds the values of a Kubernetes Secret's data in a YAML
// file: base64 under names that say nothing (extra, key, .dockercfg), a
// secret whatever it decodes to, since the kind says so. The kind may
// come after the data (keys in any order), so a document's values wait
// until its kind: Secret, and are dropped at the document's end without
// it. It sees the lines in order, as scanSecretsBy reads them.
type kubeSecrets struct {
	kind       bool // the document is kind: Secret
	dataIndent int  // the indentation of the data: line, or -1 outside it
	pending    []Secret
}

// yamlFile reports whether the file at name is YAML.
func yamlFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// line reads the next line of the file and returns the secrets known
// with it.
func (k *kubeSecrets) line(text string, lineNo int) []Secret {
	ind := skipBlanks(text, 0)
	t := text[ind:]
	switch {
	case strings.HasPrefix(t, "---") && ind == 0:
		*k = kubeSecrets{dataIndent: -1}
		return nil
	case t == "" || t[0] == '#':
		return nil
	}
	if k.dataIndent >= 0 && ind <= k.dataIndent {
		k.dataIndent = -1
	}
	if k.dataIndent >= 0 {
		if s, ok := kubeDataValue(t, lineNo); ok {
			if k.kind {
				return []Secret{s}
			}
			k.pending = append(k.pending, s)
		}
		return nil
	}
	if v, ok := strings.CutPrefix(t, "kind:"); ok && strings.EqualFold(strings.Trim(strings.TrimSpace(v), `"'`), "secret") {
		k.kind = true
		out := k.pending
		k.pending = nil
		return out
	}
	if strings.TrimRight(t, " \t") == "data:" {
		k.dataIndent = ind
	}
	return nil
}

// kubeDataValue returns the secret of a line of a Secret's data, name:
// base64, when the value decodes to one line of text that is a literal
// (not a placeholder, not blank-separated words). A value that decodes
// to lines (a PEM block, a file) is the base64 scan's to judge by what
// the lines hold.
func kubeDataValue(t string, lineNo int) (Secret, bool) {
	name, v, ok := strings.Cut(t, ":")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return Secret{}, false
	}
	if namesNoSecret(name) {
		return Secret{}, false
	}
	v = strings.Trim(strings.TrimSpace(v), `"'`)
	d, ok := decodedText(v)
	if !ok || len(d) < 6 || strings.ContainsAny(d, " \t\r\n") || !literal(d) {
		return Secret{}, false
	}
	rule, what := providerRule("kubernetes-secret-yaml")
	return Secret{Rule: rule, What: what, Line: lineNo, Masked: mask(v)}, true
}
