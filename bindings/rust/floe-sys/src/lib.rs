//! Raw bindings to libfloe (include/floe.h), written by hand: the Arrow C
//! data and stream interface structs, floe's status codes and handles, and
//! every function of the C API. See the header for each call's contract;
//! the safe API is the `floe` crate.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

/// Arrow C data interface: a schema node.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowSchema {
    pub format: *const c_char,
    pub name: *const c_char,
    pub metadata: *const c_char,
    pub flags: i64,
    pub n_children: i64,
    pub children: *mut *mut ArrowSchema,
    pub dictionary: *mut ArrowSchema,
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    pub private_data: *mut c_void,
}

/// Arrow C data interface: an array (a record batch is a struct array).
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArray {
    pub length: i64,
    pub null_count: i64,
    pub offset: i64,
    pub n_buffers: i64,
    pub n_children: i64,
    pub buffers: *mut *const c_void,
    pub children: *mut *mut ArrowArray,
    pub dictionary: *mut ArrowArray,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    pub private_data: *mut c_void,
}

/// Arrow C stream interface.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArrayStream {
    pub get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    pub get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    pub get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    pub private_data: *mut c_void,
}

macro_rules! empty {
    ($t:ident { $($f:ident: $v:expr),* }) => {
        impl $t {
            /// A released (empty) structure for a callee to fill.
            pub fn empty() -> Self { $t { $($f: $v),* } }
        }
    };
}
empty!(ArrowSchema { format: std::ptr::null(), name: std::ptr::null(), metadata: std::ptr::null(), flags: 0,
    n_children: 0, children: std::ptr::null_mut(), dictionary: std::ptr::null_mut(), release: None,
    private_data: std::ptr::null_mut() });
empty!(ArrowArray { length: 0, null_count: 0, offset: 0, n_buffers: 0, n_children: 0,
    buffers: std::ptr::null_mut(), children: std::ptr::null_mut(), dictionary: std::ptr::null_mut(),
    release: None, private_data: std::ptr::null_mut() });
empty!(ArrowArrayStream { get_schema: None, get_next: None, get_last_error: None, release: None,
    private_data: std::ptr::null_mut() });

/// floe_status: 0 is success; unknown nonzero values are errors too.
pub type floe_status = c_int;
pub const FLOE_OK: floe_status = 0;
pub const FLOE_INVALID_ARGUMENT: floe_status = 1;
pub const FLOE_NOT_FOUND: floe_status = 2;
pub const FLOE_IO: floe_status = 3;
pub const FLOE_FORMAT: floe_status = 4;
pub const FLOE_UNSUPPORTED: floe_status = 5;
pub const FLOE_CONFLICT: floe_status = 6;
pub const FLOE_INTERNAL: floe_status = 7;
pub const FLOE_COMMIT_STATE_UNKNOWN: floe_status = 8;
pub const FLOE_UNAUTHORIZED: floe_status = 9;
pub const FLOE_CANCELLED: floe_status = 10;
pub const FLOE_TIMEOUT: floe_status = 11;

