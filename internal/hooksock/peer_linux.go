package hooksock

import (
	"fmt"
	"os"
	"syscall"
)

// CheckPeer returns [ErrPeer] when the process at the other end of the
// unix socket fd runs as another user (SO_PEERCRED).
func CheckPeer(fd uintptr) error {
	cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return fmt.Errorf("hooksock: SO_PEERCRED: %w", err)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("%w: uid %d (pid %d)", ErrPeer, cred.Uid, cred.Pid)
	}
	return nil
}
