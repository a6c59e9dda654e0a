package plugins

import (
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/verify"
)

// A plugin's fault becomes the verify or executor error kind of the same
// name; the faults of starting it make it unavailable.
func TestErrorKind(t *testing.T) {
	for k, want := range map[Kind]string{
		KindCrashed: "crashed", KindTimeout: "timeout", KindProtocol: "protocol", KindUnavailable: "unavailable",
		KindHandshake: "unavailable", KindChecksum: "unavailable", KindVersion: "unavailable",
	} {
		if got := errorKind[verify.ErrorKind](k); got != verify.ErrorKind(want) {
			t.Errorf("verify kind of %s = %s, want %s", k, got, want)
		}
		if got := errorKind[executor.ErrorKind](k); got != executor.ErrorKind(want) {
			t.Errorf("executor kind of %s = %s, want %s", k, got, want)
		}
	}
	// The names are verify's and executor's own.
	if verify.KindTimeout != "timeout" || executor.KindProtocol != "protocol" || verify.KindUnavailable != "unavailable" || executor.KindCrashed != "crashed" {
		t.Error("verify's or executor's error kinds were renamed; errorKind maps by name")
	}
}
