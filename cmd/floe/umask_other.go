//go:build !unix

package main

func umask() uint32 { return 0o022 }
