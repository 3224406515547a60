//! A catalog (SQLite, PostgreSQL, REST or a filesystem warehouse, as
//! floe_catalog_open opens them): its tables, and transactions that change
//! several of them at once.

use std::os::raw::c_char;
use std::ptr;

use crate::{c_string, check, opt_c_string, opt_ptr, string_out, sys, Result, Table};

/// An opened catalog. It stays open in libfloe while any table loaded
/// from it is alive, so tables do not borrow it.
pub struct Catalog {
    raw: *mut sys::floe_catalog,
}

// floe.h: every function may be called from any thread.
unsafe impl Send for Catalog {}
unsafe impl Sync for Catalog {}

impl Catalog {
    /// Opens a catalog: uri "sqlite:/path/catalog.db", "postgres://...",
    /// "http(s)://..." (REST) or a warehouse directory; properties_json an
    /// object of strings with Iceberg's names (`{"warehouse": "/dir"}`).
    pub fn open(uri: &str, properties_json: Option<&str>) -> Result<Catalog> {
        let uri = c_string(uri)?;
        let props = opt_c_string(properties_json)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::floe_catalog_open(uri.as_ptr(), opt_ptr(&props), &mut raw) })?;
        Ok(Catalog { raw })
    }

    /// Loads "ns.table".
    pub fn load_table(&self, name: &str) -> Result<Table> {
        let name = c_string(name)?;
        self.table_out(|out| unsafe { sys::floe_catalog_load_table(self.raw, name.as_ptr(), out) })
    }

    /// Creates "ns.table" with an Iceberg schema (its JSON form);
    /// options_json as floe_catalog_create_table takes them.
    pub fn create_table(&self, name: &str, schema_json: &str, options_json: Option<&str>) -> Result<Table> {
        let name = c_string(name)?;
        let schema = c_string(schema_json)?;
        let opts = opt_c_string(options_json)?;
        self.table_out(|out| unsafe {
            sys::floe_catalog_create_table(self.raw, name.as_ptr(), schema.as_ptr(), opt_ptr(&opts), out)
        })
    }

    /// Adopts an existing metadata file as "ns.table".
    pub fn register_table(&self, name: &str, metadata_location: &str) -> Result<Table> {
        let name = c_string(name)?;
        let loc = c_string(metadata_location)?;
        self.table_out(|out| unsafe { sys::floe_catalog_register_table(self.raw, name.as_ptr(), loc.as_ptr(), out) })
    }

    /// Creates a namespace ("a" or "a.b"); properties_json an object of
    /// strings.
    pub fn create_namespace(&self, namespace: &str, properties_json: Option<&str>) -> Result<()> {
        let ns = c_string(namespace)?;
        let props = opt_c_string(properties_json)?;
        check(unsafe { sys::floe_catalog_create_namespace(self.raw, ns.as_ptr(), opt_ptr(&props)) })
    }

    /// Commits changes to several tables of this catalog atomically: every
    /// table holds its changes afterwards, or none does. tables are
    /// distinct handles loaded from this catalog; transactions_json is a
    /// JSON array with one `{"actions": [...], "token": "..."}` per table,
    /// in the same order (actions as [`Table::transaction`] takes them).
    /// Returns `{"tables": [result, ...]}`, each as `Table::transaction`'s;
    /// afterwards each handle holds its committed version. A filesystem
    /// warehouse cannot (FLOE_UNSUPPORTED).
    pub fn commit_transaction(&self, tables: &[&Table], transactions_json: &str, options_json: Option<&str>) -> Result<String> {
        let raws: Vec<*mut sys::floe_table> = tables.iter().map(|t| t.raw).collect();
        let txs = c_string(transactions_json)?;
        let opts = opt_c_string(options_json)?;
        string_out(|out: *mut *mut c_char| unsafe {
            sys::floe_catalog_commit_transaction(self.raw, raws.as_ptr(), raws.len(), txs.as_ptr(), opt_ptr(&opts), out)
        })
    }

    /// The raw handle, for calls this crate does not wrap.
    pub fn as_raw(&self) -> *mut sys::floe_catalog {
        self.raw
    }

    fn table_out(&self, call: impl FnOnce(*mut *mut sys::floe_table) -> sys::floe_status) -> Result<Table> {
        let mut raw = ptr::null_mut();
        check(call(&mut raw))?;
        Ok(Table { raw })
    }
}

impl Drop for Catalog {
    fn drop(&mut self) {
        unsafe { sys::floe_catalog_free(self.raw) };
    }
}
