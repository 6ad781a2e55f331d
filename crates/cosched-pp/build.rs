//! Generates the C header (`include/cosched/pp.h`) with cbindgen into
//! OUT_DIR; a test checks the committed copy is identical.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("out dir")).join("pp.h");
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    match cbindgen::Builder::new().with_crate(&dir).with_config(config).generate() {
        Ok(b) => {
            b.write_to_file(&out);
        }
        Err(e) => panic!("cbindgen: {e}"),
    }
}
