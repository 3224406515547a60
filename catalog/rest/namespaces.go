package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
)

// refine gives a catalog error its meaning for the operation: a 404 is
// the namespace or the table named by the server's exception type (else
// notFound), a 409 is conflict.
func refine(err error, notFound, conflict error) error {
	var re *ResponseError
	if !errors.As(err, &re) {
		return err
	}
	switch re.Status {
	case http.StatusNotFound:
		switch re.Type {
		case "NoSuchNamespaceException":
			notFound = catalog.ErrNoSuchNamespace
		case "NoSuchTableException":
			notFound = catalog.ErrNoSuchTable
		}
		if notFound != nil {
			return fmt.Errorf("%w (%w)", err, notFound)
		}
	case http.StatusConflict:
		if conflict != nil {
			return fmt.Errorf("%w (%w)", err, conflict)
		}
	}
	return err
}

func (cat *Catalog) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	if err := catalog.CheckNewNamespace(ns); err != nil {
		return err
	}
	if props == nil {
		props = map[string]string{}
	}
	body := map[string]any{"namespace": ns, "properties": props}
	err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.path("namespaces"), body: body}, nil)
	return refine(err, nil, catalog.ErrNamespaceExists)
}

func checkNamespace(ns []string) error {
	if len(ns) == 0 {
		return errkind.Errorf(errkind.InvalidArgument, "a namespace needs at least one level")
	}
	for _, l := range ns {
		if l == "" {
			return errkind.Errorf(errkind.InvalidArgument, "namespace %q has an empty level", catalog.JoinNamespace(ns))
		}
	}
	return nil
}

func (cat *Catalog) DropNamespace(ctx context.Context, ns []string) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	err := cat.c.do(ctx, request{method: http.MethodDelete, path: cat.path("namespaces", cat.nsPart(ns))}, nil)
	return refine(err, catalog.ErrNoSuchNamespace, catalog.ErrNamespaceNotEmpty)
}

func (cat *Catalog) NamespaceExists(ctx context.Context, ns []string) (bool, error) {
	if err := checkNamespace(ns); err != nil {
		return false, err
	}
	method := http.MethodHead
	if !cat.supports("HEAD /v1/{prefix}/namespaces/{namespace}") {
		method = http.MethodGet
	}
	err := cat.c.do(ctx, request{method: method, path: cat.path("namespaces", cat.nsPart(ns)), idempotent: true}, nil)
	if errors.Is(err, errkind.NotFound) {
		return false, nil
	}
	return err == nil, err
}

func (cat *Catalog) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	var out [][]string
	q := url.Values{}
	if len(parent) > 0 {
		q.Set("parent", cat.nsPart(parent))
	}
	err := cat.pages(ctx, cat.path("namespaces"), q, func(page *listPage) {
		out = append(out, page.Namespaces...)
	})
	return out, refine(err, catalog.ErrNoSuchNamespace, nil)
}

// listPage is one page of a listing: namespaces or table identifiers,
// and the token of the next page.
type listPage struct {
	Namespaces  [][]string       `json:"namespaces"`
	Identifiers []tableIdentJSON `json:"identifiers"`
	Next        *string          `json:"next-page-token"`
}

type tableIdentJSON struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

func identJSON(id catalog.Identifier) tableIdentJSON {
	return tableIdentJSON{Namespace: id.Namespace, Name: id.Name}
}

// pages follows next-page-token until the listing ends. The first
// request carries an empty pageToken, which asks a paginating server to
// paginate (servers that do not ignore it).
func (cat *Catalog) pages(ctx context.Context, path string, q url.Values, each func(*listPage)) error {
	token := ""
	for range 1 << 20 {
		q.Set("pageToken", token)
		var page listPage
		if err := cat.c.do(ctx, request{method: http.MethodGet, path: path, query: q, idempotent: true}, &page); err != nil {
			return err
		}
		each(&page)
		if page.Next == nil || *page.Next == "" || *page.Next == token {
			return nil
		}
		token = *page.Next
	}
	return errkind.Errorf(errkind.Corrupt, "%s: GET %s: the listing never ends", cat.c.name, path)
}

func (cat *Catalog) NamespaceProperties(ctx context.Context, ns []string) (map[string]string, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	var answer struct {
		Properties map[string]string `json:"properties"`
	}
	err := cat.c.do(ctx, request{method: http.MethodGet, path: cat.path("namespaces", cat.nsPart(ns)), idempotent: true}, &answer)
	if err != nil {
		return nil, refine(err, catalog.ErrNoSuchNamespace, nil)
	}
	if answer.Properties == nil {
		answer.Properties = map[string]string{}
	}
	return answer.Properties, nil
}

func (cat *Catalog) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	if removals == nil {
		removals = []string{}
	}
	if updates == nil {
		updates = map[string]string{}
	}
	body := map[string]any{"removals": removals, "updates": updates}
	err := cat.c.do(ctx, request{method: http.MethodPost, path: cat.path("namespaces", cat.nsPart(ns), "properties"), body: body}, nil)
	return refine(err, catalog.ErrNoSuchNamespace, nil)
}
