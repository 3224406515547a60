package reader

// Metrics returns what the scan has pruned and read so far; it is safe to
// call while the scan runs.
func (s *Scan) Metrics() ScanMetrics { return s.counters.snapshot() }
