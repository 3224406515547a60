//go:build !linux

package gcstest

import "os/exec"

// setDeathSignal has no portable equivalent off Linux; t.Cleanup still
// stops the server.
func setDeathSignal(*exec.Cmd) {}
