package plugins

import (
	"io"
	"os"
)

// lifelineEnv names the variable that tells a plugin where the read end of
// its lifeline is: a pipe whose write end only the host holds. The host
// never writes to it, so a read returns only when the host is gone, however
// it died: then the plugin ends itself and its process group.
const lifelineEnv = "HARNISH_PLUGIN_LIFELINE"

// watchLifeline starts the plugin's watch, if the host passed a lifeline.
func watchLifeline() {
	f := lifelineFile(os.Getenv(lifelineEnv))
	if f == nil {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, f)
		dieWithHost()
	}()
}
