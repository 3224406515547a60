// Package version is floe's version for Go code (the CLI's --version):
// the one include/floe.h declares as FLOE_VERSION_STRING, which
// floe_version() returns and the Python package carries. A test keeps
// the two equal.
package version

// String is floe's version.
const String = "0.1.0"
