//go:build windows

package proc

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// group is a Job Object holding the command and every process it starts.
// Closing the job's last handle kills them all (KILL_ON_JOB_CLOSE), so the
// tree dies with the runner too.
type group struct{ job windows.Handle }

func newGroup(cmd *exec.Cmd) (*group, error) {
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
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	return &group{job: job}, nil
}

// started puts the running command in the job. A child it starts before
// this returns escapes the job; Windows offers no way around that short of
// starting the process suspended, which os/exec does not expose.
func (g *group) started(p *os.Process) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(g.job, h)
}

// terminate ends the job at once: Windows has no SIGTERM for console
// programs that the runner could send to a whole tree.
func (g *group) terminate(p *os.Process) error {
	if err := windows.TerminateJobObject(g.job, 1); err != nil {
		return p.Kill()
	}
	return nil
}

func (g *group) kill(*os.Process) { _ = windows.TerminateJobObject(g.job, 1) }

func (g *group) close() { windows.CloseHandle(g.job) }
