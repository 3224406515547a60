//! Programs and tests of this crate find libfloe.so where floe-sys linked
//! it (its `lib_dir`, through `links = "floe"`): a link argument of a
//! build script applies to its own package only.
fn main() {
    if let Ok(dir) = std::env::var("DEP_FLOE_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
