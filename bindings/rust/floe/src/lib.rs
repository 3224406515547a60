//! A safe API over libfloe (the `floe-sys` declarations of include/floe.h):
//! open a table, plan a scan, read its batches through the Arrow C stream
//! interface, hand tasks to other processes; change a table with an action
//! list committed as one transaction, or several tables of a catalog at
//! once ([`Catalog::commit_transaction`]). Errors carry floe's status and
//! message. Batches come as Arrow C array/schema pairs ([`Batch`]); with
//! arrow-rs, `Batch::into_raw` gives the two structures its FFI import
//! (`arrow::ffi::from_ffi`) takes, moved out of floe's hands.

use std::ffi::{CStr, CString};
use std::fmt;
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::ptr;

pub use floe_sys as sys;

mod catalog;
mod maintain;
mod transaction;
pub use catalog::Catalog;
use sys::{ArrowArray, ArrowArrayStream, ArrowSchema};

/// A failed floe call: floe's status (`sys::FLOE_NOT_FOUND`, ...) and its
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub status: i32,
    pub message: String,
}

impl Error {
    /// The status's name, "FLOE_NOT_FOUND".
    pub fn status_name(&self) -> String {
        unsafe { cstr(sys::floe_status_name(self.status)) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status_name(), self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

fn check(status: sys::floe_status) -> Result<()> {
    if status == sys::FLOE_OK {
        return Ok(());
    }
    // floe_last_error is per thread and read right after the call.
    Err(Error { status, message: unsafe { cstr(sys::floe_last_error()) } })
}

fn c_string(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error { status: sys::FLOE_INVALID_ARGUMENT, message: "a string holds a NUL byte".into() })
}

fn opt_c_string(s: Option<&str>) -> Result<Option<CString>> {
    s.map(c_string).transpose()
}

fn opt_ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

/// Runs a call that hands back a string floe allocated, and takes it.
fn string_out(call: impl FnOnce(*mut *mut c_char) -> sys::floe_status) -> Result<String> {
    let mut out = ptr::null_mut();
    check(call(&mut out))?;
    let s = unsafe { cstr(out) };
    unsafe { sys::floe_string_free(out) };
    Ok(s)
}

/// The version of the loaded libfloe, "MAJOR.MINOR.PATCH".
pub fn version() -> String {
    unsafe { cstr(sys::floe_version()) }
}

/// What libfloe holds now, as floe_runtime_stats's JSON (goroutines,
/// live handles and batches, heap and export-buffer bytes).
pub fn runtime_stats() -> Result<String> {
    string_out(|out| unsafe { sys::floe_runtime_stats(out) })
}

/// An opened table: one version of its metadata.
pub struct Table {
    raw: *mut sys::floe_table,
}

// A floe_table may be used from any thread (floe serialises what needs it).
unsafe impl Send for Table {}
unsafe impl Sync for Table {}

impl Table {
    /// Opens a table directory, metadata file or "ns.table" under a
    /// warehouse; options_json as floe_table_open takes them
    /// (`{"location_map": {...}}`).
    pub fn open(location: &str, options_json: Option<&str>) -> Result<Table> {
        let loc = c_string(location)?;
        let opts = opt_c_string(options_json)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::floe_table_open(loc.as_ptr(), opt_ptr(&opts), &mut raw) })?;
        Ok(Table { raw })
    }

    /// The table metadata, as Iceberg metadata JSON.
    pub fn metadata_json(&self) -> Result<String> {
        string_out(|out| unsafe { sys::floe_table_metadata_json(self.raw, out) })
    }

    /// The metadata file the table was read from.
    pub fn metadata_location(&self) -> Result<String> {
        string_out(|out| unsafe { sys::floe_table_metadata_location(self.raw, out) })
    }

