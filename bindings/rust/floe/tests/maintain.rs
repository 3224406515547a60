//! Table::maintain and Table::maintain_with_progress on a copy of Impala's
//! partitioned table impala_test_default_part (i, j; 5 rows) with three
//! appends through floe: compaction tells progress per file group and
//! keeps every row, statistics are registered in the metadata, and a
//! misspelt option is refused naming the right one.
mod common;

use common::{append, fixture_copy, rows, Json, TempDir};
use floe::Table;

#[test]
fn compaction_statistics_and_refusals() {
    let tmp = TempDir::new("maintain");
    let dir = fixture_copy(&tmp, "impala_test_default_part");
    let t = Table::open(&dir, None).unwrap();
    for n in 0..3 {
        append(&t, &format!("{{\"i\": {}, \"j\": 1}}\n{{\"i\": {}, \"j\": 2}}\n", 100 + n, 200 + n));
    }
    let before = rows(&t, None);

    let mut progress = Vec::new();
    let res = Json::parse(
        &t.maintain_with_progress("rewrite_data_files", Some(r#"{"rewrite_all": true}"#), |p| progress.push(p.to_string())).unwrap(),
    );
    let groups = res.get("groups").arr().len();
    assert!(groups >= 2, "{groups} groups");
    assert_eq!(progress.len(), groups, "{progress:?}");
    let last = Json::parse(progress.last().unwrap());
    assert_eq!((last.get("done").num(), last.get("total").num()), (groups.to_string().as_str(), groups.to_string().as_str()));
    assert_eq!(res.get("snapshot_ids").arr().len(), 1);
    assert_eq!(rows(&t, None), before, "rows after compaction");

    let stats = Json::parse(&t.maintain("compute_statistics", Some(r#"{"columns": ["i"]}"#)).unwrap());
    let md = Json::parse(&t.metadata_json().unwrap());
    assert_eq!(stats.get("snapshot_id").num(), md.get("current-snapshot-id").num());
    let files = md.get("statistics").arr();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].get("statistics-path").str(), stats.get("statistics_path").str());
    assert_eq!(stats.get("ndv").keys(), vec!["i"]);

    let err = t.maintain("remove_orphan_files", Some(r#"{"dryrun": true}"#)).unwrap_err();
    assert_eq!(err.status_name(), "FLOE_INVALID_ARGUMENT");
    assert!(err.message.contains(r#"did you mean "dry_run""#), "{}", err.message);
    let err = t.maintain("compact", None).unwrap_err();
    assert!(err.message.contains("unknown action"), "{}", err.message);
}
