package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/open"
	"github.com/floedb/floe/iceberg/table"
)

// catalogHandle is what a floe_catalog* stands for. The tables loaded
// from a catalog commit through it, so it stays open until the handle and
// every such table are freed, whichever goes last.
type catalogHandle struct {
	cat  catalog.Catalog
	mu   sync.Mutex
	refs int
	// timeout bounds each call on the catalog and on tables loaded from
	// it (the "timeout-ms" property, catalog.PropTimeout).
	timeout time.Duration
}

// call is the context of one call on the catalog (callContext).
func (h *catalogHandle) call() (context.Context, context.CancelFunc) {
	return callContext(context.Background(), h.timeout)
}

// retain counts one more holder; releaseRef closes the catalog when the
// last one lets go.
func (h *catalogHandle) retain() {
	h.mu.Lock()
	h.refs++
	h.mu.Unlock()
}

func (h *catalogHandle) releaseRef() {
	h.mu.Lock()
	h.refs--
	last := h.refs == 0
	h.mu.Unlock()
	if last {
		_ = h.cat.Close()
	}
}

// tableOf hands out a table the catalog loaded, holding the catalog open
// for it.
func (h *catalogHandle) tableOf(t *table.Table) C.uintptr_t {
	h.retain()
	return C.uintptr_t(newHandle(&tableHandle{table: t, onFree: h.releaseRef, timeout: h.timeout}))
}

// catalogProperties reads the properties JSON: an object of strings
// (numbers and booleans are taken as their text, as pyiceberg does).
func catalogProperties(data []byte) (map[string]string, error) {
	raw, err := checkJSON(data, "catalog properties")
	if err != nil || raw == nil {
		return map[string]string{}, err
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, invalidArgument("catalog properties must be a JSON object of strings: %v", err)
	}
	props := make(map[string]string, len(obj))
	for k, v := range obj {
		switch v := v.(type) {
		case string:
			props[k] = v
		case bool, float64:
			b, _ := json.Marshal(v)
			props[k] = string(b)
		default:
			return nil, invalidArgument("catalog property %q must be a string", k)
		}
	}
	return props, nil
}

func namespaceArg(s *C.char) ([]string, error) {
	ns := C.GoString(s)
	if ns == "" {
		return nil, invalidArgument("namespace is empty")
	}
	return catalog.SplitNamespace(ns), nil
}

func identifierArg(s *C.char) (catalog.Identifier, error) {
	id, err := catalog.ParseIdentifier(C.GoString(s))
	if err != nil {
		return id, invalidArgument("%v", err)
	}
	return id, nil
}

func lookupCatalog(h C.uintptr_t) (*catalogHandle, error) {
	return lookup[*catalogHandle](uintptr(h), "floe_catalog")
}

