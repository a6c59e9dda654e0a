//go:build windows

package proc

import (
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Group is a Job Object holding the command and every process it starts.
// Closing the job's last handle kills them all (KILL_ON_JOB_CLOSE), so the
// tree dies with its holder too.
type Group struct {
	job  windows.Handle
	p    atomic.Pointer[os.Process]
	once sync.Once
}

// NewGroup prepares cmd, before it starts, to go into a new job.
func NewGroup(cmd *exec.Cmd) (*Group, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
	return &Group{job: job}, nil
}

// Started puts the running command in the job. A child it starts before
// this returns escapes the job; Windows offers no way around that short of
// starting the process suspended, which os/exec does not expose.
func (g *Group) Started(p *os.Process) error {
	g.p.Store(p)
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(g.job, h)
}

// Terminate ends the job at once: Windows has no SIGTERM for console
// programs that could be sent to a whole tree. p is the command when the
// caller has it; nil means the one Started recorded.
func (g *Group) Terminate(p *os.Process) error {
	if err := windows.TerminateJobObject(g.job, 1); err != nil {
		if p == nil {
			p = g.p.Load()
		}
		if p == nil {
			return err
		}
		return p.Kill()
	}
	return nil
}

// Kill ends the job; p is as for Terminate.
func (g *Group) Kill(p *os.Process) { _ = g.Terminate(p) }

// Close releases the job's handle, once, which kills what is left in it.
func (g *Group) Close() { g.once.Do(func() { windows.CloseHandle(g.job) }) }

// id is 0: a job has no ID a caller could use.
func (g *Group) id() int { return 0 }
