//! Table maintenance (floe.h's floe_table_maintain): removing orphan
//! files, rewriting manifests, removing dangling deletes, computing
//! statistics and compacting data files. Options and results stay JSON,
//! as floe.h defines them.

use std::any::Any;
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use crate::{c_string, opt_c_string, opt_ptr, string_out, sys, Result, Table};

impl Table {
    /// Runs one maintenance action ("remove_orphan_files",
    /// "rewrite_manifests", "remove_dangling_deletes",
    /// "compute_statistics", "rewrite_data_files") with options_json as
    /// floe_table_maintain takes them (`{"dry_run": true}`; an unknown
    /// key is an error naming the closest) and returns its result JSON;
    /// afterwards this handle holds the table as the action left it.
    pub fn maintain(&self, action: &str, options_json: Option<&str>) -> Result<String> {
        let action = c_string(action)?;
        let opts = opt_c_string(options_json)?;
        string_out(|out| unsafe {
            sys::floe_table_maintain(self.raw, action.as_ptr(), opt_ptr(&opts), None, std::ptr::null_mut(), out)
        })
    }

    /// As maintain, telling progress each progress JSON (`{"action",
    /// "done", "total", "group"}`: per file group of a compaction, once
    /// at the end of the other actions), on the calling thread. A panic
    /// in progress is carried past the C call and resumed after it.
    pub fn maintain_with_progress<F: FnMut(&str)>(&self, action: &str, options_json: Option<&str>, progress: F) -> Result<String> {
        struct State<F> {
            progress: F,
            panic: Option<Box<dyn Any + Send>>,
        }
        unsafe extern "C" fn call<F: FnMut(&str)>(json: *const c_char, user_data: *mut c_void) {
            let state = unsafe { &mut *(user_data as *mut State<F>) };
            if state.panic.is_some() {
                return;
            }
            let text = unsafe { CStr::from_ptr(json) }.to_string_lossy();
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| (state.progress)(&text))) {
                state.panic = Some(p);
            }
        }
        let action = c_string(action)?;
        let opts = opt_c_string(options_json)?;
        let mut state = State { progress, panic: None };
        let res = string_out(|out| unsafe {
            sys::floe_table_maintain(self.raw, action.as_ptr(), opt_ptr(&opts), Some(call::<F>),
                                     &mut state as *mut State<F> as *mut c_void, out)
        });
        if let Some(p) = state.panic {
            resume_unwind(p);
        }
        res
    }
}
