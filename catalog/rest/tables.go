package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// loadResult is the protocol's LoadTableResult: the table's metadata,
// where it lives, and the settings (config, storage-credentials) its
// files are reached with.
type loadResult struct {
	MetadataLocation   string              `json:"metadata-location"`
	Metadata           json.RawMessage     `json:"metadata"`
	Config             map[string]string   `json:"config"`
	StorageCredentials []storageCredential `json:"storage-credentials"`
}

type storageCredential struct {
	Prefix string            `json:"prefix"`
	Config map[string]string `json:"config"`
}

func (cat *Catalog) tablePath(id catalog.Identifier, more ...string) string {
	return cat.path(append([]string{"namespaces", cat.nsPart(id.Namespace), "tables", id.Name}, more...)...)
}

func checkIdent(id catalog.Identifier) error {
	if err := checkNamespace(id.Namespace); err != nil {
		return err
	}
	if id.Name == "" {
		return errkind.Errorf(errkind.InvalidArgument, "a table needs a name")
	}
	return nil
}

func (cat *Catalog) LoadTable(ctx context.Context, id catalog.Identifier) (*table.Table, error) {
	if err := checkIdent(id); err != nil {
		return nil, err
	}
	var res loadResult
	err := cat.c.do(ctx, request{method: http.MethodGet, path: cat.tablePath(id), idempotent: true}, &res)
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", id, refine(err, catalog.ErrNoSuchTable, nil))
	}
	return cat.tableOf(id, &res)
}

// tableOf is the table a LoadTableResult describes, committing through
// this catalog.
func (cat *Catalog) tableOf(id catalog.Identifier, res *loadResult) (*table.Table, error) {
	if len(res.Metadata) == 0 {
		return nil, errkind.Errorf(errkind.Corrupt, "%s: table %s: the answer has no metadata", cat.c.name, id)
	}
	md, err := metadata.Parse(res.Metadata)
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: %w", cat.c.name, id, err)
	}
	t := &table.Table{Metadata: md, MetadataLocation: res.MetadataLocation}
	if err := cat.attachIO(t, res.Config, res.StorageCredentials); err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	t.Publisher = &publisher{cat: cat, id: id}
	pl := &planner{cat: cat, id: id, config: res.Config}
	switch d := res.Config[tableDirective]; d {
	case "client", "server":
		pl.directive = d
	}
	t.Planner = pl
	return t, nil
}

func (cat *Catalog) TableExists(ctx context.Context, id catalog.Identifier) (bool, error) {
	if err := checkIdent(id); err != nil {
		return false, err
	}
	method := http.MethodHead
	if !cat.supports("HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}") {
		method = http.MethodGet
	}
	err := cat.c.do(ctx, request{method: method, path: cat.tablePath(id), idempotent: true}, nil)
	if errors.Is(err, errkind.NotFound) {
		return false, nil
	}
	return err == nil, err
}

func (cat *Catalog) ListTables(ctx context.Context, ns []string) ([]catalog.Identifier, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	var out []catalog.Identifier
	err := cat.pages(ctx, cat.path("namespaces", cat.nsPart(ns), "tables"), url.Values{}, func(page *listPage) {
		for _, id := range page.Identifiers {
			out = append(out, catalog.Identifier{Namespace: id.Namespace, Name: id.Name})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("list tables of %s: %w", catalog.JoinNamespace(ns), refine(err, catalog.ErrNoSuchNamespace, nil))
	}
	return out, nil
}

// CreateTable sends the schema, spec, sort order and properties; the
// server assigns the table's ids and writes its first metadata file.
func (cat *Catalog) CreateTable(ctx context.Context, id catalog.Identifier, schema *iceberg.Schema, opts catalog.CreateOptions) (*table.Table, error) {
	if err := catalog.CheckNewIdentifier(id); err != nil {
		return nil, err
	}
	if schema == nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "create table %s: no schema", id)
	}
	props := map[string]string{}
	for k, v := range opts.Properties {
		props[k] = v
	}
	if opts.FormatVersion != 0 {
		props["format-version"] = strconv.Itoa(opts.FormatVersion)
	}
	body := map[string]any{
		"name":         id.Name,
		"schema":       schema,
		"stage-create": false,
		"properties":   props,
	}
	if opts.Location != "" {
		body["location"] = opts.Location
	}
	if opts.Spec != nil {
		body["partition-spec"] = *opts.Spec
	}
	if opts.SortOrder != nil {
		body["write-order"] = *opts.SortOrder
	}
	var res loadResult
	err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.path("namespaces", cat.nsPart(id.Namespace), "tables"), body: body}, &res)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", id, refine(err, catalog.ErrNoSuchNamespace, catalog.ErrTableExists))
	}
	return cat.tableOf(id, &res)
}

