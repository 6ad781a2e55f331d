//! cosched-machine: what both backends share, below them (docs/architecture.md,
//! "The crates and their one job each"; `docs/design-notes.md`, note 17).
//!
//! * [`spec`]: the machine description — topology, caches, core resources,
//!   memory bus, power and costs — parsed strictly from TOML text and
//!   validated field by field.
//! * [`presets`]: the machine presets under `data/machines`, embedded at build
//!   time, and the one thin loader that reads a preset name or a file path
//!   (the only file I/O of this crate; the simulator's workload loader uses
//!   it too).
//! * [`power`]: the power model (EFS Eq. 13 plus DRAM), used by the simulator
//!   as ground truth and by the real runtime where no RAPL exists.
//! * [`trace`]: the Perfetto/Chrome trace format both backends write.
//! * [`output`]: every output path written whole, or into a device or FIFO,
//!   never replacing what the path names.
//! * [`error`]: [`ConfigError`], the one-line "file: field: problem" error.
//!
//! Depends only on `cosched-core`; must never import `cosched-sim`,
//! `cosched-linux` or any front end.
#![warn(missing_docs)]

pub mod characterised;
pub mod check;
pub mod dram;
pub mod error;
pub mod family;
pub mod input;
pub mod mix;
pub mod output;
pub mod pirate_sweep;
pub mod power;
pub mod presets;
pub mod spec;
pub mod trace;

pub use error::ConfigError;
pub use power::{Power, PowerModel};
pub use spec::{MachineSpec, Origin};
pub use trace::{ChromeTrace, TraceSlice};
