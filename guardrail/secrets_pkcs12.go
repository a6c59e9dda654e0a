package guardrail

import (
	"path"
	"strings"
)

// RuleSecretPKCS12 is a PKCS#12 key store (.p12, .pfx) the edit adds or
// changes: a binary file holding a private key and its certificate,
// judged by its name as gitleaks' pkcs12-file rule does, since its
// content (encrypted, or protected by a password that is often empty) has
// no line to scan.
const RuleSecretPKCS12 = "edit.secret.pkcs12-file"

// pkcs12File reports whether f adds a PKCS#12 key store or changes one's
// content, or writes one known by its path alone; deleting one, or
// renaming it unchanged, adds no secret.
func pkcs12File(f *FileDiff) bool {
	switch strings.ToLower(path.Ext(f.Path)) {
	case ".p12", ".pfx":
	default:
		return false
	}
	switch f.Status {
	case StatusDeleted:
		return false
	case StatusRenamed:
		return f.Binary || len(f.Hunks) > 0
	}
	// Added, copied, or modified: a modification without hunks is an edit
	// known by its path alone (a tool's write), judged as one that adds.
	return true
}