func (cat *Catalog) RegisterTable(ctx context.Context, id catalog.Identifier, metadataLocation string) (*table.Table, error) {
	if err := catalog.CheckNewIdentifier(id); err != nil {
		return nil, err
	}
	body := map[string]any{"name": id.Name, "metadata-location": metadataLocation}
	var res loadResult
	err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.path("namespaces", cat.nsPart(id.Namespace), "register"), body: body}, &res)
	if err != nil {
		return nil, fmt.Errorf("register table %s: %w", id, refine(err, catalog.ErrNoSuchNamespace, catalog.ErrTableExists))
	}
	return cat.tableOf(id, &res)
}

// DropTable asks the server to forget the table and, with purge, to
// delete its files (the server does the deleting, as the protocol says).
func (cat *Catalog) DropTable(ctx context.Context, id catalog.Identifier, purge bool) error {
	if err := checkIdent(id); err != nil {
		return err
	}
	q := url.Values{"purgeRequested": {strconv.FormatBool(purge)}}
	err := cat.c.do(ctx, request{method: http.MethodDelete, path: cat.tablePath(id), query: q}, nil)
	if err != nil {
		return fmt.Errorf("drop table %s: %w", id, refine(err, catalog.ErrNoSuchTable, nil))
	}
	return nil
}

func (cat *Catalog) RenameTable(ctx context.Context, from, to catalog.Identifier) error {
	if err := checkIdent(from); err != nil {
		return err
	}
	if err := catalog.CheckNewIdentifier(to); err != nil {
		return err
	}
	body := map[string]any{"source": identJSON(from), "destination": identJSON(to)}
	err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.path("tables", "rename"), body: body}, nil)
	if err != nil {
		return fmt.Errorf("rename %s to %s: %w", from, to, refine(err, catalog.ErrNoSuchTable, catalog.ErrTableExists))
	}
	return nil
}

// publisher commits one table of the catalog: POST the updates and
// requirements, take the metadata the server answers with.
type publisher struct {
	cat *Catalog
	id  catalog.Identifier
}

func (p *publisher) Publish(ctx context.Context, base *table.Table, changes *metadata.Changes) (*table.Table, error) {
	reqs := changes.Requirements()
	if reqs == nil {
		reqs = []metadata.Requirement{}
	}
	body := map[string]any{
		"identifier":   identJSON(p.id),
		"requirements": reqs,
		"updates":      changes.Updates(),
	}
	var res loadResult
	err := p.cat.c.do(ctx, request{method: http.MethodPost, path: p.cat.tablePath(p.id), body: body}, &res)
	if err != nil {
		return nil, commitError(p.id.String(), err)
	}
	if len(res.Metadata) == 0 {
		// The commit happened; what it made is a load away.
		fresh, err := p.Refresh(ctx, base)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w: it was accepted, but loading the result failed: %w", p.id, table.ErrCommitStateUnknown, err)
		}
		return fresh, nil
	}
	md, perr := metadata.Parse(res.Metadata)
	if perr != nil {
		return nil, fmt.Errorf("commit %s: %w: the answer's metadata: %w", p.id, table.ErrCommitStateUnknown, perr)
	}
	return &table.Table{Metadata: md, MetadataLocation: res.MetadataLocation, IO: base.IO, Locations: base.Locations, Publisher: p, Planner: base.Planner}, nil
}

// commitError says what a failed commit of what (a table's name) means:
// 409 is a lost race (the loop refreshes and retries); a 5xx, or an answer
// that never came, leaves the outcome unknown; the rest failed before
// anything changed.
func commitError(what string, err error) error {
	var re *ResponseError
	switch {
	case errors.As(err, &re) && re.Status == http.StatusConflict:
		return fmt.Errorf("commit %s: %w (%v)", what, table.ErrStale, err)
	case errors.As(err, &re) && (re.Status >= 500 || (re.Status >= 300 && re.Status < 400)):
		// A 5xx may come after the change was made; a redirect may be a
		// see-other after it.
		return fmt.Errorf("commit %s: %w: %w", what, table.ErrCommitStateUnknown, err)
	case errors.Is(err, errBadAnswer):
		// Accepted (2xx), but the answer does not say what was made.
		return fmt.Errorf("commit %s: %w: %w", what, table.ErrCommitStateUnknown, err)
	case errors.As(err, &re):
		return fmt.Errorf("commit %s: %w", what, refine(err, catalog.ErrNoSuchTable, nil))
	case errors.Is(err, errSent):
		return fmt.Errorf("commit %s: %w: %w", what, table.ErrCommitStateUnknown, err)
	}
	return fmt.Errorf("commit %s: %w", what, err)
}

func (p *publisher) Refresh(ctx context.Context, t *table.Table) (*table.Table, error) {
	fresh, err := p.cat.LoadTable(ctx, p.id)
	if err != nil {
		return nil, err
	}
	fresh.Locations = t.Locations
	return fresh, nil
}
