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

/// floe_progress_fn: told how far floe_table_maintain is (a JSON object,
/// valid during the call), with the call's user_data.
pub type floe_progress_fn = Option<unsafe extern "C" fn(progress_json: *const c_char, user_data: *mut c_void)>;

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
    pub fn floe_table_progress(table: *mut floe_table, json_out: *mut *mut c_char) -> floe_status;

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
    pub fn floe_catalog_commit_transaction(catalog: *mut floe_catalog, tables: *const *mut floe_table, n_tables: usize,
                                           transactions_json: *const c_char, options_json: *const c_char,
                                           result_json: *mut *mut c_char) -> floe_status;

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
    pub fn floe_upsert(table: *mut floe_table, data: *mut ArrowArrayStream, options_json: *const c_char,
                       result_json: *mut *mut c_char) -> floe_status;
    pub fn floe_json_rows_stream(table: *mut floe_table, rows: *const c_char, len: usize, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_array_stream(schema: *mut ArrowSchema, array: *mut ArrowArray, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_expire_snapshots(table: *mut floe_table, options_json: *const c_char, result_json: *mut *mut c_char) -> floe_status;
    pub fn floe_table_maintain(table: *mut floe_table, action: *const c_char, options_json: *const c_char,
                               progress: floe_progress_fn, user_data: *mut c_void, result_json: *mut *mut c_char) -> floe_status;
    pub fn floe_rewrite_plan(table: *mut floe_table, options_json: *const c_char, plan_json: *mut *mut c_char) -> floe_status;
    pub fn floe_rewrite_group(table: *mut floe_table, group: *const u8, len: usize, options_json: *const c_char,
                              result: *mut *mut u8, result_len: *mut usize) -> floe_status;
    pub fn floe_rewrite_commit(table: *mut floe_table, results: *const u8, len: usize, options_json: *const c_char,
                               result_json: *mut *mut c_char) -> floe_status;
    pub fn floe_rewrite_discard(table: *mut floe_table, results: *const u8, len: usize) -> floe_status;
    pub fn floe_table_transaction(table: *mut floe_table, actions_json: *const c_char, options_json: *const c_char,
                                  result_json: *mut *mut c_char) -> floe_status;
    pub fn floe_table_transaction_preview(table: *mut floe_table, actions_json: *const c_char, out: *mut *mut floe_table) -> floe_status;
    pub fn floe_schema_from_arrow(schema: *mut ArrowSchema, schema_json: *mut *mut c_char) -> floe_status;
    pub fn floe_inspect(table: *mut floe_table, kind: *const c_char, options_json: *const c_char,
                        out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_inspect_plan(table: *mut floe_table, kind: *const c_char, options_json: *const c_char,
                             tasks_json: *mut *mut c_char) -> floe_status;

    pub fn floe_scan_open(table: *mut floe_table, scan_json: *const c_char, out: *mut *mut floe_scan) -> floe_status;
    pub fn floe_scan_schema(scan: *mut floe_scan, out: *mut ArrowSchema) -> floe_status;
    pub fn floe_scan_plan(scan: *mut floe_scan, task_count: *mut i64) -> floe_status;
    pub fn floe_scan_count(scan: *mut floe_scan, rows: *mut i64) -> floe_status;
    pub fn floe_scan_task(scan: *mut floe_scan, i: i64, bytes: *mut *mut u8, len: *mut usize) -> floe_status;
    pub fn floe_scan_stream(scan: *mut floe_scan, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_scan_stream_options(scan: *mut floe_scan, options_json: *const c_char, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_scan_add_filter(scan: *mut floe_scan, filter: *const c_char) -> floe_status;
    pub fn floe_scan_metrics(scan: *mut floe_scan, json_out: *mut *mut c_char) -> floe_status;
    pub fn floe_scan_free(scan: *mut floe_scan) -> floe_status;
    pub fn floe_runtime_stats(json: *mut *mut c_char) -> floe_status;
    pub fn floe_scan_cancel(scan: *mut floe_scan) -> floe_status;

    pub fn floe_task_stream(task: *const u8, len: usize, options_json: *const c_char, out: *mut ArrowArrayStream) -> floe_status;
    pub fn floe_task_io_open(task: *const u8, len: usize, options_json: *const c_char, out: *mut *mut floe_task_io) -> floe_status;
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

    pub fn floe_binary_dictionary(offsets: *const i64, n: i64, data: *const u8, data_len: i64, max_distinct: i64,
                                  codes: *mut i32, firsts: *mut i64, distinct: *mut i64) -> floe_status;
    // CPython only (see floe.h): for bindings that make Python objects.
    pub fn floe_py_binary_objects(starts: *const i64, ends: *const i64, data: *const u8, data_len: i64, n: i64,
                                  text: i32, out: *mut *mut c_void) -> i64;
    pub fn floe_py_int64_products(values: *const i64, n: i64, factor: *mut c_void, out: *mut *mut c_void) -> i64;
    pub fn floe_py_take_objects(objects: *const *mut c_void, n_objects: i64, codes: *const c_void, code_bytes: i32,
                                n: i64, out: *mut *mut c_void) -> i64;
    pub fn floe_py_swap_objects(a: *mut *mut c_void, b: *mut *mut c_void, n: i64);
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

    // Every function of include/floe.h is declared here with the types the
    // header gives (C types mapped as written: `floe_table* const*` is
    // `*const *mut floe_table`), and nothing else is: a declaration
    // written by hand that drifts from the header fails here, not at run
    // time.
    #[test]
    fn declarations_match_the_header() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let header = std::fs::read_to_string(format!("{dir}/../../../include/floe.h")).unwrap();
        let ours = std::fs::read_to_string(format!("{dir}/src/lib.rs")).unwrap();
        let c = header_functions(&header);
        let rust = rust_functions(&ours);
        assert!(c.len() > 50, "{} functions read from floe.h", c.len());
        for (name, sig) in &c {
            assert_eq!(rust.get(name), Some(sig), "{name}: floe.h declares {sig:?}");
        }
        for name in rust.keys() {
            assert!(c.contains_key(name), "{name} is not in floe.h");
        }
    }

    type Sigs = std::collections::BTreeMap<String, Vec<String>>;

    /// name -> [return type, parameter types...] as Rust spells them.
    fn header_functions(text: &str) -> Sigs {
        let mut code = String::new();
        let mut rest = text;
        while let Some(i) = rest.find("/*") {
            code.push_str(&rest[..i]);
            rest = &rest[i + rest[i..].find("*/").unwrap() + 2..];
        }
        code.push_str(rest);
        let code: String = code.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join(" ");
        let mut out = Sigs::new();
        for stmt in code.split(';') {
            let stmt = stmt.rsplit(['{', '}']).next().unwrap().trim();
            let Some(open) = stmt.find('(') else { continue };
            let head = stmt[..open].trim();
            let name = head.rsplit([' ', '*']).next().unwrap();
            if !name.starts_with("floe_") || !stmt.ends_with(')') {
                continue;
            }
            let mut sig = vec![c_type(&head[..head.len() - name.len()])];
            let params = stmt[open + 1..stmt.len() - 1].trim();
            if params != "void" {
                for p in params.split(',') {
                    let p = p.trim();
                    let pname = p.rsplit([' ', '*']).next().unwrap();
                    sig.push(c_type(&p[..p.len() - pname.len()]));
                }
            }
            out.insert(name.to_string(), sig);
        }
        out
    }

    /// A C type as the Rust declaration spells it: the pointee's const
    /// makes a pointer *const, a const after a star qualifies that star.
    fn c_type(t: &str) -> String {
        let t = t.replace('*', " * ");
        let mut toks = t.split_whitespace().peekable();
        let mut base = String::new();
        let mut is_const = false;
        while let Some(&tok) = toks.peek() {
            match tok {
                "*" => break,
                "const" => is_const = true,
                "struct" => {}
                b => base = b.to_string(),
            }
            toks.next();
        }
        let mut cur = match base.as_str() {
            "char" => "c_char".to_string(),
            "int" => "c_int".to_string(),
            "void" => "c_void".to_string(),
            "int64_t" => "i64".to_string(),
            "int32_t" => "i32".to_string(),
            "size_t" => "usize".to_string(),
            "uint8_t" => "u8".to_string(),
            b => b.to_string(),
        };
        if cur == "c_void" && toks.peek().is_none() {
            return String::new(); // returns nothing
        }
        while let Some(tok) = toks.next() {
            assert_eq!(tok, "*", "{t}");
            cur = format!("*{} {cur}", if is_const { "const" } else { "mut" });
            is_const = toks.next_if_eq(&"const").is_some();
        }
        cur
    }

    fn rust_functions(text: &str) -> Sigs {
        let block = &text[text.find("extern \"C\" {").unwrap()..];
        let block = &block[..block.find("\n}").unwrap()];
        let mut out = Sigs::new();
        for decl in block.split("pub fn ").skip(1) {
            let decl = decl[..decl.find(';').unwrap()].split_whitespace().collect::<Vec<_>>().join(" ");
            let open = decl.find('(').unwrap();
            let close = decl.rfind(')').unwrap();
            let ret = decl[close + 1..].trim().trim_start_matches("->").trim().to_string();
            let mut sig = vec![ret];
            for p in decl[open + 1..close].split(',').map(str::trim).filter(|p| !p.is_empty()) {
                sig.push(p.split_once(':').unwrap().1.trim().to_string());
            }
            out.insert(decl[..open].to_string(), sig);
        }
        out
    }

    #[test]
    fn version_links() {
        let v = unsafe { CStr::from_ptr(floe_version()) }.to_str().unwrap();
        assert_eq!(v.split('.').count(), 3, "{v}");
        let name = unsafe { CStr::from_ptr(floe_status_name(FLOE_NOT_FOUND)) }.to_str().unwrap();
        assert_eq!(name, "FLOE_NOT_FOUND");
    }
}
