//! What the change tests share: copies of the fixture tables in temporary
//! directories (the fixtures themselves are never written) and a small
//! JSON reader for floe's results (the crates use std only).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory under the system's temp dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("floe-rs-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A copy of the fixture table testdata/fixtures/<name> in dir; its path.
pub fn fixture_copy(dir: &TempDir, name: &str) -> String {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/fixtures").join(name);
    let dst = dir.0.join(name);
    copy_dir(&src, &dst);
    dst.to_string_lossy().into_owned()
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap_or_else(|e| panic!("{}: {e}", src.display())) {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// The *.metadata.json files of a table directory, sorted.
pub fn metadata_files(table_dir: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(Path::new(table_dir).join("metadata"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".metadata.json"))
        .collect();
    v.sort();
    v
}

/// A parsed JSON value. Numbers keep their text: snapshot ids exceed
/// what an f64 holds exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn parse(text: &str) -> Json {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        let v = p.value();
        p.ws();
        assert_eq!(p.i, p.s.len(), "trailing text in {text}");
        v
    }

    /// The member key of an object (Null when absent).
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map_or(&Json::Null, |(_, v)| v),
            _ => &Json::Null,
        }
    }

    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    pub fn num(&self) -> &str {
        match self {
            Json::Num(s) => s,
            other => panic!("not a number: {other:?}"),
        }
    }

    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(v) => v,
            other => panic!("not an array: {other:?}"),
        }
    }

    pub fn keys(&self) -> Vec<&str> {
        match self {
            Json::Obj(m) => m.iter().map(|(k, _)| k.as_str()).collect(),
            other => panic!("not an object: {other:?}"),
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        let hit = self.s.get(self.i) == Some(&b);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn value(&mut self) -> Json {
        self.ws();
        match self.s[self.i] {
            b'{' => {
                self.i += 1;
                let mut m = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let k = self.string();
                        assert!(self.eat(b':'), "':' expected at {}", self.i);
                        m.push((k, self.value()));
                        if self.eat(b'}') {
                            break;
                        }
                        assert!(self.eat(b','), "',' expected at {}", self.i);
                    }
                }
                Json::Obj(m)
            }
            b'[' => {
                self.i += 1;
                let mut v = Vec::new();
                if !self.eat(b']') {
                    loop {
                        v.push(self.value());
                        if self.eat(b']') {
                            break;
                        }
                        assert!(self.eat(b','), "',' expected at {}", self.i);
                    }
                }
                Json::Arr(v)
            }
            b'"' => Json::Str(self.string()),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            _ => {
                let start = self.i;
                while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    self.i += 1;
                }
                assert!(self.i > start, "a value expected at {start}");
                Json::Num(String::from_utf8(self.s[start..self.i].to_vec()).unwrap())
            }
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Json {
        assert!(self.s[self.i..].starts_with(w.as_bytes()), "{w} expected at {}", self.i);
        self.i += w.len();
        v
    }

    fn string(&mut self) -> String {
        assert_eq!(self.s[self.i], b'"', "a string expected at {}", self.i);
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let b = self.s[self.i];
            self.i += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let e = self.s[self.i];
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
                            self.i += 4;
                            let c = char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap_or('\u{fffd}');
                            out.extend_from_slice(c.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
        String::from_utf8(out).unwrap()
    }
}

/// Standard base64 with padding (action lists carry floe_write_files'
/// bytes so).
pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Rows given as JSON lines, written as data files of the table and not
/// committed: floe_write_files' bytes (the safe crate does not write yet).
pub fn write_files(t: &floe::Table, json_lines: &str) -> Vec<u8> {
    use floe::sys;
    unsafe {
        let mut stream = sys::ArrowArrayStream::empty();
        let rc = sys::floe_json_rows_stream(t.as_raw(), json_lines.as_ptr().cast(), json_lines.len(), &mut stream);
        assert_eq!(rc, sys::FLOE_OK, "rows: {}", last_error());
        let (mut bytes, mut len) = (std::ptr::null_mut(), 0usize);
        let rc = sys::floe_write_files(t.as_raw(), &mut stream, &mut bytes, &mut len);
        assert_eq!(rc, sys::FLOE_OK, "write: {}", last_error());
        let v = std::slice::from_raw_parts(bytes, len).to_vec();
        sys::floe_bytes_free(bytes);
        v
    }
}

/// Rows given as JSON lines appended to the table as one snapshot.
pub fn append(t: &floe::Table, json_lines: &str) -> i64 {
    use floe::sys;
    unsafe {
        let mut stream = sys::ArrowArrayStream::empty();
        let rc = sys::floe_json_rows_stream(t.as_raw(), json_lines.as_ptr().cast(), json_lines.len(), &mut stream);
        assert_eq!(rc, sys::FLOE_OK, "rows: {}", last_error());
        let mut id = 0;
        let rc = sys::floe_append(t.as_raw(), &mut stream, std::ptr::null(), &mut id);
        assert_eq!(rc, sys::FLOE_OK, "append: {}", last_error());
        id
    }
}

fn last_error() -> String {
    unsafe { std::ffi::CStr::from_ptr(floe::sys::floe_last_error()) }.to_string_lossy().into_owned()
}

/// The rows a scan of the table returns.
pub fn rows(t: &floe::Table, scan_json: Option<&str>) -> i64 {
    t.scan(scan_json).unwrap().stream().unwrap().map(|b| b.unwrap().num_rows()).sum()
}
