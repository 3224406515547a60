package rest_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/crashtest"
)

// crashEnv hands the child its job: "<server URL>|<table name>|<step>".
const crashEnv = "FLOE_REST_CRASH_AT"

const crashToken = "rest-crash-1"

// A process appending through the REST catalog is killed (SIGKILL) at
// each step of its commit: its manifests written, its manifest list
// written, and after the server took the commit. The server (this
// process) keeps running. Whatever the step, the table loads, every file
// its snapshots name exists, and the append retried with the same token
// leaves the child's rows in the table exactly once.
func TestCrashAtEachRESTCommitStep(t *testing.T) {
	ctx := context.Background()
	s := newServer(t)
	c := open(t, s, nil)
	if err := c.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	for i, step := range []string{"manifests", "manifest-list", "published"} {
		t.Run(step, func(t *testing.T) {
			id := catalog.Identifier{Namespace: []string{"db"}, Name: fmt.Sprintf("t%d", i)}
			tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			catalogtest.MustAppend(t, tbl, [][]any{{int64(1), "base"}}, "")
			crashtest.RunKilled(t, "TestRESTCrashChild", fmt.Sprintf("%s=%s|%s|%s", crashEnv, s.URL, id.Name, step))
			after, err := c.LoadTable(ctx, id)
			if err != nil {
				t.Fatalf("load after a kill at %s: %v", step, err)
			}
			for _, snap := range after.Metadata.Snapshots {
				plan, err := after.PlanFiles(ctx, table.SnapshotSelector{SnapshotID: &snap.SnapshotID})
				if err != nil {
					t.Fatal(err)
				}
				for _, task := range plan.Tasks {
					if _, err := os.Stat(strings.TrimPrefix(task.Path, "file://")); err != nil {
						t.Fatalf("kill at %s: snapshot %d names missing %s", step, snap.SnapshotID, task.Path)
					}
				}
			}
			committed := step == "published"
			if got, want := catalogtest.IDs(t, after), map[bool][]int64{false: {1}, true: {1, 2, 3}}[committed]; !slices.Equal(got, want) {
				t.Fatalf("kill at %s: rows %v, want %v", step, got, want)
			}
			res, err := catalogtest.Append(t, after, crashRows, crashToken)
			if err != nil {
				t.Fatal(err)
			}
			if res.TokenFound != committed {
				t.Fatalf("kill at %s: the retry found the token: %v, want %v", step, res.TokenFound, committed)
			}
			final, err := c.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := catalogtest.IDs(t, final); !slices.Equal(got, []int64{1, 2, 3}) {
				t.Fatalf("kill at %s: rows %v after the retry", step, got)
			}
		})
	}
}

var crashRows = [][]any{{int64(2), "child"}, {int64(3), "child"}}

// TestRESTCrashChild is the process TestCrashAtEachRESTCommitStep kills.
func TestRESTCrashChild(t *testing.T) {
	job := os.Getenv(crashEnv)
	if job == "" {
		t.Skip("run by TestCrashAtEachRESTCommitStep")
	}
	parts := strings.Split(job, "|")
	url, name, step := parts[0], parts[1], parts[2]
	c, err := rest.Open(context.Background(), url, map[string]string{rest.PropCredential: "floe:" + secret}, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := c.LoadTable(context.Background(), catalog.Identifier{Namespace: []string{"db"}, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	crashtest.KillAt(step)
	if _, err := catalogtest.Append(t, tbl, crashRows, crashToken); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("the append passed step %s without stopping", step)
}
