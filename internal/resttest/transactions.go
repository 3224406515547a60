package resttest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// transactionsEndpoint is the multi-table commit, as /v1/config lists it.
const transactionsEndpoint = "POST /v1/{prefix}/transactions/commit"

// announced are the endpoints /v1/config lists, when it lists any: the
// default set, the planning routes when it plans, the multi-table commit
// unless it is turned off.
func (s *Server) announced() []string {
	var out []string
	for _, e := range endpoints {
		if s.Planning != "" || !strings.HasSuffix(e, "/plan") && !strings.Contains(e, "/plan/") && !strings.HasSuffix(e, "/tasks") {
			out = append(out, e)
		}
	}
	if !s.NoTransactions {
		out = append(out, transactionsEndpoint)
	}
	return out
}

// commitTransaction serves POST {prefix}/transactions/commit: every
// table's requirements checked against its current metadata and its
// updates applied, then all published in one database transaction of the
// backend (catalog/sql's PublishTables), so the tables move together or
// not at all. A requirement that fails, or a row that moved on, is 409.
func (s *Server) commitTransaction(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "BadRequestException", r.Method)
		return
	}
	var body struct {
		TableChanges []struct {
			Identifier struct {
				Namespace []string `json:"namespace"`
				Name      string   `json:"name"`
			} `json:"identifier"`
			Requirements json.RawMessage `json:"requirements"`
			Updates      json.RawMessage `json:"updates"`
		} `json:"table-changes"`
	}
	if !decode(w, r, &body) {
		return
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	bases := make([]*table.Table, len(body.TableChanges))
	changes := make([]*metadata.Changes, len(body.TableChanges))
	for i, tc := range body.TableChanges {
		base, c, ok := s.stage(ctx, w, catalog.Identifier{Namespace: tc.Identifier.Namespace, Name: tc.Identifier.Name}, tc.Requirements, tc.Updates)
		if !ok {
			return
		}
		bases[i], changes[i] = base, c
	}
	if len(bases) > 0 {
		if _, err := s.Backend.PublishTables(ctx, bases, changes); err != nil {
			if errors.Is(err, table.ErrStale) {
				writeError(w, http.StatusConflict, "CommitFailedException", err.Error())
				return
			}
			writeErr(w, err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
