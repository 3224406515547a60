// Package memlimit holds the test that a scan stays under its memory
// limit on a table whose row groups are far larger than the limit: the
// scan runs in a child process whose peak RSS (VmHWM) the test reads.
package memlimit
