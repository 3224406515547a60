//! Table::transaction and Table::transaction_preview on copies of Impala's
//! v3 table impala_test_default_part (i, j; 5 rows; 3 snapshots). Each change is checked in the result JSON, the
//! table's metadata files and a fresh open of the directory.
mod common;

use common::{fixture_copy, metadata_files, Json, TempDir};
use std::path::PathBuf;
use floe::{sys, Table};

fn metadata(t: &Table) -> Json {
    Json::parse(&t.metadata_json().unwrap())
}

/// The table's current snapshot id, as its metadata writes it.
fn main_id(t: &Table) -> String {
    metadata(t).get("current-snapshot-id").num().to_string()
}

/// The field names of the table's current schema.
fn columns(m: &Json) -> Vec<String> {
    let id = m.get("current-schema-id").num().to_string();
    let schema = m.get("schemas").arr().iter().find(|s| s.get("schema-id").num() == id).expect("the current schema");
    schema.get("fields").arr().iter().map(|f| f.get("name").str().to_string()).collect()
}

#[test]
fn add_column_and_property_are_one_version() {
    let tmp = TempDir::new("tx");
    let dir = fixture_copy(&tmp, "impala_test_default_part");
    let t = Table::open(&dir, None).unwrap();
    let before = t.metadata_location().unwrap();
    let files = metadata_files(&dir);
    let main = main_id(&t);

    let result = t
        .transaction(
            r#"[{"action": "add-column", "path": "note", "type": "string", "doc": "free text"},
                {"action": "set-properties", "updates": {"team": "rust"}}]"#,
            None,
        )
        .unwrap();
    let r = Json::parse(&result);
    assert_eq!(r.get("committed"), &Json::Bool(true), "{result}");
    assert!(r.get("snapshot_ids").arr().is_empty(), "metadata actions make no snapshot: {result}");
    assert_eq!(r.get("current_snapshot_id").num(), main);
    let location = r.get("metadata_location").str();
    assert_ne!(location, before);
    // One new metadata file: both actions are one version.
    assert_eq!(metadata_files(&dir).len(), files.len() + 1, "{:?}", metadata_files(&dir));
    // The handle moved to it; a fresh open finds it.
    assert_eq!(t.metadata_location().unwrap(), location);
    let again = Table::open(&dir, None).unwrap();
    assert_eq!(again.metadata_location().unwrap(), location);
    let m = metadata(&again);
    assert_eq!(columns(&m), ["i", "j", "note"]);
    assert_eq!(m.get("properties").get("team").str(), "rust");
    assert_eq!(m.get("properties").get("owner").str(), "root", "the other properties stay");
    // The rows are still there, the new column read as nulls.
    let scan = again.scan(Some(r#"{"columns": ["i", "note"]}"#)).unwrap();
    let rows: i64 = scan.stream().unwrap().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 5);
}

#[test]
fn unknown_action_is_refused_naming_it_and_commits_nothing() {
    let tmp = TempDir::new("tx");
    let dir = fixture_copy(&tmp, "impala_test_default_part");
    let t = Table::open(&dir, None).unwrap();
    let before = t.metadata_location().unwrap();
    let files = metadata_files(&dir);

    let err = t
        .transaction(
            r#"[{"action": "set-properties", "updates": {"team": "rust"}},
                {"action": "add-colum", "path": "note", "type": "string"}]"#,
            None,
        )
        .unwrap_err();
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT, "{err}");
    assert!(err.message.contains("add-colum"), "{err}");
    assert!(err.message.contains("action 1"), "the action's index: {err}");
    // Not even the valid first action was committed.
    assert_eq!(metadata_files(&dir), files);
    assert_eq!(t.metadata_location().unwrap(), before);
    let again = Table::open(&dir, None).unwrap();
    assert_eq!(again.metadata_location().unwrap(), before);
    assert_eq!(metadata(&again).get("properties").get("team"), &Json::Null);
    // A missing column is refused too, naming it.
    let err = t.transaction(r#"[{"action": "delete-column", "path": "no_such_col"}]"#, None).unwrap_err();
    assert!(err.message.contains("no_such_col"), "{err}");
    assert_eq!(metadata_files(&dir), files);
}

