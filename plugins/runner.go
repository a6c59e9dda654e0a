package plugins

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/internal/proc"
)

// procRunner starts a plugin process for go-plugin (its runner.Runner), so
// that the host, not go-plugin, decides how: in its own process group (job
// object on Windows) that Kill ends whole, with a lifeline, and with stderr
// going to our log parser only. go-plugin is handed an empty stderr, so its
// own stderr parser never sees a byte the plugin wrote.
type procRunner struct {
	bin    *pinned
	path   string
	cmd    *exec.Cmd
	stdout io.ReadCloser
	// lifeW is the lifeline's write end; only the host holds it.
	lifeR, lifeW *os.File
	grp          *proc.Group
	stderr       *logWriter
	tail         *syncTail
	releaseOnce  sync.Once
}

// newProcRunner runs bin, the binary checked; path, the manifest's, is its
// name and the plugin's argv[0].
func newProcRunner(bin *pinned, path string, env []string, stderr *logWriter, tail *syncTail) (*procRunner, error) {
	cmd := exec.Command(bin.path)
	cmd.Args[0] = path
	cmd.Env = env
	cmd.Stderr = stderr
	// A grandchild that escaped the group and holds stderr open must not
	// hang Wait.
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	passLifeline(cmd, lifeR)
	grp, err := proc.NewGroup(cmd)
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return nil, err
	}
	return &procRunner{bin: bin, path: path, cmd: cmd, stdout: stdout, lifeR: lifeR, lifeW: lifeW, grp: grp, stderr: stderr, tail: tail}, nil
}

func (r *procRunner) Start(context.Context) error {
	err := r.cmd.Start()
	r.lifeR.Close()
	r.bin.started()
	if err != nil {
		r.release()
		return err
	}
	if err := r.grp.Started(r.cmd.Process); err != nil {
		r.grp.Kill(r.cmd.Process) // the whole tree, as far as it was caught
		_ = r.cmd.Wait()
		r.release()
		return err
	}
	return nil
}

func (r *procRunner) Diagnose(context.Context) string {
	if t := strings.TrimSpace(r.tail.String()); t != "" {
		return "plugin stderr: " + t
	}
	return ""
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }

func (r *procRunner) Stderr() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }

func (r *procRunner) Name() string { return r.path }

func (r *procRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	r.stderr.Flush()
	return err
}

func (r *procRunner) Kill(context.Context) error {
	r.grp.Kill(nil)
	return nil
}

func (r *procRunner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// release drops the host's end of the lifeline (the plugin, if still alive,
// exits) and the group's handle. Call it once the process is dead.
// It runs once, however many paths reach it.
func (r *procRunner) release() {
	r.releaseOnce.Do(func() {
		r.lifeW.Close()
		r.grp.Close()
	})
}
