//! Before anything is launched: the policy built and checked against what
//! this machine can give it (no oracle; counters from the PMU, a recorded
//! stream or a probed profile, else a refusal naming the way out), and the
//! runtime assembled — freezer, watchdog, signal handlers, energy meter, trace.

use super::config::{RunConfig, LINUX};
use super::error::RuntimeError;
use super::meter::Meter;
use super::signals;
use super::state::Runtime;
use super::view::RuntimeView;
use crate::control::{Control, Method};
use crate::counters::{CounterSource, PerfSource, RecordedSource};
use crate::describe::Description;
use crate::host::Host;
use crate::sys;
use crate::watchdog::{Watchdog, WatchdogCommand};
use cosched_core::dispatch::{Offer, Supply};
use cosched_core::policy::Policy;
use cosched_core::JobId;
use cosched_machine::output::Output;
use cosched_machine::ChromeTrace;
use cosched_policies as policies;
use cosched_policies::knob::flag_of;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

/// The policy with what feeds it.
pub(super) struct PolicySetup {
    /// `None` under `linux`.
    pub(super) policy: Option<Box<dyn Policy>>,
    pub(super) counters: Option<Box<dyn CounterSource>>,
    /// Provenance of the policy's counters, when it needs counters.
    pub(super) counters_provenance: Option<String>,
    /// What this machine offers the policy (SMT filled in from the host).
    pub(super) offer: Offer,
}

/// Where the counters come from: a recorded stream when given, else the
/// PMU through perf when this machine has one (never under `linux`).
fn counter_source(cfg: &RunConfig, linux: bool) -> Result<Option<Box<dyn CounterSource>>, RuntimeError> {
    Ok(match &cfg.recorded_counters {
        Some(p) => {
            let src = RecordedSource::load(p)?;
            src.covers(&cfg.mix.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>())?;
            Some(Box::new(src))
        }
        None if !linux && PerfSource::available().is_ok() => Some(Box::new(PerfSource::default())),
        None => None,
    })
}

/// Counters for a policy that needs them: the counter source, else a
/// probed profile when the policy can use one, else a refusal naming the
/// way out; with the provenance line.
fn counters_supply(
    cfg: &RunConfig,
    policy: &mut dyn Policy,
    counters: Option<&dyn CounterSource>,
) -> Result<(Supply, Option<String>), RuntimeError> {
    if let Some(c) = counters {
        return Ok((Supply::Yes, Some(c.label())));
    }
    let names: Vec<String> = cfg.mix.jobs.iter().map(|j| j.name.clone()).collect();
    let profile = cfg.profile.as_ref().map(|pr| pr.reorder(&names)).transpose()?;
    Ok(match profile {
        Some(pr) if policy.as_uses_profile().is_some_and(|p| p.use_profile(&pr)) => (
            Supply::Yes,
            Some({
                use cosched_core::pair_profile::PairSource;
                let (n, pct) = (pr.observed.len(), 100.0 * pr.density());
                match &pr.source {
                    PairSource::Measured => {
                        format!("replaced by a probed profile ({n} measured job pairs, {pct:.0}% of the matrix, FM-completed)")
                    }
                    PairSource::Predicted { machine } => format!(
                        "replaced by pair slowdowns predicted by the simulator for characterised programs on \
                         `{machine}` ({n} job pairs, {pct:.0}% of the matrix, FM-completed)"
                    ),
                    PairSource::MeasuredThenPredicted { machine } => format!(
                        "replaced by pair slowdowns measured by co-run probing where measured, else predicted for \
                         characterised programs on `{machine}` ({n} job pairs, {pct:.0}% of the matrix, FM-completed)"
                    ),
                }
            }),
        ),
        _ => (
            Supply::No(format!(
                "this runtime reads them only through perf_event_open, and this machine has none ({}); \
                 see `cosched doctor`{}",
                match crate::probe::live_pmu() {
                    crate::PmuStatus::Available => "the runtime's counter source is not wired for it yet".to_string(),
                    crate::PmuStatus::Unavailable(e) => format!("perf_event_open: {e}"),
                },
                if cfg.profile.is_some() {
                    "; this policy cannot use a probed profile instead".to_string()
                } else {
                    format!("; slits-* can run on a profile from `cosched probe` ({})", flag_of("profile"))
                }
            )),
            None,
        ),
    })
}

/// Build the policy and work out what this machine offers it (checked
/// against its needs by [`Runtime::dry_init`] before anything is launched).
pub(super) fn prepare_policy(cfg: &RunConfig) -> Result<PolicySetup, RuntimeError> {
    let linux = cfg.policy == LINUX;
    let mut policy = if linux { None } else { Some(policies::make(&cfg.policy, &cfg.opts)?) };
    let counters = counter_source(cfg, linux)?;
    let mut offer = Offer {
        backend: "this machine",
        counters: Supply::Yes,
        energy: Supply::No("the runtime's view gives policies no energy readings (its reports do)".into()),
        oracle: Supply::No("ground truth exists only in the simulator".into()),
        smt: false,
    };
    let mut counters_provenance = None;
    if let Some(p) = policy.as_mut().filter(|p| p.needs().counters) {
        (offer.counters, counters_provenance) = counters_supply(cfg, p.as_mut(), counters.as_deref())?;
    }
    Ok(PolicySetup { policy, counters, counters_provenance, offer })
}

