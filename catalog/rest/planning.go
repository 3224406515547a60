package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// Server-side scan planning (POST …/tables/{t}/plan, then GET
// …/plan/{id} while it is submitted, then POST …/tasks for each plan
// task). PropScanPlanning decides: "client" always reads manifests here;
// "auto" (the default) plans on the server when it announces the plan
// endpoint in /v1/config, else here; "server" requires the server.
//
// The server sends tasks without sequence numbers: it has matched the
// deletes to the files already, and the reader needs them only for row
// lineage, whose _last_updated_sequence_number of inherited rows then
// reads 0. Time travel by snapshot is sent as snapshot-id; the columns
// are not (floe projects after reading, and the server's column stats are
// not needed).

const planEndpoint = "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan"

// maxPlanWait bounds the polling of a submitted plan.
const maxPlanWait = 10 * time.Minute

type planner struct {
	cat *Catalog
	id  catalog.Identifier
	// directive is the table config's scan-planning-mode: "server" or
	// "client" when the server decides for this table, else "".
	directive string
	// config is the table's LoadTable config, under the credentials a
	// plan may vend.
	config map[string]string
}

// tableDirective is the LoadTable config key a server decides a table's
// planning with (client or server).
const tableDirective = "scan-planning-mode"

var _ table.Planner = (*planner)(nil)

// planAnswer is PlanTableScanResult, FetchPlanningResult and
// FetchScanTasksResult in one: which members are there depends on the
// status.
type planAnswer struct {
	Status        string            `json:"status"`
	PlanID        string            `json:"plan-id"`
	PlanTasks     []string          `json:"plan-tasks"`
	FileScanTasks []json.RawMessage `json:"file-scan-tasks"`
	DeleteFiles   []json.RawMessage `json:"delete-files"`
	Error         *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
	StorageCredentials []storageCredential `json:"storage-credentials"`
}

// maxPlanTasks bounds the plan tasks one scan fetches: a server that
// keeps handing out tasks is broken, not large.
const maxPlanTasks = 1 << 20

type fileScanTaskJSON struct {
	DataFile       json.RawMessage `json:"data-file"`
	DeleteFileRefs []int           `json:"delete-file-references"`
	Residual       json.RawMessage `json:"residual-filter"`
}

func (p *planner) PlanScan(ctx context.Context, t *table.Table, snap *metadata.Snapshot, schema *iceberg.Schema, filter expr.Expr, caseInsensitive bool) (*table.Plan, bool, error) {
	cat := p.cat
	mode := cat.planning
	switch {
	case p.directive == "":
	case mode == "auto":
		mode = p.directive
	case mode != p.directive:
		return nil, false, errkind.Errorf(errkind.InvalidArgument, "%s: %s=%s, but the server plans table %s on the %s (%s)", cat.c.name, PropScanPlanning, mode, p.id, p.directive, tableDirective)
	}
	switch mode {
	case "client":
		return nil, false, nil
	case "auto":
		if !cat.supports(planEndpoint) {
			return nil, false, nil
		}
	case "server":
		if p.directive == "" && !cat.supports(planEndpoint) {
			return nil, false, errkind.Errorf(errkind.Unsupported, "%s: %s=server, but the server does not announce scan planning", cat.c.name, PropScanPlanning)
		}
	}
	body := map[string]any{
		"snapshot-id":    snap.SnapshotID,
		"case-sensitive": !caseInsensitive,
		// The schema floe reads with (table.ReadSchema) is the snapshot's
		// only when travelling in time.
		"use-snapshot-schema": schema.ID != t.Metadata.CurrentSchemaID,
	}
	if filter != nil {
		raw, err := expr.MarshalJSON(filter)
		if err != nil {
			return nil, false, err
		}
		body["filter"] = json.RawMessage(raw)
	}
	b, err := p.newPlanBuilder(t, snap, schema, filter, caseInsensitive)
	if err != nil {
		return nil, false, err
	}
	var answer planAnswer
	if err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.tablePath(p.id, "plan"), body: body}, &answer); err != nil {
		return nil, false, fmt.Errorf("plan a scan of %s on the server: %w", p.id, refine(err, catalog.ErrNoSuchTable, nil))
	}
	planID := answer.PlanID
	done := false
	defer func() {
		if !done && planID != "" {
			p.cancel(ctx, planID)
		}
	}()
	if answer.Status == "submitted" {
		if answer, err = p.await(ctx, planID); err != nil {
			return nil, false, err
		}
	}
	if err := p.statusError(answer); err != nil {
		done = answer.Status == "failed" || answer.Status == "cancelled" // nothing left to cancel
		return nil, false, err
	}
	if err := b.credentials(answer.StorageCredentials); err != nil {
		return nil, false, err
	}
	pending := answer.PlanTasks
	if err := b.add(answer); err != nil {
		return nil, false, err
	}
	fetched := map[string]bool{}
	for len(pending) > 0 {
		task := pending[0]
		pending = pending[1:]
		if fetched[task] {
			continue // a server that hands out a task twice is not followed round in circles
		}
		fetched[task] = true
		if len(fetched) > maxPlanTasks {
			return nil, false, errkind.Errorf(errkind.Corrupt, "%s: the scan plan of %s has more than %d plan tasks", cat.c.name, p.id, maxPlanTasks)
		}
		var more planAnswer
		err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.tablePath(p.id, "tasks"), body: map[string]string{"plan-task": task}}, &more)
		if err != nil {
			return nil, false, fmt.Errorf("fetch the scan tasks of %s: %w", p.id, err)
		}
		if err := b.add(more); err != nil {
			return nil, false, err
		}
		pending = append(pending, more.PlanTasks...)
	}
	done = true
	return b.plan, true, nil
}

