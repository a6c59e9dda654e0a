package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// psCmdlet describes a cmdlet's parameters, lowercase: those taking a value
// (in positional order first, positional counts how many bind by position)
// and switches.
type psCmdlet struct {
	values     []string
	positional int
	switches   []string
}

// psCommon are the common parameters every cmdlet has.
var psCommon = psCmdlet{
	values: []string{"erroraction", "warningaction", "informationaction", "errorvariable",
		"warningvariable", "informationvariable", "outvariable", "outbuffer", "pipelinevariable", "progressaction"},
	switches: []string{"verbose", "debug", "whatif", "confirm"},
}

var (
	psRemoveItem = psCmdlet{values: []string{"path", "literalpath", "filter", "include", "exclude", "credential", "stream"},
		positional: 1, switches: []string{"recurse", "force"}}
	psMoveItem = psCmdlet{values: []string{"path", "destination", "literalpath", "filter", "include", "exclude", "credential"},
		positional: 2, switches: []string{"force", "passthru"}}
	psCopyItem = psCmdlet{values: []string{"path", "destination", "literalpath", "filter", "include", "exclude", "credential", "fromsession", "tosession"},
		positional: 2, switches: []string{"container", "force", "passthru", "recurse"}}
	psArchive = psCmdlet{values: []string{"path", "destinationpath", "literalpath", "compressionlevel"},
		positional: 2, switches: []string{"force", "passthru", "update"}}
	psBitsTransfer = psCmdlet{values: []string{"source", "destination", "description", "displayname", "priority",
		"transferpolicy", "authentication", "credential", "proxyauthentication", "proxybypass", "proxycredential",
		"proxylist", "proxyusage", "retryinterval", "retrytimeout", "transfertype"},
		positional: 2, switches: []string{"asynchronous", "suspended", "usestoredcredential", "dynamic"}}
	psRenameItem = psCmdlet{values: []string{"path", "newname", "literalpath", "credential"},
		positional: 2, switches: []string{"force", "passthru"}}
	psSetContent = psCmdlet{values: []string{"path", "value", "literalpath", "filter", "include", "exclude", "credential", "encoding", "stream"},
		positional: 2, switches: []string{"passthru", "force", "nonewline", "asbytestream"}}
	psClearContent = psCmdlet{values: []string{"path", "literalpath", "filter", "include", "exclude", "credential", "stream"},
		positional: 1, switches: []string{"force"}}
	psOutFile = psCmdlet{values: []string{"filepath", "encoding", "literalpath", "inputobject", "width"},
		positional: 2, switches: []string{"append", "force", "noclobber", "nonewline"}}
	psTeeObject = psCmdlet{values: []string{"filepath", "literalpath", "variable", "inputobject", "encoding"},
		positional: 1, switches: []string{"append"}}
	psNewItem = psCmdlet{values: []string{"path", "name", "itemtype", "value", "credential"},
		positional: 1, switches: []string{"force"}}
	psGetChildItem = psCmdlet{values: []string{"path", "filter", "literalpath", "include", "exclude", "depth", "attributes"},
		positional: 2, switches: []string{"recurse", "force", "name", "directory", "file", "hidden", "readonly", "system", "followsymlink"}}
	psSetLocation  = psCmdlet{values: []string{"path", "literalpath", "stackname"}, positional: 1, switches: []string{"passthru"}}
	psStartProcess = psCmdlet{values: []string{"filepath", "argumentlist", "credential", "workingdirectory",
		"redirectstandardinput", "redirectstandardoutput", "redirectstandarderror", "windowstyle", "verb", "environment"},
		positional: 2, switches: []string{"loaduserprofile", "nonewwindow", "passthru", "wait", "usenewenvironment"}}
	psInvokeExpression = psCmdlet{values: []string{"command"}, positional: 1}
	psInstallModule    = psCmdlet{values: []string{"name", "minimumversion", "maximumversion", "requiredversion",
		"repository", "credential", "scope", "proxy", "proxycredential", "inputobject"},
		positional: 1, switches: []string{"allowclobber", "skippublishercheck", "force", "allowprerelease", "acceptlicense", "passthru"}}
	psInvokeSqlcmd = psCmdlet{values: []string{"query", "serverinstance", "database", "inputfile", "username", "password",
		"connectionstring", "querytimeout"}, positional: 1}
)

// psBound is a cmdlet's arguments bound to its parameters.
type psBound struct {
	named      map[string][]shell.Word
	switches   map[string]bool // true when on; -Switch:$false is off
	positional []shell.Word
}

// get returns the value of parameter name, given by name or by position;
// nil when it is not there.
func (b *psBound) get(name string) *shell.Word {
	if v := b.named[name]; len(v) > 0 {
		return &v[0]
	}
	return nil
}

// psArgs binds PowerShell arguments to the parameters of c. Names match
// case-insensitively and by unique prefix; an ambiguous prefix binds to the
// first parameter it prefixes, so an ambiguity does not hide a switch.
// Positional arguments bind to c's positional parameters not given by name;
// the rest stay in positional.
func psArgs(a []shell.Word, c psCmdlet) *psBound {
	b := &psBound{named: map[string][]shell.Word{}, switches: map[string]bool{}}
	values := append(append([]string(nil), c.values...), psCommon.values...)
	switches := append(append([]string(nil), c.switches...), psCommon.switches...)
	var positional []shell.Word
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		if len(t) < 2 || t[0] != '-' || a[i].Quoted || isNumber(t) {
			positional = append(positional, a[i])
			continue
		}
		name, value, hasValue := strings.Cut(strings.ToLower(t[1:]), ":")
		if v := psResolve(name, values); v != "" {
			switch {
			case hasValue:
				b.named[v] = append(b.named[v], shell.Word{Text: a[i].Text[len(name)+2:]})
			case i+1 < len(a):
				i++
				b.named[v] = append(b.named[v], a[i])
				// An array value goes on while its elements end in a comma
				// ('/c', 'rd', '/s').
				for strings.HasSuffix(a[i].Text, ",") && i+1 < len(a) {
					i++
					b.named[v] = append(b.named[v], a[i])
				}
			}
			continue
		}
		if s := psResolve(name, switches); s != "" {
			b.switches[s] = !hasValue || !strings.EqualFold(value, "$false") && value != "0"
			continue
		}
		positional = append(positional, a[i])
	}
	for _, v := range c.values[:c.positional] {
		if _, named := b.named[v]; named || len(positional) == 0 {
			continue
		}
		b.named[v] = append(b.named[v], positional[0])
		positional = positional[1:]
	}
	b.positional = positional
	return b
}

// psResolve returns the parameter of names that name is a prefix of: the
// exact match, else the first.
func psResolve(name string, names []string) string {
	if name == "" {
		return ""
	}
	first := ""
	for _, n := range names {
		if n == name {
			return n
		}
		if first == "" && strings.HasPrefix(n, name) {
			first = n
		}
	}
	return first
}

func isNumber(s string) bool {
	return len(s) > 1 && strings.Trim(s[1:], "0123456789.") == ""
}
