package redact

import (
	"errors"
	"os"
	"testing"
)

// Which properties are secrets: header values, and keys naming a secret
// by any of its usual words, whatever their prefix; not the rest.
func TestProperty(t *testing.T) {
	for _, k := range []string{"token", "credential", "s3.secret-access-key", "rest.session-token", "header.X-Api-Key",
		"header.authorization", "adls.sas-token.acct", "_auth_pass", "password", "gcs.oauth2.token", "x.api_key"} {
		if !Property(k) {
			t.Errorf("%s is not a secret", k)
		}
	}
	for _, k := range []string{"uri", "warehouse", "name", "s3.endpoint", "s3.access-key-id", "s3.path-style-access", "scope",
		"oauth2-server-uri", "rest.signing-region", "timeout-ms"} {
		if Property(k) {
			t.Errorf("%s is a secret", k)
		}
	}
}

// A flag's value is no secret to mask; an error keeps what errors.Is
// finds in it when its message is redacted.
func TestFlagsAndErrorChains(t *testing.T) {
	var s Secrets
	s.AddProperties(map[string]string{"token-exchange-enabled": "true", "token": "tok-S3CRET"})
	err := s.Error(errors.Join(os.ErrNotExist, errors.New("true: tok-S3CRET")))
	if got := err.Error(); got != "file does not exist\ntrue: xxxxx" {
		t.Errorf("%q", got)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Error("the redacted error lost its chain")
	}
}