    /// Plans a scan; scan_json as floe_scan_open takes it (`{"columns":
    /// [...], "filter": "id > 10", "limit": 100, "threads": 2}`).
    pub fn scan(&self, scan_json: Option<&str>) -> Result<Scan<'_>> {
        let opts = opt_c_string(scan_json)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::floe_scan_open(self.raw, opt_ptr(&opts), &mut raw) })?;
        Ok(Scan { raw, _table: PhantomData })
    }

    /// One of the table's metadata tables (Java's and pyiceberg's names:
    /// "snapshots", "files", "partitions", …) as a stream of batches;
    /// options_json as floe_inspect takes it (`{"columns": [...], "filter":
    /// "record_count > 1000", "snapshot_id": 42, "limit": 10}`). The stream
    /// does not borrow the table.
    pub fn inspect(&self, kind: &str, options_json: Option<&str>) -> Result<BatchStream> {
        let kind = c_string(kind)?;
        let opts = opt_c_string(options_json)?;
        let mut raw = ArrowArrayStream::empty();
        check(unsafe { sys::floe_inspect(self.raw, kind.as_ptr(), opt_ptr(&opts), &mut raw) })?;
        Ok(BatchStream { raw })
    }

    /// A metadata table of manifest entries ("files", "entries", their
    /// data_/delete_ and all_ forms) as tasks to read in parallel, in any
    /// process (floe_inspect_plan): reading them all, in order, gives
    /// `inspect`'s rows. options_json as `inspect` takes it, plus
    /// "task_size" (manifest bytes per task). Read a task with
    /// `Task::stream`, giving the table's "location_map".
    pub fn inspect_tasks(&self, kind: &str, options_json: Option<&str>) -> Result<Vec<Task>> {
        let kind = c_string(kind)?;
        let opts = opt_c_string(options_json)?;
        let json = string_out(|out| unsafe { sys::floe_inspect_plan(self.raw, kind.as_ptr(), opt_ptr(&opts), out) })?;
        Ok(json_array_objects(&json).into_iter().map(|t| Task { bytes: t.as_bytes().to_vec() }).collect())
    }

    /// The raw handle, for calls this crate does not wrap.
    pub fn as_raw(&self) -> *mut sys::floe_table {
        self.raw
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        unsafe { sys::floe_table_free(self.raw) };
    }
}

/// A planned scan of a table.
pub struct Scan<'t> {
    raw: *mut sys::floe_scan,
    _table: PhantomData<&'t Table>,
}

unsafe impl Send for Scan<'_> {}
// floe.h: several threads may use one scan handle at once (cancel and
// add_filter while another thread reads a stream).
unsafe impl Sync for Scan<'_> {}

impl<'t> Scan<'t> {
    /// How many tasks the scan plans (floe_scan_task numbers them).
    pub fn plan(&self) -> Result<i64> {
        let mut n = 0;
        check(unsafe { sys::floe_scan_plan(self.raw, &mut n) })?;
        Ok(n)
    }

    /// Every task, serialised: each can be read in any process.
    pub fn tasks(&self) -> Result<Vec<Task>> {
        (0..self.plan()?)
            .map(|i| {
                let mut bytes = ptr::null_mut();
                let mut len = 0usize;
                check(unsafe { sys::floe_scan_task(self.raw, i, &mut bytes, &mut len) })?;
                let v = unsafe { std::slice::from_raw_parts(bytes, len) }.to_vec();
                unsafe { sys::floe_bytes_free(bytes) };
                Ok(Task { bytes: v })
            })
            .collect()
    }

    /// The rows the scan returns (from manifests when it can).
    pub fn count(&self) -> Result<i64> {
        let mut n = 0;
        check(unsafe { sys::floe_scan_count(self.raw, &mut n) })?;
        Ok(n)
    }

    /// Stops every stream of the scan and every later call on it
    /// (FLOE_CANCELLED); callable while another thread reads a stream.
    pub fn cancel(&self) -> Result<()> {
        check(unsafe { sys::floe_scan_cancel(self.raw) })
    }

    /// Tightens the scan's filter, also while streams are read.
    pub fn add_filter(&self, filter: &str) -> Result<()> {
        let f = c_string(filter)?;
        check(unsafe { sys::floe_scan_add_filter(self.raw, f.as_ptr()) })
    }

    /// What the scan pruned and read, as JSON.
    pub fn metrics(&self) -> Result<String> {
        string_out(|out| unsafe { sys::floe_scan_metrics(self.raw, out) })
    }

    /// The scan's batches.
    pub fn stream(&self) -> Result<BatchStream> {
        let mut raw = ArrowArrayStream::empty();
        check(unsafe { sys::floe_scan_stream(self.raw, &mut raw) })?;
        Ok(BatchStream { raw })
    }
}

impl Drop for Scan<'_> {
    fn drop(&mut self) {
        unsafe { sys::floe_scan_free(self.raw) };
    }
}

/// A serialised scan task: a file, a byte range of one, or several small
/// files, with what reading them needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    bytes: Vec<u8>,
}

impl Task {
    pub fn from_bytes(bytes: Vec<u8>) -> Task {
        Task { bytes }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Reads the task; options_json as floe_task_stream takes them.
    pub fn stream(&self, options_json: Option<&str>) -> Result<BatchStream> {
        let opts = opt_c_string(options_json)?;
        let mut raw = ArrowArrayStream::empty();
        check(unsafe { sys::floe_task_stream(self.bytes.as_ptr(), self.bytes.len(), opt_ptr(&opts), &mut raw) })?;
        Ok(BatchStream { raw })
    }
}

/// The objects of a JSON array of objects (floe_inspect_plan's answer),
/// each as its own text; strings are skipped whole so braces in them do
/// not count.
fn json_array_objects(json: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start, mut in_string, mut escaped) = (Vec::new(), 0usize, 0usize, false, false);
    for (i, c) in json.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    out.push(&json[start..=i]);
                }
            }
            _ => {}
        }
    }
    out
}

