//! The safe API on the repository's fixture tables (written by DuckDB and
//! Impala): rows, values, filters, tasks and errors.
use std::collections::BTreeSet;
use std::path::PathBuf;

use floe::{sys, Table, Task};

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/fixtures").join(name);
    p.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", p.display())).to_string_lossy().into_owned()
}

fn lineitem() -> Table {
    let dir = fixture("duckdb_lineitem_iceberg");
    Table::open(&dir, Some(&format!(r#"{{"location_map": {{"lineitem_iceberg": "{dir}"}}}}"#))).unwrap()
}

fn partitioned() -> Table {
    let dir = fixture("impala_iceberg_partitioned");
    let opts = format!(r#"{{"location_map": {{"/test-warehouse/iceberg_test/iceberg_partitioned": "{dir}"}}}}"#);
    Table::open(&dir, Some(&opts)).unwrap()
}

/// The i32 values of a batch's first column (a non-null int column).
fn int32_column(b: &floe::Batch) -> Vec<i32> {
    let a = b.array.raw();
    unsafe {
        let child = &**a.children;
        let values = *child.buffers.add(1) as *const i32;
        (0..child.length).map(|i| *values.add((child.offset + i) as usize)).collect()
    }
}

#[test]
fn version_matches_the_header() {
    let header = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../include/floe.h")).unwrap();
    let line = header.lines().find(|l| l.starts_with("#define FLOE_VERSION_STRING")).unwrap();
    assert_eq!(line.split('"').nth(1).unwrap(), floe::version());
    assert_eq!(env!("CARGO_PKG_VERSION"), floe::version(), "the crates' version is the library's");
}

#[test]
fn lineitem_rows_through_the_stream() {
    let t = lineitem();
    assert!(t.metadata_json().unwrap().contains("\"format-version\""));
    assert!(t.metadata_location().unwrap().ends_with(".metadata.json"));
    let scan = t.scan(Some(r#"{"columns": ["l_orderkey", "l_comment"]}"#)).unwrap();
    let mut rows = 0;
    for b in scan.stream().unwrap() {
        let b = b.unwrap();
        assert_eq!(b.schema.field_names(), ["l_orderkey", "l_comment"]);
        rows += b.num_rows();
    }
    assert_eq!(rows, 51793);
    assert_eq!(scan.count().unwrap(), 51793);
    assert!(scan.metrics().unwrap().contains("rows_returned"));
}

#[test]
fn filter_values() {
    // Impala's iceberg-query.test: `where id > 10` gives ids 11 to 20.
    let t = partitioned();
    let scan = t.scan(Some(r#"{"columns": ["id"], "filter": "id > 10"}"#)).unwrap();
    let mut ids = BTreeSet::new();
    for b in scan.stream().unwrap() {
        ids.extend(int32_column(&b.unwrap()));
    }
    assert_eq!(ids, (11..=20).collect());
}

#[test]
fn tasks_read_apart_return_every_row() {
    let t = partitioned();
    // split_size 1: one task per file, small as they are.
    let scan = t.scan(Some(r#"{"columns": ["id"], "split_size": 1}"#)).unwrap();
    let tasks = scan.tasks().unwrap();
    assert!(tasks.len() > 1, "{} tasks", tasks.len());
    let mut ids = Vec::new();
    for task in &tasks {
        let again = Task::from_bytes(task.as_bytes().to_vec());
        for b in again.stream(None).unwrap() {
            ids.extend(int32_column(&b.unwrap()));
        }
    }
    ids.sort();
    assert_eq!(ids, (1..=20).collect::<Vec<_>>());
}

#[test]
fn add_filter_while_planned() {
    let t = partitioned();
    let scan = t.scan(Some(r#"{"columns": ["id"]}"#)).unwrap();
    scan.add_filter("id <= 3").unwrap();
    let rows: i64 = scan.stream().unwrap().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 3);
}

#[test]
fn errors_carry_status_and_message() {
    let err = Table::open("/no/such/table", None).err().expect("opening a missing table fails");
    assert_eq!(err.status, sys::FLOE_NOT_FOUND, "{err}");
    assert_eq!(err.status_name(), "FLOE_NOT_FOUND");
    assert!(err.message.contains("/no/such/table"), "{err}");
    let t = lineitem();
    let err = t.scan(Some(r#"{"columns": ["no_such_column"]}"#)).err().expect("an unknown column fails");
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT, "{err}");
    let err = t.scan(Some("{not json")).err().expect("bad JSON fails");
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT, "{err}");
    let bad = Task::from_bytes(b"garbage".to_vec());
    assert!(bad.stream(None).is_err());
}

#[test]
fn batches_move_out_for_an_importer() {
    let t = lineitem();
    let scan = t.scan(Some(r#"{"columns": ["l_orderkey"], "limit": 10}"#)).unwrap();
    let b = scan.stream().unwrap().next().unwrap().unwrap();
    let (mut array, mut schema) = b.into_raw();
    assert_eq!(array.length, 10);
    assert!(array.release.is_some() && schema.release.is_some());
    // The importer's duty now: release both.
    unsafe {
        (array.release.unwrap())(&mut array);
        (schema.release.unwrap())(&mut schema);
    }
    assert!(array.release.is_none() && schema.release.is_none());
}

#[test]
fn cancel_from_another_thread_stops_the_stream() {
    let t = lineitem();
    let scan = t.scan(Some(r#"{"batch_size": 1024}"#)).unwrap();
    let mut stream = scan.stream().unwrap();
    assert!(stream.next().unwrap().is_ok()); // a read under way
    std::thread::scope(|s| {
        s.spawn(|| scan.cancel().unwrap());
    });
    let err = stream.find_map(|b| b.err()).expect("the stream kept going after cancel");
    assert_eq!(err.status, sys::FLOE_CANCELLED, "{err}");
    assert_eq!(scan.count().unwrap_err().status, sys::FLOE_CANCELLED);
}

#[test]
fn runtime_stats_count_live_handles() {
    let count = |key: &str| -> i64 {
        let json = floe::runtime_stats().unwrap();
        let at = json.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("{json}")) + key.len() + 3;
        json[at..].split(|c| c == ',' || c == '}').next().unwrap().trim().parse().unwrap()
    };
    let t = lineitem();
    let scan = t.scan(None).unwrap();
    assert!(count("handles") >= 2);
    let stream = scan.stream().unwrap();
    assert!(count("goroutines") >= 1);
    // The stream is a handle too (other tests' handles may come and go
    // meanwhile, so only what this one holds is certain).
    assert!(count("handles") >= 3);
    drop(stream);
}

#[test]
fn metadata_tables_are_streams() {
    let t = lineitem();
    // Every snapshot of the table, one row each.
    let mut rows = 0;
    for batch in t.inspect("snapshots", Some(r#"{"columns": ["snapshot_id", "operation"]}"#)).unwrap() {
        rows += batch.unwrap().num_rows();
    }
    let metadata = std::fs::read_to_string(t.metadata_location().unwrap().trim_start_matches("file://")).unwrap();
    assert_eq!(rows as usize, metadata.matches("\"manifest-list\"").count(), "one row per snapshot");
    // A limit, and an unknown kind named in the error.
    let limited: i64 = t.inspect("files", Some(r#"{"limit": 1}"#)).unwrap().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(limited, 1);
    let err = t.inspect("snapshot", None).err().expect("an unknown metadata table");
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT);
    assert!(err.message.contains("snapshots"), "{}", err.message);
}

#[test]
fn metadata_tables_plan_tasks() {
    let dir = fixture("duckdb_lineitem_iceberg");
    let opts = format!(r#"{{"location_map": {{"lineitem_iceberg": "{dir}"}}}}"#);
    let t = Table::open(&dir, Some(&opts)).unwrap();
    for kind in ["files", "entries", "all_entries"] {
        let want: i64 = t.inspect(kind, None).unwrap().map(|b| b.unwrap().num_rows()).sum();
        let tasks = t.inspect_tasks(kind, Some(r#"{"task_size": 1}"#)).unwrap();
        assert!(!tasks.is_empty(), "{kind}: no task");
        // Each task read on its own, from its bytes, with the location map.
        let got: i64 = tasks
            .iter()
            .map(|task| Task::from_bytes(task.as_bytes().to_vec()).stream(Some(&opts)).unwrap().map(|b| b.unwrap().num_rows()).sum::<i64>())
            .sum();
        assert_eq!(got, want, "{kind}: {} tasks", tasks.len());
        assert!(want > 0);
    }
    let err = t.inspect_tasks("snapshots", None).err().expect("snapshots has no tasks");
    assert_eq!(err.status, sys::FLOE_UNSUPPORTED);
}