/// Start the watchdog and tell it how to release what this run controls.
fn spawn_watchdog(command: &WatchdogCommand, control: &Control) -> Result<Watchdog, RuntimeError> {
    let mut w = Watchdog::spawn(command)
        .map_err(|source| RuntimeError::Host { what: "cannot start the watchdog".into(), source })?;
    let restore: Vec<String> = control.restore.iter().map(u32::to_string).collect();
    let told = |source: std::io::Error| RuntimeError::Host { what: "watchdog".into(), source };
    w.tell(&format!("method {}", control.method.encode())).map_err(told)?;
    if let Some(d) = control.dir() {
        w.tell(&format!("dir {}", d.display())).map_err(told)?;
    }
    w.tell(&format!("restore {}", restore.join(","))).map_err(told)?;
    Ok(w)
}

/// Open the trace file, one named track per CPU of this host.
/// A regular file is written whole when the run ends (a stopped run leaves the old file as it
/// was); a device or FIFO is written into, never replaced.
fn open_trace(cfg: &RunConfig, host: &Host) -> Result<Option<ChromeTrace<Output>>, RuntimeError> {
    let Some(p) = &cfg.trace else { return Ok(None) };
    let f = Output::create(p, &format!("{} {}", flag_of("trace"), p.display())).map_err(RuntimeError::output)?;
    let names = cfg.mix.instances().into_iter().map(|i| i.name).collect();
    ChromeTrace::new(f, &host.topology, names)
        .map(Some)
        .map_err(|source| RuntimeError::File { file: p.display().to_string(), source })
}

/// Assemble the runtime: freezer, watchdog, subreaper, signal handlers,
/// energy meter (with its provenance line), trace and the machine
/// description (its line); nothing launched yet.
pub(super) fn start(cfg: &RunConfig, setup: PolicySetup) -> Result<(Runtime, String, String), RuntimeError> {
    let linux = setup.policy.is_none();
    let host = cfg.host.clone().unwrap_or_else(Host::live);
    let description = Description::of(&host, cfg.machine.as_ref(), cfg.calibration.as_ref());
    let cannot =
        |source: std::io::Error| RuntimeError::Host { what: format!("cannot set up {}", cfg.method.label()), source };
    let control = Control::new(if linux { Method::Signals } else { cfg.method.clone() }).map_err(cannot)?;
    // Swept with the host's method even when this run uses signals (`linux`):
    // a dead run's cgroups are found wherever it made them.
    crate::release::sweep_stale(&cfg.method, &control.restore);
    let watchdog = cfg.watchdog.as_ref().map(|w| spawn_watchdog(w, &control)).transpose()?;
    control.create().map_err(cannot)?;
    sys::become_subreaper();
    signals::install();
    let (meter, energy_provenance) = Meter::open(description.power_model.as_ref(), &host);
    let trace = open_trace(cfg, &host)?;
    let smt = host.topology.has_smt();
    let llc = description.llc_bytes;
    let rt = Runtime {
        policy_name: cfg.policy.clone(),
        host,
        control,
        watchdog,
        policy: setup.policy,
        offer: Offer { smt, ..setup.offer },
        d: None,
        broken: None,
        freeze_unless_running: vec![],
        instances: vec![],
        job_of: vec![],
        leader_of: BTreeMap::new(),
        periods: BTreeMap::new(),
        next_period: 1,
        t0: Instant::now(),
        bus: description.bus_lines_per_s,
        power_table: description.power_model.as_ref().map(|m| m.power_table()),
        meter,
        jiffies: sys::cpu_jiffies(),
        last_sample: Instant::now(),
        trace,
        ticks: 0,
        block_ticks: cfg.block_ticks.max(1),
        counters: setup.counters.map(RefCell::new),
        leaders: vec![],
        hz: sys::clock_ticks(),
        llc,
        llc_read: std::cell::Cell::new(false),
        llc_warning: description.llc_warning.clone(),
        report: cfg.report.clone(),
    };
    Ok((rt, energy_provenance, description.line()))
}

impl Runtime {
    /// Check the policy can start on this machine before launching anything:
    /// its needs against what this machine offers, and a dry `init` on the
    /// planned instances (a refusal must not leave launched processes behind).
    pub(super) fn dry_init(&mut self, cfg: &RunConfig) -> Result<(), RuntimeError> {
        let Some(p) = &self.policy else { return Ok(()) };
        self.offer.gate(p.name(), p.needs()).map_err(RuntimeError::Refused)?;
        let planned: Vec<JobId> = cfg.mix.instances().iter().map(|i| JobId(i.job as u32)).collect();
        let leaders = vec![0; planned.len()];
        let view = RuntimeView { job_of: &planned, leaders: &leaders, counters: None, ..self.view() };
        policies::make(&cfg.policy, &cfg.opts)?
            .init(&view)
            .map_err(|e| RuntimeError::Policy { policy: cfg.policy.clone(), problem: Box::new(e.into()) })?;
        // Before anything is launched, where the policy's `init` reads the LLC's capacity.
        self.say_llc_warning();
        Ok(())
    }
}
