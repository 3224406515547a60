package version

import (
	"os"
	"regexp"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

func TestMatchesTheHeader(t *testing.T) {
	header, err := os.ReadFile(fixtures.RepoPath("include", "floe.h"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`#define FLOE_VERSION_STRING "([^"]+)"`).FindSubmatch(header)
	if m == nil || string(m[1]) != String {
		t.Fatalf("include/floe.h declares %q, version.String is %q", m, String)
	}
}
