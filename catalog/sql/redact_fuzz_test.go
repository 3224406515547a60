package sql

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// A catalog URI's password never shows in what the catalog says of it:
// its name (redact) or an error quoting the URI (redactErr), whatever the
// rest of the URI holds, a malformed one included.
func FuzzCatalogURIRedaction(f *testing.F) {
	f.Add("floe", "s3cr3tpass", "127.0.0.1:5432/db")
	f.Add("u", "p@ss%zzword", "host/db?sslmode=disable")
	f.Add("", "hunter22", "[::1]:5432/x")
	f.Add("a b", "pa ss wo rd", "h:notaport/db")
	f.Fuzz(func(t *testing.T, user, password, rest string) {
		if len(password) < 6 || strings.Trim(password, "0123456789abcdefABCDEF%") == "" ||
			strings.Contains("postgresql://:@xxxxx(unparseable URI)?…", password) {
			return // too short, or what escaping alone can spell
		}
		for _, part := range []string{user, rest} {
			for _, spelled := range []string{part, url.PathEscape(part), url.QueryEscape(part)} {
				if strings.Contains(spelled, password) {
					return // the rest of the URI spells it too
				}
			}
		}
		uri := "postgresql://" + user + ":" + password + "@" + rest
		if strings.Contains(redact(uri), password) {
			t.Fatalf("redact(%q) = %q shows the password", uri, redact(uri))
		}
		err := redactErr(errors.New("connect to "+uri+": refused"), uri)
		if strings.Contains(err.Error(), password) {
			t.Fatalf("redactErr shows the password: %v", err)
		}
	})
}
