//! The workspace's own rules, apart from every crate they judge (docs/architecture.md, "The
//! crates and their one job each"). The crate holds no code: its tests read the other crates'
//! manifests and sources, so a change that breaks a rule fails `cargo test --workspace`.
//!
//! - `tests/layering.rs`: the crates' order (the backends never depend on each other, the core
//!   has no I/O and no PyO3, the lab never on a face, the policies on the framework only).
//! - `tests/house.rs`: no `.rs` or `.py` source over 500 lines, and no import circle between the
//!   files of a crate, a parent and its child modules included.
