// Package interop holds tests only: they prove that tables floe writes are
// read by iceberg-go (github.com/apache/iceberg-go) with the same rows, and
// that tables iceberg-go writes are read by floe. It lives in the
// benchmarks module because that module, not floe's, depends on iceberg-go.
package interop
