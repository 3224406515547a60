package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/floedb/floe/iceberg/action"
)

const (
	branchUsage = "usage: floe branch create|replace|drop|rename TABLE NAME [NEW_NAME] [--snapshot ID] [--min-snapshots-to-keep N] [--max-snapshot-age-ms MS] [--max-ref-age-ms MS]"
	tagUsage    = "usage: floe tag create|replace|drop TABLE NAME [--snapshot ID] [--max-ref-age-ms MS]"
)

// runBranch creates, replaces, drops and renames branches.
func runBranch(ctx context.Context, raw []string, out, _ io.Writer) error {
	return runRef(ctx, raw, out, "branch", branchUsage)
}

// runTag creates, replaces and drops tags.
func runTag(ctx context.Context, raw []string, out, _ io.Writer) error {
	return runRef(ctx, raw, out, "tag", tagUsage)
}

// refVerbs are what branch and tag do, with the positional arguments
// each takes after its word (TABLE NAME, and NEW_NAME for rename).
var refVerbs = map[string]map[string]int{
	"branch": {"create": 2, "replace": 2, "drop": 2, "rename": 3},
	"tag":    {"create": 2, "replace": 2, "drop": 2},
}

// runRef is branch and tag: one ManageSnapshots action, committed alone.
func runRef(ctx context.Context, raw []string, out io.Writer, kind, usage string) error {
	retention := []string{"max-ref-age-ms"}
	if kind == "branch" {
		retention = append(retention, "min-snapshots-to-keep", "max-snapshot-age-ms")
	}
	a, err := parseArgs(raw, append([]string{"warehouse", "map", "snapshot"}, retention...), []string{"no-relocate"})
	if err != nil {
		return err
	}
	if len(a.positional) == 0 {
		return errors.New(usage)
	}
	verb := a.positional[0]
	n, ok := refVerbs[kind][verb]
	if !ok {
		return fmt.Errorf("unknown %s action %q (%s)", kind, verb, strings.Join(slices.Sorted(maps.Keys(refVerbs[kind])), ", "))
	}
	if len(a.positional)-1 != n {
		return errors.New(usage)
	}
	name := a.positional[2]
	var snapshot int64
	if v, ok := a.last("snapshot"); ok {
		if verb == "drop" || verb == "rename" {
			return fmt.Errorf("%s %s takes no --snapshot", kind, verb)
		}
		if snapshot, err = parseSnapshotID("--snapshot", v); err != nil {
			return err
		}
	} else if verb == "replace" {
		return fmt.Errorf("%s replace needs --snapshot ID", kind)
	}
	ms := &action.ManageSnapshots{}
	switch kind + " " + verb {
	case "branch create":
		ms.CreateBranch(name, snapshot)
	case "branch replace":
		ms.ReplaceBranch(name, snapshot)
	case "branch drop":
		ms.RemoveBranch(name)
	case "branch rename":
		ms.RenameBranch(name, a.positional[3])
	case "tag create":
		ms.CreateTag(name, snapshot)
	case "tag replace":
		ms.ReplaceTag(name, snapshot)
	case "tag drop":
		ms.RemoveTag(name)
	}
	if err := refRetention(a, ms, kind, verb, name); err != nil {
		return err
	}
	if err := ms.Err(); err != nil {
		return err
	}
	t, err := a.loadTable(ctx, a.positional[1])
	if err != nil {
		return err
	}
	return applyAndReport(ctx, out, kind, []string{verb + "-" + kind}, t, ms)
}

// refRetention chains the retention flags after create or replace: what
// expiry keeps of this ref.
func refRetention(a *args, ms *action.ManageSnapshots, kind, verb, name string) error {
	for _, flag := range []string{"min-snapshots-to-keep", "max-snapshot-age-ms", "max-ref-age-ms"} {
		v, ok := a.last(flag)
		if !ok {
			continue
		}
		if verb != "create" && verb != "replace" {
			return fmt.Errorf("%s %s takes no --%s", kind, verb, flag)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("--%s wants a whole number, got %q", flag, v)
		}
		switch flag {
		case "min-snapshots-to-keep":
			if int64(int(n)) != n {
				return fmt.Errorf("--%s: %d is too large", flag, n)
			}
			ms.SetMinSnapshotsToKeep(name, int(n))
		case "max-snapshot-age-ms":
			ms.SetMaxSnapshotAgeMs(name, n)
		case "max-ref-age-ms":
			ms.SetMaxRefAgeMs(name, n)
		}
	}
	return nil
}

// parseSnapshotID reads a snapshot id given to flag (or as an argument).
func parseSnapshotID(flag, v string) (int64, error) {
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s wants a snapshot id, got %q", flag, v)
	}
	return id, nil
}
