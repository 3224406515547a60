package coroloop_test

import (
	"iter"
	"runtime"
	"sync"
	"testing"

	"github.com/floedb/floe/internal/coroloop"
)

// A coroutine made and resumed through a loop survives being driven from
// goroutines locked to different OS threads, as cgo callbacks are; made
// on one locked thread and resumed on another, the runtime aborts.
func TestCoroutineDrivenFromLockedThreads(t *testing.T) {
	l := coroloop.Start()
	defer l.Stop()
	var next func() (int, bool)
	var stop func()
	l.Do(func() {
		next, stop = iter.Pull(func(yield func(int) bool) {
			for i := 0; ; i++ {
				if !yield(i) {
					return
				}
			}
		})
	})
	for want := range 20 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var got int
			var ok bool
			l.Do(func() { got, ok = next() })
			if !ok || got != want {
				t.Errorf("pull %d: got %d, %v", want, got, ok)
			}
		}()
		wg.Wait()
	}
	l.Do(stop)
}

func TestPanicReachesTheCaller(t *testing.T) {
	l := coroloop.Start()
	defer l.Stop()
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	l.Do(func() { panic("boom") })
	t.Fatal("Do returned after a panic")
}