// cancel tells the server a plan is no longer wanted (best effort: the
// protocol asks clients to, and a server forgets plans anyway).
func (p *planner) cancel(ctx context.Context, planID string) {
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer stop()
	_ = p.cat.c.do(ctx, request{method: http.MethodDelete, path: p.cat.tablePath(p.id, "plan", planID)}, nil)
}

// await polls a submitted plan until it is done.
func (p *planner) await(ctx context.Context, planID string) (planAnswer, error) {
	if planID == "" {
		return planAnswer{}, errkind.Errorf(errkind.Corrupt, "%s: a submitted plan without a plan-id", p.cat.c.name)
	}
	deadline := time.Now().Add(maxPlanWait)
	wait := 20 * time.Millisecond
	for {
		var answer planAnswer
		err := p.cat.c.do(ctx, request{method: http.MethodGet, path: p.cat.tablePath(p.id, "plan", planID), idempotent: true}, &answer)
		if err != nil {
			return answer, fmt.Errorf("the scan plan of %s: %w", p.id, err)
		}
		if answer.Status != "submitted" {
			return answer, nil
		}
		if time.Now().After(deadline) {
			return answer, errkind.Errorf(errkind.IO, "%s: the scan plan of %s was not done after %s", p.cat.c.name, p.id, maxPlanWait)
		}
		select {
		case <-ctx.Done():
			return answer, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

func (p *planner) statusError(a planAnswer) error {
	switch a.Status {
	case "completed", "":
		return nil
	case "failed":
		msg := "no reason given"
		if a.Error != nil {
			msg = p.cat.c.secrets.String(a.Error.Type + ": " + a.Error.Message)
		}
		return errkind.Errorf(errkind.IO, "%s: planning a scan of %s failed on the server: %s", p.cat.c.name, p.id, msg)
	case "cancelled":
		return errkind.Errorf(errkind.IO, "%s: the server cancelled the scan plan of %s", p.cat.c.name, p.id)
	}
	return errkind.Errorf(errkind.Corrupt, "%s: scan plan status %q", p.cat.c.name, a.Status)
}

// planBuilder gathers the tasks of every answer into one table.Plan.
type planBuilder struct {
	cat             *Catalog
	config          map[string]string
	t               *table.Table
	plan            *table.Plan
	types           manifest.ContentFileTypes // its Schema is the scan's
	caseInsensitive bool
	// fallback is the whole filter bound, for tasks the server sends
	// without a residual (the protocol lets the client use the filter).
	fallback expr.Expr
	deletes  map[string]*table.DeleteFile
}

func (p *planner) newPlanBuilder(t *table.Table, snap *metadata.Snapshot, schema *iceberg.Schema, filter expr.Expr, caseInsensitive bool) (*planBuilder, error) {
	types, err := t.ContentFileTypes(schema)
	if err != nil {
		return nil, err
	}
	b := &planBuilder{
		cat: p.cat, config: p.config, t: t,
		plan:  &table.Plan{Snapshot: snap, Schema: schema},
		types: types, caseInsensitive: caseInsensitive,
		deletes: map[string]*table.DeleteFile{},
	}
	if filter != nil {
		bound, err := expr.Bind(filter, schema, caseInsensitive)
		if err != nil {
			return nil, err
		}
		b.fallback = bound
	}
	return b, nil
}

// credentials gives the plan a FileIO of its own when the server vended
// credentials for the planned files.
func (b *planBuilder) credentials(creds []storageCredential) error {
	if len(creds) == 0 {
		return nil
	}
	t := &table.Table{Metadata: b.t.Metadata}
	if err := b.cat.attachIO(t, b.config, creds); err != nil {
		return err
	}
	b.plan.IO = t.IO
	return nil
}

func (b *planBuilder) add(a planAnswer) error {
	deletes := make([]*table.DeleteFile, len(a.DeleteFiles))
	for i, raw := range a.DeleteFiles {
		f, err := manifest.ParseContentFileJSON(raw, b.types)
		if err != nil {
			return fmt.Errorf("server scan plan: delete file %d: %w", i, err)
		}
		if f.Content == manifest.ContentData {
			return errkind.Errorf(errkind.Corrupt, "server scan plan: delete file %d (%s) is a data file", i, f.FilePath)
		}
		path := b.t.Locations.Apply(f.FilePath)
		d, seen := b.deletes[path]
		if !seen {
			d = &table.DeleteFile{Path: path, File: f}
			b.deletes[path] = d
			b.plan.DeleteFiles = append(b.plan.DeleteFiles, d)
		}
		deletes[i] = d
	}
	for i, raw := range a.FileScanTasks {
		var j fileScanTaskJSON
		if err := json.Unmarshal(raw, &j); err != nil || len(j.DataFile) == 0 {
			return errkind.Errorf(errkind.Corrupt, "server scan plan: file scan task %d is not a FileScanTask", i)
		}
		f, err := manifest.ParseContentFileJSON(j.DataFile, b.types)
		if err != nil {
			return fmt.Errorf("server scan plan: task %d: %w", i, err)
		}
		if f.Content != manifest.ContentData {
			return errkind.Errorf(errkind.Corrupt, "server scan plan: task %d's data file %s holds deletes", i, f.FilePath)
		}
		task := table.DataFileTask{Path: b.t.Locations.Apply(f.FilePath), File: f, Residual: b.fallback}
		for _, ref := range j.DeleteFileRefs {
			if ref < 0 || ref >= len(deletes) {
				return errkind.Errorf(errkind.Corrupt, "server scan plan: task %d refers to delete file %d of %d", i, ref, len(deletes))
			}
			task.Deletes = append(task.Deletes, deletes[ref])
		}
		if len(j.Residual) > 0 && string(j.Residual) != "null" {
			residual, err := b.residual(j.Residual)
			if err != nil {
				return fmt.Errorf("server scan plan: task %d's residual filter: %w", i, err)
			}
			task.Residual = residual
		}
		b.plan.Tasks = append(b.plan.Tasks, task)
	}
	return nil
}

func (b *planBuilder) residual(raw json.RawMessage) (expr.Expr, error) {
	e, err := expr.ParseJSON(raw)
	if err != nil {
		return nil, errkind.Default(errkind.Corrupt, err)
	}
	bound, err := expr.Bind(e, b.types.Schema, b.caseInsensitive)
	if err != nil {
		return nil, errkind.Default(errkind.Corrupt, err)
	}
	return bound, nil
}
