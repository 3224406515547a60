package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/floedb/floe/errkind"
)

// ResponseError is an error answer of the catalog: its HTTP status and
// what the server said (the REST protocol's ErrorModel: type and
// message). Its kind follows the status; the catalog's operations refine
// it where the status means something particular to them (409 on a
// commit is a lost race, on a create an existing table).
type ResponseError struct {
	Catalog string
	Method  string
	Path    string
	Status  int
	// Type is the server's exception name (NoSuchTableException, …).
	Type    string
	Message string
}

func (e *ResponseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s: %d %s", e.Catalog, e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Type != "" {
		b.WriteString(": " + e.Type)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden || e.Status == 419 {
		b.WriteString(" (check the catalog's credential, token or signing properties)")
	}
	return b.String()
}

// Unwrap gives the status's kind.
func (e *ResponseError) Unwrap() error { return statusKind(e.Status) }

func statusKind(status int) errkind.Kind {
	switch {
	case status == http.StatusBadRequest, status == http.StatusUnprocessableEntity:
		return errkind.InvalidArgument
	case status == http.StatusUnauthorized, status == http.StatusForbidden, status == 419:
		return errkind.Unauthorized
	case status == http.StatusNotFound:
		return errkind.NotFound
	case status == http.StatusNotAcceptable, status == http.StatusNotImplemented:
		return errkind.Unsupported
	case status == http.StatusConflict:
		return errkind.Conflict
	}
	return errkind.IO
}

// responseError reads an error answer: the REST ErrorModel, an OAuth2
// error, or whatever text the server sent (a proxy's page), shortened.
func (c *client) responseError(req request, status int, body []byte) error {
	e := &ResponseError{Catalog: c.name, Method: req.method, Path: req.path, Status: status}
	var model struct {
		Error json.RawMessage `json:"error"`
		// OAuth2 (RFC 6749 §5.2) errors.
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &model) == nil && len(model.Error) > 0 {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var code string
		switch {
		case json.Unmarshal(model.Error, &inner) == nil:
			e.Type, e.Message = inner.Type, inner.Message
		case json.Unmarshal(model.Error, &code) == nil:
			e.Type, e.Message = code, model.Description
		}
	} else if text := c.secrets.String(strings.TrimSpace(string(body))); text != "" {
		// Redacted before it is cut short: a cut secret would show its
		// first part.
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		e.Message = text
	}
	e.Message = c.secrets.String(e.Message)
	e.Type = c.secrets.String(e.Type)
	return e
}
