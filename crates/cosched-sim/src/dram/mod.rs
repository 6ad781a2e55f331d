//! A cycle-level DRAM channel (device timings, an FR-FCFS open-page controller) and what it
//! measures: how much concurrent streams slow each other at the DRAM. The memory-bus model reads
//! its results as a table (`[memory.dram] stretch`, `docs/model.md`, "DRAM interference"); EFS
//! Table 1 (§5.2) is checked against it (`cosched paper efs`, docs/efs.md).

pub mod controller;
pub mod table;

pub use controller::{simulate, Organisation, Outcome, Stream};
pub use cosched_machine::dram::{device, Device, DDR3_1333H, DEVICES};
pub use table::{parallel_over_serial, stretch_table};
