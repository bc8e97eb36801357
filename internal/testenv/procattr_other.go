//go:build !linux

package testenv

import "syscall"

// serverProcAttr: outside Linux there is no parent-death signal; cleanup stops the server.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
