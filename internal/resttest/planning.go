package resttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// endpoints are what a planning server announces: the protocol's default
// set, the HEAD routes, and planning.
var endpoints = []string{
	"GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces", "GET /v1/{prefix}/namespaces/{namespace}",
	"HEAD /v1/{prefix}/namespaces/{namespace}", "DELETE /v1/{prefix}/namespaces/{namespace}",
	"POST /v1/{prefix}/namespaces/{namespace}/properties", "GET /v1/{prefix}/namespaces/{namespace}/tables",
	"POST /v1/{prefix}/namespaces/{namespace}/tables", "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}", "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}", "POST /v1/{prefix}/namespaces/{namespace}/register",
	"POST /v1/{prefix}/tables/rename",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
}

// plan is a planned scan, its answers cut into plan tasks.
type plan struct {
	polls  int
	chunks map[string]map[string]any
	order  []string
}

func (s *Server) planRoute(ctx context.Context, w http.ResponseWriter, r *http.Request, id catalog.Identifier, rest []string) {
	switch {
	case len(rest) == 1 && rest[0] == "plan" && r.Method == http.MethodPost:
		s.planScan(ctx, w, r, id)
	case len(rest) == 2 && rest[0] == "plan" && r.Method == http.MethodGet:
		s.mu.Lock()
		p := s.plans[rest[1]]
		if p != nil {
			p.polls++
		}
		s.mu.Unlock()
		switch {
		case p == nil:
			writeError(w, http.StatusNotFound, "NoSuchPlanIdException", "no such plan")
		case p.polls < 2:
			writeJSON(w, http.StatusOK, map[string]any{"status": "submitted"})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"status": "completed", "plan-tasks": p.order})
		}
	case len(rest) == 1 && rest[0] == "tasks" && r.Method == http.MethodPost:
		var body struct {
			Task string `json:"plan-task"`
		}
		if !decode(w, r, &body) {
			return
		}
		s.mu.Lock()
		var chunk map[string]any
		for _, p := range s.plans {
			if c, ok := p.chunks[body.Task]; ok {
				chunk = c
			}
		}
		s.mu.Unlock()
		if chunk == nil {
			writeError(w, http.StatusNotFound, "NoSuchPlanTaskException", "no such plan task")
			return
		}
		writeJSON(w, http.StatusOK, chunk)
	default:
		writeError(w, http.StatusNotFound, "NotFoundException", "no such route")
	}
}

func (s *Server) planScan(ctx context.Context, w http.ResponseWriter, r *http.Request, id catalog.Identifier) {
	var body struct {
		SnapshotID    *int64          `json:"snapshot-id"`
		Filter        json.RawMessage `json:"filter"`
		CaseSensitive *bool           `json:"case-sensitive"`
	}
	if !decode(w, r, &body) {
		return
	}
	t, err := s.Backend.LoadTable(ctx, id)
	if err != nil {
		writeErr(w, err)
		return
	}
	var filter expr.Expr
	if len(body.Filter) > 0 {
		if filter, err = expr.ParseJSON(body.Filter); err != nil {
			writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
			return
		}
	}
	ci := body.CaseSensitive != nil && !*body.CaseSensitive
	planned, err := t.PlanFilesFiltered(ctx, table.SnapshotSelector{SnapshotID: body.SnapshotID}, filter, ci)
	if err != nil {
		writeErr(w, err)
		return
	}
	types, err := t.ContentFileTypes(planned.Schema)
	if err != nil {
		writeErr(w, err)
		return
	}
	chunk := func(tasks []table.DataFileTask) (map[string]any, error) {
		var deletes []json.RawMessage
		index := map[*table.DeleteFile]int{}
		var out []map[string]any
		for _, task := range tasks {
			df, err := manifest.MarshalContentFileJSON(task.File, types)
			if err != nil {
				return nil, err
			}
			refs := []int{}
			for _, d := range task.Deletes {
				k, ok := index[d]
				if !ok {
					raw, err := manifest.MarshalContentFileJSON(d.File, types)
					if err != nil {
						return nil, err
					}
					k = len(deletes)
					index[d] = k
					deletes = append(deletes, raw)
				}
				refs = append(refs, k)
			}
			entry := map[string]any{"data-file": json.RawMessage(df), "delete-file-references": refs}
			if task.Residual != nil {
				if raw, err := expr.MarshalJSON(task.Residual); err == nil {
					entry["residual-filter"] = json.RawMessage(raw)
				}
			}
			out = append(out, entry)
		}
		if deletes == nil {
			deletes = []json.RawMessage{}
		}
		return map[string]any{"file-scan-tasks": out, "delete-files": deletes}, nil
	}
	s.mu.Lock()
	planID := fmt.Sprintf("plan-%d", len(s.plans)+1)
	s.mu.Unlock()
	if s.Planning != "async" {
		answer, err := chunk(planned.Tasks)
		if err != nil {
			writeErr(w, err)
			return
		}
		answer["status"], answer["plan-id"] = "completed", planID
		if s.PlanCredentials != nil {
			answer["storage-credentials"] = s.PlanCredentials
		}
		writeJSON(w, http.StatusOK, answer)
		return
	}
	p := &plan{chunks: map[string]map[string]any{}}
	for i := 0; i < len(planned.Tasks); i += 2 {
		c, err := chunk(planned.Tasks[i:min(i+2, len(planned.Tasks))])
		if err != nil {
			writeErr(w, err)
			return
		}
		name := fmt.Sprintf("%s-task-%d", planID, i/2)
		p.chunks[name] = c
		p.order = append(p.order, name)
	}
	s.mu.Lock()
	s.plans[planID] = p
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"status": "submitted", "plan-id": planID})
}