#[test]
fn tag_created_and_read_back() {
    let tmp = TempDir::new("tx");
    let dir = fixture_copy(&tmp, "impala_test_default_part");
    let t = Table::open(&dir, None).unwrap();
    let main = main_id(&t);
    let first = metadata(&t).get("snapshots").arr().iter().map(|s| s.get("timestamp-ms").num().parse::<i64>().unwrap()).min();
    let oldest = metadata(&t)
        .get("snapshots")
        .arr()
        .iter()
        .find(|s| s.get("timestamp-ms").num().parse::<i64>().ok() == first)
        .unwrap()
        .get("snapshot-id")
        .num()
        .to_string();
    assert_ne!(oldest, main);

    // Without a snapshot id the tag is main's; with one, that snapshot's.
    let result = t
        .transaction(
            &format!(
                r#"[{{"action": "create-tag", "name": "audit"}},
                    {{"action": "create-tag", "name": "first", "snapshot-id": {oldest}, "max-ref-age-ms": 86400000}}]"#
            ),
            None,
        )
        .unwrap();
    let r = Json::parse(&result);
    assert_eq!(r.get("refs").get("audit").get("type").str(), "tag", "{result}");
    assert_eq!(r.get("refs").get("audit").get("snapshot-id").num(), main);
    assert_eq!(r.get("current_snapshot_id").num(), main, "a tag moves no branch");

    let refs = metadata(&Table::open(&dir, None).unwrap()).get("refs").clone();
    let mut names = refs.keys();
    names.sort();
    assert_eq!(names, ["audit", "first", "main"]);
    assert_eq!(refs.get("audit").get("type").str(), "tag");
    assert_eq!(refs.get("audit").get("snapshot-id").num(), main);
    assert_eq!(refs.get("first").get("snapshot-id").num(), oldest);
    assert_eq!(refs.get("first").get("max-ref-age-ms").num(), "86400000");

    // Each tag reads as the table did at its snapshot.
    let again = Table::open(&dir, None).unwrap();
    let rows = |scan_json: &str| again.scan(Some(scan_json)).unwrap().stream().unwrap().map(|b| b.unwrap().num_rows()).sum::<i64>();
    assert_eq!(rows(r#"{"ref": "audit"}"#), 5);
    let at_first = rows(&format!(r#"{{"snapshot_id": {oldest}}}"#));
    assert!(at_first < 5, "{at_first} rows at the first snapshot");
    assert_eq!(rows(r#"{"ref": "first"}"#), at_first);

    let files = metadata_files(&dir);
    let err = t.transaction(r#"[{"action": "create-tag", "name": "audit"}]"#, None).unwrap_err();
    assert!(err.message.contains("audit"), "a tag made twice: {err}");
    assert_eq!(metadata_files(&dir), files);
}

#[test]
fn preview_holds_the_listed_changes_and_commits_nothing() {
    let tmp = TempDir::new("tx");
    let dir = fixture_copy(&tmp, "impala_test_default_part");
    let t = Table::open(&dir, None).unwrap();
    let files = metadata_files(&dir);
    let preview = t
        .transaction_preview(Some(r#"[{"action": "add-column", "path": "note", "type": "string"},
                                       {"action": "rename-column", "path": "i", "new-name": "id"}]"#))
        .unwrap();
    assert_eq!(columns(&metadata(&preview)), ["id", "j", "note"]);
    assert_eq!(columns(&metadata(&t)), ["i", "j"], "the table's own handle is unchanged");
    assert_eq!(metadata_files(&dir), files);
    // Nothing commits through a preview.
    let err = preview.transaction(r#"[{"action": "set-properties", "updates": {"a": "b"}}]"#, None).unwrap_err();
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT, "{err}");
    assert_eq!(metadata_files(&dir), files);
    // No list: the table as it is.
    assert_eq!(columns(&metadata(&t.transaction_preview(None).unwrap())), ["i", "j"]);
    let err = t.transaction_preview(Some(r#"[{"action": "nope"}]"#)).err().expect("an unknown action");
    assert!(err.message.contains("nope"), "{err}");
}

/// The Arrow schema of a scan of Spark's impala_iceberg_partitioned (id
/// optional, event_time required), as Iceberg schema JSON.
fn sparks_schema(columns: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/fixtures/impala_iceberg_partitioned");
    let dir = dir.canonicalize().unwrap().to_string_lossy().into_owned();
    let opts = format!(r#"{{"location_map": {{"/test-warehouse/iceberg_test/iceberg_partitioned": "{dir}"}}}}"#);
    let t = Table::open(&dir, Some(&opts)).unwrap();
    let mut stream = t.scan(Some(&format!(r#"{{"columns": {columns}}}"#))).unwrap().stream().unwrap();
    stream.schema().unwrap().iceberg_schema_json().unwrap()
}

#[test]
fn union_by_name_takes_an_arrow_schema() {
    let schema = sparks_schema(r#"["id"]"#);
    let fields = Json::parse(&schema).get("fields").clone();
    assert_eq!(fields.arr().len(), 1, "{schema}");
    assert_eq!(fields.arr()[0].get("name").str(), "id");
    assert_eq!(fields.arr()[0].get("type").str(), "int");

    let tmp = TempDir::new("tx");
    let dir = fixture_copy(&tmp, "impala_test_default_part");
    let t = Table::open(&dir, None).unwrap();
    t.transaction(&format!(r#"[{{"action": "union-by-name", "schema": {schema}}}]"#), None).unwrap();
    assert_eq!(columns(&metadata(&Table::open(&dir, None).unwrap())), ["i", "j", "id"]);
    // A required column cannot join a table whose rows lack it.
    let files = metadata_files(&dir);
    let required = sparks_schema(r#"["event_time"]"#);
    let err = t.transaction(&format!(r#"[{{"action": "union-by-name", "schema": {required}}}]"#), None).unwrap_err();
    assert!(err.message.contains("event_time"), "{err}");
    assert_eq!(metadata_files(&dir), files);
}
