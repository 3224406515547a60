//! A changelog scan through the safe API ("changelog": true in the scan
//! JSON): on Impala's table of four appends then two snapshots of position
//! deletes, each snapshot's changes number what its summary says it added
//! or deleted, and the changelog's tasks read as its stream.
use std::collections::BTreeMap;
use std::path::PathBuf;

use floe::{sys, Table, Task};

const NAME: &str = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files";
const LAST_APPEND: i64 = 7490459762454857930;

fn table() -> (Table, String) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/fixtures").join(NAME);
    let dir = p.canonicalize().unwrap().to_string_lossy().into_owned();
    let prefix = format!("/test-warehouse/iceberg_test/hadoop_catalog/ice/{}", NAME.trim_start_matches("impala_"));
    let opts = format!(r#"{{"location_map": {{"{prefix}": "{dir}", "hdfs://localhost:20500{prefix}": "{dir}"}}}}"#);
    (Table::open(&dir, Some(&opts)).unwrap(), opts)
}

/// How many changes each _change_ordinal has: the batches' only column.
fn per_ordinal(batches: floe::BatchStream) -> BTreeMap<i32, usize> {
    let mut out = BTreeMap::new();
    for b in batches {
        let b = b.unwrap();
        assert_eq!(b.schema.field_names(), ["_change_ordinal"]);
        let a = b.array.raw();
        let values = unsafe {
            let child = &**a.children;
            let v = *child.buffers.add(1) as *const i32;
            (0..child.length).map(|i| *v.add((child.offset + i) as usize)).collect::<Vec<_>>()
        };
        for o in values {
            *out.entry(o).or_default() += 1;
        }
    }
    out
}

#[test]
fn changelog_scan_counts_each_snapshots_changes() {
    let (t, opts) = table();
    let all = t.scan(Some(r#"{"changelog": true}"#)).unwrap();
    let names = all.stream().unwrap().next().unwrap().unwrap().schema.field_names();
    assert_eq!(names, ["i", "s", "_change_type", "_change_ordinal", "_commit_snapshot_id"]);
    assert_eq!(all.count().unwrap(), 14, "10 rows appended, 4 deleted");
    // The appends added 3, 3, 3 and 1 rows; the deletes removed 1 and 3.
    let scan = t.scan(Some(r#"{"changelog": true, "columns": ["_change_ordinal"]}"#)).unwrap();
    let want = BTreeMap::from([(0, 3), (1, 3), (2, 3), (3, 1), (4, 1), (5, 3)]);
    assert_eq!(per_ordinal(scan.stream().unwrap()), want);
    let from = format!(r#"{{"changelog": true, "from_snapshot_id": {LAST_APPEND}, "columns": ["_change_ordinal"]}}"#);
    let deletes = t.scan(Some(&from)).unwrap();
    assert_eq!(per_ordinal(deletes.stream().unwrap()), BTreeMap::from([(0, 1), (1, 3)]));
    // Each task read on its own (here from its bytes), in order: the same.
    let tasks = scan.tasks().unwrap();
    assert!(tasks.len() >= 6, "{} tasks", tasks.len());
    let mut by_tasks = BTreeMap::new();
    for task in &tasks {
        for (o, n) in per_ordinal(Task::from_bytes(task.as_bytes().to_vec()).stream(Some(&opts)).unwrap()) {
            *by_tasks.entry(o).or_default() += n;
        }
    }
    assert_eq!(by_tasks, want);
    let err = scan.add_filter("i > 1").unwrap_err();
    assert_eq!(err.status, sys::FLOE_UNSUPPORTED, "{err}");
}
