package main

import (
	"runtime"
	"strings"
	"testing"
)

func TestPanicBecomesInternalStatus(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	entry := func() (rc cStatus) {
		defer recoverStatus("floe_example", &rc)
		var m map[string]int
		m["boom"]++ // a nil map write: a runtime panic
		return 0
	}
	if rc := entry(); status(rc) != statusInternal {
		t.Fatalf("status %d, want FLOE_INTERNAL", rc)
	}
	msg := lastError()
	if !strings.HasPrefix(msg, "floe_example: internal error (recovered panic: assignment to entry in nil map)") {
		t.Fatalf("last error %q", msg)
	}
	setLastError("")
	if lastError() != "" {
		t.Fatal("error not cleared")
	}
}

func TestLastErrorGrowsAndIsPerThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	long := strings.Repeat("x", 5000)
	setLastError("short")
	setLastError(long)
	if lastError() != long {
		t.Fatal("a long message was truncated")
	}
	setLastError("short again")
	if lastError() != "short again" {
		t.Fatalf("got %q", lastError())
	}
	done := make(chan string)
	go func() {
		// Another thread (ours is locked to this test); exiting locked ends
		// that thread, whose destructor frees its message.
		runtime.LockOSThread()
		done <- lastError()
	}()
	if other := <-done; other != "" {
		t.Fatalf("another thread sees %q", other)
	}
}
