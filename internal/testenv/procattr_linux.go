package testenv

import "syscall"

// serverProcAttr puts a throwaway server in its own session (a Ctrl-C meant for go test does not
// reach it half-way) and has the kernel kill it if the test binary dies without cleaning up.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
