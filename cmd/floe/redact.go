package main

import (
	"os"
	"strings"

	"github.com/floedb/floe/catalog/open"
	"github.com/floedb/floe/internal/redact"
)

// argumentSecrets are the secrets a command line carries: the catalog
// URI's password and secret parameters, and the values of secret catalog
// properties (--catalog-prop token=…, header.X-Api-Key=…). Whatever a
// command prints on failure passes through them, the last guard behind
// the catalogs' own redaction (the same rule, internal/redact).
func argumentSecrets(argv []string) *redact.Secrets {
	s := &redact.Secrets{}
	if uri := os.Getenv(open.EnvCatalog); uri != "" {
		s.AddURI(uri)
	}
	props := map[string]string{}
	for i := 0; i < len(argv); i++ {
		arg := argv[i]
		if arg == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || name != "catalog" && name != "catalog-prop" {
			continue
		}
		if !hasValue {
			if i+1 >= len(argv) {
				break
			}
			i++
			value = argv[i]
		}
		if name == "catalog" {
			s.AddURI(value)
		} else if k, v, ok := strings.Cut(value, "="); ok {
			props[k] = v
		}
	}
	s.AddProperties(props)
	return s
}
