package scan

// Metrics returns what the scan has pruned and read so far; it is safe to
// call while the scan runs.
func (s *Scan) Metrics() Metrics { return s.counters.snapshot() }
