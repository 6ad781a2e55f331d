//! DRAM device timings, in clock cycles of the device (tCK): what `[memory.dram] device` names.
//! The cycle-level controller that obeys them is `cosched_sim::dram`.

/// The timing parameters of one DRAM speed grade that a read-only, open-page controller obeys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Device {
    /// Name as presets give it (`[memory.dram] device`).
    pub name: &'static str,
    /// Clock period, ns.
    pub tck_ns: f64,
    /// CAS latency: read command to first data.
    pub cl: u32,
    /// Activate to read.
    pub trcd: u32,
    /// Precharge to activate.
    pub trp: u32,
    /// Activate to precharge (minimum row open time).
    pub tras: u32,
    /// Activate to activate, same bank.
    pub trc: u32,
    /// Activate to activate, different banks of one rank.
    pub trrd: u32,
    /// Window in which a rank takes at most four activates.
    pub tfaw: u32,
    /// Data burst of one 64-byte line (BL8 on a 64-bit channel), and read to read.
    pub burst: u32,
    /// Read to precharge.
    pub trtp: u32,
    /// Refresh cycle: the rank is busy this long per refresh.
    pub trfc: u32,
    /// Average refresh interval.
    pub trefi: u32,
    /// Idle cycles on the data bus between bursts of different ranks.
    pub trtrs: u32,
}

/// DDR3-1333H (9-9-9) with 4 Gb x8 devices (1 KB page), as the i5-2500's module has:
/// Micron MT41J512M8 data sheet, speed grade -15E, and JEDEC JESD79-3F. tCK 1.5 ns; CL = tRCD =
/// tRP = 13.5 ns; tRAS 36 ns; tRC 49.5 ns; tRRD max(4 tCK, 6 ns); tFAW 30 ns (1 KB page); tRTP
/// max(4 tCK, 7.5 ns); tRFC 260 ns (4 Gb); tREFI 7.8 µs (0-85 °C). tRTRS (rank to rank) is the
/// controller's, not the device's: one cycle, the usual minimum.
pub const DDR3_1333H: Device = Device {
    name: "ddr3-1333h",
    tck_ns: 1.5,
    cl: 9,
    trcd: 9,
    trp: 9,
    tras: 24,
    trc: 33,
    trrd: 4,
    tfaw: 20,
    burst: 4,
    trtp: 5,
    trfc: 174,
    trefi: 5200,
    trtrs: 1,
};

/// Every device the presets can name.
pub const DEVICES: [Device; 1] = [DDR3_1333H];

/// The device called `name`, if known.
pub fn device(name: &str) -> Option<Device> {
    DEVICES.iter().copied().find(|d| d.name == name)
}

impl Device {
    /// The data bus's peak rate, lines (64 B) per second: one burst per `burst` cycles.
    pub fn peak_lines_per_s(&self) -> f64 {
        1e9 / (self.burst as f64 * self.tck_ns)
    }

    /// The peak less refresh: what the timings allow a stream that never waits for a row.
    pub fn timing_limit_lines_per_s(&self) -> f64 {
        self.peak_lines_per_s() * (1.0 - self.trfc as f64 / self.trefi as f64)
    }

    /// Activates per second the tFAW window allows `ranks` ranks.
    pub fn activates_per_s(&self, ranks: u32) -> f64 {
        4.0 * ranks as f64 * 1e9 / (self.tfaw as f64 * self.tck_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddr3_1333h_limits_follow_from_its_timings() {
        let d = DDR3_1333H;
        // 64 B every 6 ns: 10.67 GB/s, 166.7 M lines/s.
        assert!((d.peak_lines_per_s() - 1e9 / 6.0).abs() < 1.0);
        // Two ranks under tFAW 30 ns: 266.7 M activates/s (one rank: 133.3 M).
        assert!((d.activates_per_s(2) - 8e9 / 30.0).abs() < 1.0);
        assert!((d.activates_per_s(1) - 4e9 / 30.0).abs() < 1.0);
        // 13.5 ns = 9 cycles of 1.5 ns.
        assert_eq!((d.trcd as f64 * d.tck_ns, d.trp as f64 * d.tck_ns, d.cl as f64 * d.tck_ns), (13.5, 13.5, 13.5));
        assert_eq!(device("ddr3-1333h"), Some(d));
        assert_eq!(device("ddr9"), None);
    }
}
