//go:build !linux

package hooksock

// CheckPeer accepts every peer where the system does not tell its user
// simply: the socket's directory, of mode 0700, keeps other users out.
func CheckPeer(fd uintptr) error { return nil }
