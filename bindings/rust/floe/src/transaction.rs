//! Changing a table: an action list (floe.h's floe_table_transaction)
//! committed as one new metadata version, and the table as a list's
//! metadata actions would leave it. The list and the result stay JSON, as
//! floe.h defines them, so this crate needs no JSON library.

use std::ptr;

use crate::{c_string, check, opt_c_string, opt_ptr, string_out, sys, Result, Table};

impl Table {
    /// Applies actions_json (a JSON array of `{"action": "<name>", ...}`,
    /// floe_table_transaction's list) in order and commits them as one
    /// metadata version; options_json as it takes them (`{"token": ...,
    /// "timeout_ms": ..., "discard_refused": true}`). Returns the result
    /// JSON (`committed`, `snapshot_ids`, `metadata_location`, `refs`,
    /// ...); afterwards this handle holds the committed version. A list
    /// floe refuses (an unknown action, a missing column) is an error
    /// naming it, and nothing is committed.
    pub fn transaction(&self, actions_json: &str, options_json: Option<&str>) -> Result<String> {
        let actions = c_string(actions_json)?;
        let opts = opt_c_string(options_json)?;
        string_out(|out| unsafe { sys::floe_table_transaction(self.raw, actions.as_ptr(), opt_ptr(&opts), out) })
    }

    /// A new handle on the table as the metadata actions of actions_json
    /// leave it (None: as it is); snapshot actions are skipped and nothing
    /// is committed. Files written through it (for a later snapshot
    /// action of the same list) have the schema, spec and properties the
    /// table will have; every commit through it is refused.
    pub fn transaction_preview(&self, actions_json: Option<&str>) -> Result<Table> {
        let actions = opt_c_string(actions_json)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::floe_table_transaction_preview(self.raw, opt_ptr(&actions), &mut raw) })?;
        Ok(Table { raw })
    }
}
