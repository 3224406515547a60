package gcstest

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the server die with the test binary, even when a
// test panics or is killed before its cleanups run.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
