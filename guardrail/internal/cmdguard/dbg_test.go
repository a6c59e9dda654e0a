package cmdguard

import (
	"fmt"
	"testing"
)

func TestDbg(t *testing.T) {
	p := &Policy{Root: "/repo", Protected: func(n, r string, g bool) (string, bool) { return "", false }}
	for _, c := range []struct{ sh, src string }{
		{PowerShell, `Remove-Item 'C:\Windows\x.ini'`},
		{PowerShell, `Remove-Item 'C:\Program_Files\x.ini'`},
		{PowerShell, `Remove-Item "C:\Program Files\x.ini"`},
		{PowerShell, `Remove-Item -Path 'C:\Program Files\x.ini'`},
	} {
		fmt.Printf("%s %q => %v\n", c.sh, c.src, Check(p, c.src, c.sh))
	}
}
