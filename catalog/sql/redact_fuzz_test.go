package sql

import (
	"errors"
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
		if len(password) < 6 || strings.Contains(user, password) || strings.Contains(rest, password) ||
			strings.Contains("postgresql://:@xxxxx(unparseable URI)", password) {
			return // too short to tell from the rest, or spelled there too
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
