//! Links libfloe.so: from FLOE_LIB_DIR when set, else the repository's
//! build/ (what `make lib` writes). Nothing is generated: the declarations
//! in src/lib.rs are written by hand from include/floe.h.
use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=FLOE_LIB_DIR");
    let dir = match env::var_os("FLOE_LIB_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../../build"),
    };
    let dir = dir.canonicalize().unwrap_or(dir);
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=floe");
    // Programs and tests built here find the library where they were linked.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    println!("cargo:lib_dir={}", dir.display());
}