/// An Arrow C stream of record batches. Iterating yields each batch with
/// its schema; the stream is released when dropped.
pub struct BatchStream {
    raw: ArrowArrayStream,
}

unsafe impl Send for BatchStream {}

impl BatchStream {
    fn error(&mut self, rc: i32) -> Error {
        let message = match self.raw.get_last_error {
            Some(f) => unsafe { cstr(f(&mut self.raw)) },
            None => String::new(),
        };
        // floe's streams report errno values: EINVAL, ENOENT, ENOSYS,
        // ECANCELED, ETIMEDOUT, EIO.
        let status = match rc {
            22 => sys::FLOE_INVALID_ARGUMENT,
            2 => sys::FLOE_NOT_FOUND,
            38 => sys::FLOE_UNSUPPORTED,
            125 => sys::FLOE_CANCELLED,
            110 => sys::FLOE_TIMEOUT,
            _ => sys::FLOE_IO,
        };
        Error { status, message }
    }

    /// The batches' schema.
    pub fn schema(&mut self) -> Result<OwnedSchema> {
        let mut s = ArrowSchema::empty();
        let get = self.raw.get_schema.expect("a released stream");
        let rc = unsafe { get(&mut self.raw, &mut s) };
        if rc != 0 {
            return Err(self.error(rc));
        }
        Ok(OwnedSchema(s))
    }

    /// The stream itself, moved out (floe no longer releases it): for an
    /// importer such as arrow-rs's ArrowArrayStreamReader.
    pub fn into_raw(self) -> ArrowArrayStream {
        let me = std::mem::ManuallyDrop::new(self);
        unsafe { ptr::read(&me.raw) }
    }
}

impl Iterator for BatchStream {
    type Item = Result<Batch>;

    fn next(&mut self) -> Option<Result<Batch>> {
        let get = self.raw.get_next?;
        let mut a = ArrowArray::empty();
        let rc = unsafe { get(&mut self.raw, &mut a) };
        if rc != 0 {
            return Some(Err(self.error(rc)));
        }
        if a.release.is_none() {
            return None; // the end
        }
        let array = OwnedArray(a);
        Some(self.schema().map(|schema| Batch { array, schema }))
    }
}

impl Drop for BatchStream {
    fn drop(&mut self) {
        if let Some(release) = self.raw.release {
            unsafe { release(&mut self.raw) };
        }
    }
}

/// One record batch: a struct array and its schema, released when dropped.
pub struct Batch {
    pub array: OwnedArray,
    pub schema: OwnedSchema,
}

impl Batch {
    /// Rows in the batch.
    pub fn num_rows(&self) -> i64 {
        self.array.0.length
    }

    /// The two C structures, moved out (the caller releases them): what
    /// arrow-rs's `FFI_ArrowArray::from_raw` / `FFI_ArrowSchema::from_raw`
    /// take.
    pub fn into_raw(self) -> (ArrowArray, ArrowSchema) {
        let Batch { array, schema } = self;
        (array.into_raw(), schema.into_raw())
    }
}

/// An ArrowArray this program owns.
pub struct OwnedArray(ArrowArray);

impl OwnedArray {
    pub fn raw(&self) -> &ArrowArray {
        &self.0
    }

    pub fn into_raw(self) -> ArrowArray {
        let me = std::mem::ManuallyDrop::new(self);
        unsafe { ptr::read(&me.0) }
    }
}

impl Drop for OwnedArray {
    fn drop(&mut self) {
        if let Some(release) = self.0.release {
            unsafe { release(&mut self.0) };
        }
    }
}

/// An ArrowSchema this program owns.
pub struct OwnedSchema(ArrowSchema);

impl OwnedSchema {
    pub fn raw(&self) -> &ArrowSchema {
        &self.0
    }

    /// The names of the top-level fields.
    pub fn field_names(&self) -> Vec<String> {
        (0..self.0.n_children as usize)
            .map(|i| unsafe { cstr((**self.0.children.add(i)).name) })
            .collect()
    }

    pub fn into_raw(self) -> ArrowSchema {
        let me = std::mem::ManuallyDrop::new(self);
        unsafe { ptr::read(&me.0) }
    }

    /// The Iceberg schema (metadata JSON, field ids 0) of this Arrow
    /// schema, which it consumes: what a "union-by-name" action of
    /// [`Table::transaction`] takes, from Arrow data's schema. An Arrow
    /// type Iceberg lacks is an error naming the column.
    pub fn iceberg_schema_json(self) -> Result<String> {
        let mut raw = self.into_raw();
        // floe releases the schema, also when it refuses it.
        string_out(|out| unsafe { sys::floe_schema_from_arrow(&mut raw, out) })
    }
}

impl Drop for OwnedSchema {
    fn drop(&mut self) {
        if let Some(release) = self.0.release {
            unsafe { release(&mut self.0) };
        }
    }
}