#[repr(C)]
pub struct floe_table {
    _private: [u8; 0],
}
#[repr(C)]
pub struct floe_scan {
    _private: [u8; 0],
}
#[repr(C)]
pub struct floe_catalog {
    _private: [u8; 0],
}
#[repr(C)]
pub struct floe_task_io {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct floe_byte_range {
    pub path: *const c_char,
    pub offset: i64,
    pub length: i64,
}

extern "C" {
    pub fn floe_version() -> *const c_char;
    pub fn floe_last_error() -> *const c_char;
    pub fn floe_status_name(status: c_int) -> *const c_char;
    pub fn floe_string_free(s: *mut c_char);
    pub fn floe_bytes_free(bytes: *mut u8);
    pub fn floe_release_cached_memory();

    pub fn floe_table_open(location: *const c_char, options_json: *const c_char, out: *mut *mut floe_table) -> floe_status;
    pub fn floe_table_metadata_json(table: *mut floe_table, out: *mut *mut c_char) -> floe_status;
    pub fn floe_table_metadata_location(table: *mut floe_table, out: *mut *mut c_char) -> floe_status;
    pub fn floe_table_free(table: *mut floe_table) -> floe_status;

    pub fn floe_catalog_open(uri: *const c_char, properties_json: *const c_char, out: *mut *mut floe_catalog) -> floe_status;
    pub fn floe_catalog_free(catalog: *mut floe_catalog) -> floe_status;
    pub fn floe_catalog_load_table(catalog: *mut floe_catalog, name: *const c_char, out: *mut *mut floe_table) -> floe_status;
    pub fn floe_catalog_create_table(catalog: *mut floe_catalog, name: *const c_char, schema_json: *const c_char,
                                     options_json: *const c_char, out: *mut *mut floe_table) -> floe_status;
    pub fn floe_catalog_register_table(catalog: *mut floe_catalog, name: *const c_char, metadata_location: *const c_char,
                                       out: *mut *mut floe_table) -> floe_status;
    pub fn floe_catalog_drop_table(catalog: *mut floe_catalog, name: *const c_char, purge: c_int) -> floe_status;
    pub fn floe_catalog_rename_table(catalog: *mut floe_catalog, from: *const c_char, to: *const c_char) -> floe_status;
    pub fn floe_catalog_list_tables(catalog: *mut floe_catalog, namespace_: *const c_char, out_json: *mut *mut c_char) -> floe_status;
    pub fn floe_catalog_create_namespace(catalog: *mut floe_catalog, namespace_: *const c_char, properties_json: *const c_char) -> floe_status;
    pub fn floe_catalog_drop_namespace(catalog: *mut floe_catalog, namespace_: *const c_char) -> floe_status;
    pub fn floe_catalog_list_namespaces(catalog: *mut floe_catalog, parent: *const c_char, out_json: *mut *mut c_char) -> floe_status;
    pub fn floe_catalog_namespace_properties(catalog: *mut floe_catalog, namespace_: *const c_char, out_json: *mut *mut c_char) -> floe_status;
    pub fn floe_catalog_update_namespace_properties(catalog: *mut floe_catalog, namespace_: *const c_char,
                                                    removals_json: *const c_char, updates_json: *const c_char) -> floe_status;
    pub fn floe_catalog_exists(catalog: *mut floe_catalog, name: *const c_char, is_table: c_int, exists: *mut c_int) -> floe_status;

    pub fn floe_table_create(location: *const c_char, schema_json: *const c_char, options_json: *const c_char,
                             out: *mut *mut floe_table) -> floe_status;
    pub fn floe_append(table: *mut floe_table, data: *mut ArrowArrayStream, commit_json: *const c_char,
                       snapshot_id: *mut i64) -> floe_status;
    pub fn floe_replace_partitions(table: *mut floe_table, data: *mut ArrowArrayStream, commit_json: *const c_char,
                                   snapshot_id: *mut i64) -> floe_status;
    pub fn floe_write_files(table: *mut floe_table, data: *mut ArrowArrayStream, files: *mut *mut u8, len: *mut usize) -> floe_status;
    pub fn floe_append_files(table: *mut floe_table, files: *const u8, len: usize, commit_json: *const c_char,
                             snapshot_id: *mut i64) -> floe_status;
    pub fn floe_replace_partitions_files(table: *mut floe_table, files: *const u8, len: usize, commit_json: *const c_char,
                                         snapshot_id: *mut i64) -> floe_status;
    pub fn floe_discard_files(table: *mut floe_table, files: *const u8, len: usize) -> floe_status;
    pub fn floe_add_files(table: *mut floe_table, paths_json: *const c_char, commit_json: *const c_char,
                          snapshot_id: *mut i64) -> floe_status;
    pub fn floe_commit(table: *mut floe_table, added_files: *const u8, len: usize, removed_paths_json: *const c_char,
                       commit_json: *const c_char, snapshot_id: *mut i64) -> floe_status;
    pub fn floe_delete_rows(table: *mut floe_table, filter: *const c_char, commit_json: *const c_char,
                            snapshot_id: *mut i64) -> floe_status;
    pub fn floe_overwrite(table: *mut floe_table, filter: *const c_char, data: *mut ArrowArrayStream,
                          commit_json: *const c_char, snapshot_id: *mut i64) -> floe_status;
    pub fn floe_json_rows_stream(table: *mut floe_table, rows: *const c_char, len: usize, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_array_stream(schema: *mut ArrowSchema, array: *mut ArrowArray, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_expire_snapshots(table: *mut floe_table, options_json: *const c_char, result_json: *mut *mut c_char) -> floe_status;

    pub fn floe_scan_open(table: *mut floe_table, scan_json: *const c_char, out: *mut *mut floe_scan) -> floe_status;
    pub fn floe_scan_schema(scan: *mut floe_scan, out: *mut ArrowSchema) -> floe_status;
    pub fn floe_scan_plan(scan: *mut floe_scan, task_count: *mut i64) -> floe_status;
    pub fn floe_scan_count(scan: *mut floe_scan, rows: *mut i64) -> floe_status;
    pub fn floe_scan_task(scan: *mut floe_scan, i: i64, bytes: *mut *mut u8, len: *mut usize) -> floe_status;
    pub fn floe_scan_stream(scan: *mut floe_scan, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_scan_add_filter(scan: *mut floe_scan, filter: *const c_char) -> floe_status;
    pub fn floe_scan_metrics(scan: *mut floe_scan, json_out: *mut *mut c_char) -> floe_status;
    pub fn floe_scan_free(scan: *mut floe_scan) -> floe_status;
    pub fn floe_runtime_stats(json: *mut *mut c_char) -> floe_status;
    pub fn floe_scan_cancel(scan: *mut floe_scan) -> floe_status;

    pub fn floe_task_stream(task: *const u8, len: usize, options_json: *const c_char, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_task_io_open(task: *const u8, len: usize, out: *mut *mut floe_task_io) -> floe_status;
    pub fn floe_task_needed_ranges(io: *mut floe_task_io, ranges: *mut *const floe_byte_range, count: *mut usize) -> floe_status;
    pub fn floe_task_fill(io: *mut floe_task_io, path: *const c_char, offset: i64, data: *const u8, len: usize) -> floe_status;
    pub fn floe_task_io_stream(io: *mut floe_task_io, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_task_io_free(io: *mut floe_task_io) -> floe_status;

    pub fn floe_arrow_stream_new() -> *mut ArrowArrayStream;
    pub fn floe_arrow_schema_new() -> *mut ArrowSchema;
    pub fn floe_capsule_stream_name() -> *const c_char;
    pub fn floe_capsule_schema_name() -> *const c_char;
    pub fn floe_capsule_release_stream(capsule: *mut c_void);
    pub fn floe_capsule_release_schema(capsule: *mut c_void);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    // The structs have the C layout of the Arrow specification (64-bit).
    #[test]
    fn layouts() {
        assert_eq!(std::mem::size_of::<ArrowSchema>(), 72);
        assert_eq!(std::mem::size_of::<ArrowArray>(), 80);
        assert_eq!(std::mem::size_of::<ArrowArrayStream>(), 40);
        assert_eq!(std::mem::size_of::<floe_byte_range>(), 24);
    }

    #[test]
    fn version_links() {
        let v = unsafe { CStr::from_ptr(floe_version()) }.to_str().unwrap();
        assert_eq!(v.split('.').count(), 3, "{v}");
        let name = unsafe { CStr::from_ptr(floe_status_name(FLOE_NOT_FOUND)) }.to_str().unwrap();
        assert_eq!(name, "FLOE_NOT_FOUND");
    }
}
