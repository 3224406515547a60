//! Catalog::commit_transaction: several tables of one SQLite catalog
//! changed together (checked through a second connection to the same
//! database), or not at all; a filesystem warehouse cannot.
mod common;

use common::{append, base64, rows, write_files, Json, TempDir};
use floe::{sys, Catalog, Table};

const SCHEMA: &str = r#"{"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": false, "type": "int"},
    {"id": 2, "name": "j", "required": false, "type": "int"}]}"#;

/// A SQLite catalog in tmp with db.orders and db.totals, a row each.
fn catalog(tmp: &TempDir) -> (Catalog, Table, Table) {
    let cat = sqlite(tmp);
    cat.create_namespace("db", None).unwrap();
    let orders = cat.create_table("db.orders", SCHEMA, None).unwrap();
    let totals = cat.create_table("db.totals", SCHEMA, None).unwrap();
    append(&orders, "{\"i\": 1, \"j\": 0}\n");
    append(&totals, "{\"i\": 1, \"j\": 0}\n");
    (cat, orders, totals)
}

fn sqlite(tmp: &TempDir) -> Catalog {
    let props = format!(r#"{{"warehouse": "{}"}}"#, tmp.path("wh"));
    Catalog::open(&format!("sqlite:{}", tmp.path("catalog.db")), Some(&props)).unwrap()
}

fn metadata(t: &Table) -> Json {
    Json::parse(&t.metadata_json().unwrap())
}

fn columns(m: &Json) -> Vec<String> {
    let id = m.get("current-schema-id").num().to_string();
    let schema = m.get("schemas").arr().iter().find(|s| s.get("schema-id").num() == id).unwrap();
    schema.get("fields").arr().iter().map(|f| f.get("name").str().to_string()).collect()
}

#[test]
fn two_tables_change_together() {
    let tmp = TempDir::new("cat");
    let (cat, orders, totals) = catalog(&tmp);
    let files = base64(&write_files(&totals, "{\"i\": 20, \"j\": 0}\n{\"i\": 21, \"j\": 0}\n"));
    let txs = format!(
        r#"[{{"actions": [{{"action": "add-column", "path": "note", "type": "string"}},
                          {{"action": "set-properties", "updates": {{"batch": "7"}}}},
                          {{"action": "create-tag", "name": "before-batch"}}]}},
            {{"actions": [{{"action": "append-files", "files": "{files}"}},
                          {{"action": "set-properties", "updates": {{"batch": "7"}}}}],
              "token": "batch-7"}}]"#
    );
    let result = cat.commit_transaction(&[&orders, &totals], &txs, None).unwrap();
    let r = Json::parse(&result);
    let [ro, rt] = r.get("tables").arr() else { panic!("{result}") };
    assert_eq!(ro.get("committed"), &Json::Bool(true), "{result}");
    assert_eq!(rt.get("committed"), &Json::Bool(true), "{result}");
    assert!(ro.get("snapshot_ids").arr().is_empty());
    assert_eq!(rt.get("snapshot_ids").arr().len(), 1, "one snapshot for the append: {result}");
    // The handles hold the committed versions.
    assert_eq!(orders.metadata_location().unwrap(), ro.get("metadata_location").str());
    assert_eq!(totals.metadata_location().unwrap(), rt.get("metadata_location").str());

    // Another connection to the database sees both.
    let other = sqlite(&tmp);
    let (o, t) = (other.load_table("db.orders").unwrap(), other.load_table("db.totals").unwrap());
    assert_eq!(o.metadata_location().unwrap(), ro.get("metadata_location").str());
    assert_eq!(t.metadata_location().unwrap(), rt.get("metadata_location").str());
    let (mo, mt) = (metadata(&o), metadata(&t));
    assert_eq!(columns(&mo), ["i", "j", "note"]);
    assert_eq!(mo.get("properties").get("batch").str(), "7");
    assert_eq!(mo.get("refs").get("before-batch").get("type").str(), "tag");
    assert_eq!(mt.get("properties").get("batch").str(), "7");
    assert_eq!(rows(&o, None), 1);
    assert_eq!(rows(&t, None), 3);
    let snap = rt.get("snapshot_ids").arr()[0].num().to_string();
    let summary = mt.get("snapshots").arr().iter().find(|s| s.get("snapshot-id").num() == snap).unwrap().get("summary").clone();
    assert_eq!(summary.get("floe.commit-token").str(), "batch-7", "{summary:?}");
}

#[test]
fn a_refused_list_commits_neither() {
    let tmp = TempDir::new("cat");
    let (cat, orders, totals) = catalog(&tmp);
    let (lo, lt) = (orders.metadata_location().unwrap(), totals.metadata_location().unwrap());
    let txs = r#"[{"actions": [{"action": "set-properties", "updates": {"batch": "8"}}]},
                  {"actions": [{"action": "set-propertys", "updates": {"batch": "8"}}]}]"#;
    let err = cat.commit_transaction(&[&orders, &totals], txs, None).unwrap_err();
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT, "{err}");
    assert!(err.message.contains("set-propertys") && err.message.contains("transaction 1"), "{err}");
    let other = sqlite(&tmp);
    let o = other.load_table("db.orders").unwrap();
    assert_eq!(o.metadata_location().unwrap(), lo, "the valid list was not committed either");
    assert_eq!(metadata(&o).get("properties").get("batch"), &Json::Null);
    assert_eq!(other.load_table("db.totals").unwrap().metadata_location().unwrap(), lt);

    // One handle twice, or a list count that is not the tables', is refused.
    let one = r#"[{"actions": [{"action": "set-properties", "updates": {"batch": "8"}}]}]"#;
    let twice = format!("[{}, {}]", &one[1..one.len() - 1], &one[1..one.len() - 1]);
    let err = cat.commit_transaction(&[&orders, &orders], &twice, None).unwrap_err();
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT, "{err}");
    let err = cat.commit_transaction(&[&orders, &totals], one, None).unwrap_err();
    assert_eq!(err.status, sys::FLOE_INVALID_ARGUMENT, "{err}");
    assert_eq!(sqlite(&tmp).load_table("db.orders").unwrap().metadata_location().unwrap(), lo);
}

#[test]
fn a_filesystem_warehouse_cannot() {
    let tmp = TempDir::new("cat");
    let cat = Catalog::open(&tmp.path("wh"), None).unwrap();
    cat.create_namespace("db", None).unwrap();
    let a = cat.create_table("db.a", SCHEMA, None).unwrap();
    let b = cat.create_table("db.b", SCHEMA, None).unwrap();
    let before = a.metadata_location().unwrap();
    let txs = r#"[{"actions": [{"action": "set-properties", "updates": {"k": "v"}}]},
                  {"actions": [{"action": "set-properties", "updates": {"k": "v"}}]}]"#;
    let err = cat.commit_transaction(&[&a, &b], txs, None).unwrap_err();
    assert_eq!(err.status, sys::FLOE_UNSUPPORTED, "{err}");
    assert_eq!(cat.load_table("db.a").unwrap().metadata_location().unwrap(), before);
}
