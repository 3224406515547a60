package reader

import (
	"encoding/json"
	"sync"

	"github.com/floedb/floe/iceberg/expr"
)

// runtimeFilters are the filters added to a running scan (say, a join's
// build side learnt the keys it needs). Each only ever tightens the scan:
// the effective filter is the AND of the scan's own and all added ones.
type runtimeFilters struct {
	mu      sync.Mutex
	added   []expr.Expr
	version int
}

// AddFilter tightens a scan, running or not: filter has the forms of
// ScanOptions.Filter (a JSON string of row_filter text, or the REST JSON
// expression). Tasks, row groups and pages not yet started apply it; rows
// already returned stay returned, and nothing an earlier filter dropped
// comes back.
func (s *Scan) AddFilter(filter json.RawMessage) error {
	e, err := parseFilter(filter)
	if err != nil {
		return err
	}
	if e == nil {
		return nil
	}
	if _, err := filterFields(e, s.schemaForFilters(), s.Options.CaseInsensitive); err != nil {
		return err
	}
	s.runtime.mu.Lock()
	defer s.runtime.mu.Unlock()
	s.runtime.added = append(s.runtime.added, e)
	s.runtime.version++
	return nil
}
