package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog/open"
)

// Whatever a failing command prints passes through the secrets of its
// command line, in each way they can be given.
func TestArgumentSecretsMaskEveryForm(t *testing.T) {
	t.Setenv(open.EnvCatalog, "postgresql://u:ENVS3CRET@h/db")
	argv := []string{"scan", "db.t",
		"--catalog", "http://u:URIS3CRET%zz@host/",
		"--catalog=sqlite:///c.db?_auth_pass=QUERYS3CRET",
		"--catalog-prop", "token=TOKENS3CRET",
		"--catalog-prop=header.X-Api-Key=HEADERS3CRET",
		"--catalog-prop", "warehouse=/visible/warehouse",
	}
	secrets := argumentSecrets(argv)
	err := secrets.Error(errors.New("failed: ENVS3CRET URIS3CRET%zz QUERYS3CRET TOKENS3CRET \"HEADERS3CRET\" /visible/warehouse"))
	if strings.Contains(err.Error(), "S3CRET") || !strings.Contains(err.Error(), "/visible/warehouse") {
		t.Fatalf("%v", err)
	}
}
