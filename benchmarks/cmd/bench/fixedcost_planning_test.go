package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPlanningProfile runs one floe planning job in this process, for a
// CPU or memory profile of it (go test -run PlanningProfile -cpuprofile
// -memprofile), with FLOE_PLANNING_TABLE the -planning-data table
// directory and FLOE_PLANNING_OP the operation (default scan.New).
func TestPlanningProfile(t *testing.T) {
	dir := os.Getenv("FLOE_PLANNING_TABLE")
	if dir == "" {
		t.Skip("FLOE_PLANNING_TABLE not set")
	}
	op := os.Getenv("FLOE_PLANNING_OP")
	if op == "" {
		op = opFloeScan
	}
	reply, err := runPlanningJob(context.Background(), planningJob{Op: op, MetadataPath: filepath.Join(dir, "metadata", "v1.metadata.json"), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %+v", op, reply)
}