//export capiCatalogOpen
func capiCatalogOpen(uri, propsJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_catalog_open"
	defer recoverStatus(fn, &rc)
	props, err := catalogProperties(cBytes(propsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	where := C.GoString(uri)
	if where == "" {
		where = props["uri"]
	}
	delete(props, "uri")
	if where == "" {
		return fail(fn, invalidArgument("the catalog URI is empty (give it, or the \"uri\" property)"), statusInvalidArgument)
	}
	h := &catalogHandle{refs: 1}
	// The catalog bounds its own opening and connections by timeout-ms
	// too, so it is passed on.
	timeout, _, err := catalog.Timeout(props)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	h.timeout = timeout
	ctx, cancel := h.call()
	defer cancel()
	cat, err := open.Catalog(ctx, where, props, table.Options{})
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	h.cat = cat
	*out = C.uintptr_t(newHandle(h))
	return C.int(statusOK)
}

//export capiCatalogLoadTable
func capiCatalogLoadTable(h C.uintptr_t, name *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_catalog_load_table"
	defer recoverStatus(fn, &rc)
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	id, err := identifierArg(name)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx, cancel := ch.call()
	defer cancel()
	t, err := ch.cat.LoadTable(ctx, id)
	if err != nil {
		return fail(fn, err, statusFormat)
	}
	*out = ch.tableOf(t)
	return C.int(statusOK)
}

//export capiCatalogCreateTable
func capiCatalogCreateTable(h C.uintptr_t, name, schemaJSON, optionsJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_catalog_create_table"
	defer recoverStatus(fn, &rc)
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	id, err := identifierArg(name)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	opts, err := parseCreateOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if opts.Warehouse != "" || opts.S3 != nil || opts.GCS != nil || opts.Azure != nil {
		return fail(fn, invalidArgument("create options: a catalog table takes its warehouse and storage from the catalog, not from warehouse, s3, gcs or azure"), statusInvalidArgument)
	}
	schema, spec, order, err := opts.tableDefinition(cBytes(schemaJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx, cancel := ch.call()
	defer cancel()
	t, err := ch.cat.CreateTable(ctx, id, schema, catalog.CreateOptions{Spec: spec, SortOrder: order, Properties: opts.Properties, FormatVersion: opts.FormatVersion, Location: opts.Location})
	if opts.Ensure && errors.Is(err, catalog.ErrTableExists) {
		if t, err = ch.cat.LoadTable(ctx, id); err == nil {
			err = t.UpdateSchemaByName(ctx, schema)
		}
	}
	if err != nil {
		return fail(fn, err, createFailureStatus(err))
	}
	*out = ch.tableOf(t)
	return C.int(statusOK)
}

//export capiCatalogRegisterTable
func capiCatalogRegisterTable(h C.uintptr_t, name, metadataLocation *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_catalog_register_table"
	defer recoverStatus(fn, &rc)
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	id, err := identifierArg(name)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	loc := C.GoString(metadataLocation)
	if loc == "" {
		return fail(fn, invalidArgument("metadata location is empty"), statusInvalidArgument)
	}
	ctx, cancel := ch.call()
	defer cancel()
	t, err := ch.cat.RegisterTable(ctx, id, loc)
	if err != nil {
		return fail(fn, err, createFailureStatus(err))
	}
	*out = ch.tableOf(t)
	return C.int(statusOK)
}

// catalogOp runs one operation of a catalog handle that returns nothing.
func catalogOp(fn string, h C.uintptr_t, op func(ctx context.Context, cat catalog.Catalog) error) C.int {
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx, cancel := ch.call()
	defer cancel()
	if err := op(ctx, ch.cat); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return C.int(statusOK)
}

// catalogJSON runs one operation of a catalog handle whose answer goes out
// as JSON in *out.
func catalogJSON(fn string, h C.uintptr_t, out **C.char, op func(ctx context.Context, cat catalog.Catalog) (any, error)) C.int {
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx, cancel := ch.call()
	defer cancel()
	v, err := op(ctx, ch.cat)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*out = cString(data)
	return C.int(statusOK)
}

//export capiCatalogListNamespaces
func capiCatalogListNamespaces(h C.uintptr_t, parent *C.char, out **C.char) (rc C.int) {
	const fn = "floe_catalog_list_namespaces"
	defer recoverStatus(fn, &rc)
	var under []string
	if p := C.GoString(parent); p != "" {
		under = catalog.SplitNamespace(p)
	}
	return catalogJSON(fn, h, out, func(ctx context.Context, cat catalog.Catalog) (any, error) {
		list, err := cat.ListNamespaces(ctx, under)
		if list == nil {
			list = [][]string{}
		}
		return list, err
	})
}

//export capiCatalogListTables
func capiCatalogListTables(h C.uintptr_t, namespace *C.char, out **C.char) (rc C.int) {
	const fn = "floe_catalog_list_tables"
	defer recoverStatus(fn, &rc)
	ns, err := namespaceArg(namespace)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return catalogJSON(fn, h, out, func(ctx context.Context, cat catalog.Catalog) (any, error) {
		list, err := cat.ListTables(ctx, ns)
		names := make([][]string, 0, len(list))
		for _, id := range list {
			names = append(names, append(append([]string(nil), id.Namespace...), id.Name))
		}
		return names, err
	})
}

//export capiCatalogNamespaceProperties
func capiCatalogNamespaceProperties(h C.uintptr_t, namespace *C.char, out **C.char) (rc C.int) {
	const fn = "floe_catalog_namespace_properties"
	defer recoverStatus(fn, &rc)
	ns, err := namespaceArg(namespace)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return catalogJSON(fn, h, out, func(ctx context.Context, cat catalog.Catalog) (any, error) {
		return cat.NamespaceProperties(ctx, ns)
	})
}

//export capiCatalogUpdateNamespaceProperties
func capiCatalogUpdateNamespaceProperties(h C.uintptr_t, namespace, removalsJSON, updatesJSON *C.char) (rc C.int) {
	const fn = "floe_catalog_update_namespace_properties"
	defer recoverStatus(fn, &rc)
	ns, err := namespaceArg(namespace)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	var removals []string
	if raw, err := checkJSON(cBytes(removalsJSON), "removals"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	} else if raw != nil {
		if err := json.Unmarshal(raw, &removals); err != nil {
			return fail(fn, invalidArgument("removals must be a JSON array of strings: %v", err), statusInvalidArgument)
		}
	}
	updates, err := catalogProperties(cBytes(updatesJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return catalogOp(fn, h, func(ctx context.Context, cat catalog.Catalog) error {
		return cat.UpdateNamespaceProperties(ctx, ns, removals, updates)
	})
}

//export capiCatalogCreateNamespace
func capiCatalogCreateNamespace(h C.uintptr_t, namespace, propsJSON *C.char) (rc C.int) {
	const fn = "floe_catalog_create_namespace"
	defer recoverStatus(fn, &rc)
	ns, err := namespaceArg(namespace)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	props, err := catalogProperties(cBytes(propsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return catalogOp(fn, h, func(ctx context.Context, cat catalog.Catalog) error {
		return cat.CreateNamespace(ctx, ns, props)
	})
}

//export capiCatalogDropNamespace
func capiCatalogDropNamespace(h C.uintptr_t, namespace *C.char) (rc C.int) {
	const fn = "floe_catalog_drop_namespace"
	defer recoverStatus(fn, &rc)
	ns, err := namespaceArg(namespace)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return catalogOp(fn, h, func(ctx context.Context, cat catalog.Catalog) error { return cat.DropNamespace(ctx, ns) })
}

//export capiCatalogDropTable
func capiCatalogDropTable(h C.uintptr_t, name *C.char, purge C.int) (rc C.int) {
	const fn = "floe_catalog_drop_table"
	defer recoverStatus(fn, &rc)
	id, err := identifierArg(name)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return catalogOp(fn, h, func(ctx context.Context, cat catalog.Catalog) error { return cat.DropTable(ctx, id, purge != 0) })
}

//export capiCatalogRenameTable
func capiCatalogRenameTable(h C.uintptr_t, from, to *C.char) (rc C.int) {
	const fn = "floe_catalog_rename_table"
	defer recoverStatus(fn, &rc)
	src, err := identifierArg(from)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	dst, err := identifierArg(to)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return catalogOp(fn, h, func(ctx context.Context, cat catalog.Catalog) error { return cat.RenameTable(ctx, src, dst) })
}

//export capiCatalogExists
func capiCatalogExists(h C.uintptr_t, name *C.char, isTable C.int, out *C.int) (rc C.int) {
	const fn = "floe_catalog_exists"
	defer recoverStatus(fn, &rc)
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx, cancel := ch.call()
	defer cancel()
	var found bool
	if isTable != 0 {
		id, err := identifierArg(name)
		if err != nil {
			return fail(fn, err, statusInvalidArgument)
		}
		found, err = ch.cat.TableExists(ctx, id)
		if err != nil {
			return fail(fn, err, statusIO)
		}
	} else {
		ns, err := namespaceArg(name)
		if err != nil {
			return fail(fn, err, statusInvalidArgument)
		}
		if found, err = ch.cat.NamespaceExists(ctx, ns); err != nil {
			return fail(fn, err, statusIO)
		}
	}
	*out = 0
	if found {
		*out = 1
	}
	return C.int(statusOK)
}

//export capiCatalogFree
func capiCatalogFree(h C.uintptr_t) (rc C.int) {
	const fn = "floe_catalog_free"
	defer recoverStatus(fn, &rc)
	ch, err := lookupCatalog(h)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if err := release[*catalogHandle](uintptr(h), "floe_catalog"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ch.releaseRef()
	return C.int(statusOK)
}
