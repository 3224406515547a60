package main

import (
	"context"
	"time"
)

// A call's context: a deadline when the host set "timeout_ms" (table
// options: the default of every call on the handle; scan options: the
// scan's planning and each of its streams), under a parent the host can
// cancel (floe_scan_cancel). A call past its deadline fails with
// FLOE_TIMEOUT, a cancelled one with FLOE_CANCELLED; either stops the
// call's workers and its requests in flight.
func callContext(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(parent, timeout)
	}
	return context.WithCancel(parent)
}

// timeoutOption reads a "timeout_ms" value: 0 (or absent) is none.
func timeoutOption(what string, ms int64) (time.Duration, error) {
	if ms < 0 {
		return 0, invalidArgument("%s: timeout_ms %d: give milliseconds, or 0 for none", what, ms)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// overridden is a call's time limit: the request's own timeout_ms when it
// gave one (0 meaning none), else the handle's.
func overridden(handle time.Duration, request *time.Duration) time.Duration {
	if request != nil {
		return *request
	}
	return handle
}
