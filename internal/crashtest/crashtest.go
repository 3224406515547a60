// Package crashtest is what the crash tests share: running this test
// binary again as a child that kills itself (SIGKILL) at a commit step,
// and checking that it died that way.
package crashtest

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/floedb/floe/internal/commitstep"
)

// RunKilled runs the test binary's test childTest in a child process with
// env added (KEY=VALUE) and fails t unless the child died of SIGKILL.
func RunKilled(t testing.TB, childTest string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+childTest+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
}

// Kill kills this process at once, as a crash would.
func Kill() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// KillAt makes this process kill itself when a commit reaches step.
func KillAt(step string) {
	commitstep.SetHook(func(s string) {
		if s == step {
			Kill()
		}
	})
}
