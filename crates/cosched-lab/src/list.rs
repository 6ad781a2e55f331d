//! The listings: policies with their knobs, machine and workload presets,
//! and every metric with its unit and direction.

use crate::error::RunError;
use cosched_core::metrics::registry::{Better, METRICS};
use cosched_policies as policies;
use cosched_policies::knob::KnobSpec;
use cosched_sim::presets;
use serde::Serialize;

/// What a listing lists (`cosched list`, Python's `list_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// Scheduling policies (`cosched_policies::registry`).
    Policies,
    /// Machine presets (`data/machines`).
    Machines,
    /// Workload presets (`data/workloads`).
    Workloads,
    /// Every metric a command prints: name, unit, which way is better (`cosched_core::metrics::registry`).
    Metrics,
}

/// One listed policy or preset (`cosched list --format json`).
#[derive(Serialize)]
pub struct Item {
    /// Name.
    pub name: String,
    /// One line.
    pub description: String,
    /// Policies: whether it reads the simulator's ground truth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle: Option<bool>,
    /// Machines: hardware contexts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contexts: Option<usize>,
    /// Workloads: threads (all jobs and instances).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Metrics: unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<&'static str>,
    /// Metrics: which way is better.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub better: Option<Better>,
    /// Policies: the knobs it reads, as declared next to its code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knobs: Option<Vec<ListedKnob>>,
}

/// A policy's knob in `cosched list policies --format json`: its declaration and flag.
#[derive(Serialize)]
pub struct ListedKnob {
    /// The command-line flag (`--quantum-ms`); the Python keyword is `name`.
    pub flag: String,
    /// The declaration.
    #[serde(flatten)]
    pub spec: &'static KnobSpec,
}

/// The policies, machine presets or workload presets.
pub fn items(what: What) -> Result<Vec<Item>, RunError> {
    Ok(match what {
        What::Policies => policies::registry()
            .iter()
            .map(|p| Item {
                name: p.name.into(),
                description: p.description.into(),
                oracle: Some(p.oracle),
                contexts: None,
                threads: None,
                unit: None,
                better: None,
                knobs: Some(p.knobs().map(|k| ListedKnob { flag: k.flag(), spec: k }).collect()),
            })
            .collect(),
        What::Metrics => METRICS
            .iter()
            .map(|m| Item {
                name: m.name.into(),
                description: m.about.into(),
                oracle: None,
                contexts: None,
                threads: None,
                unit: Some(m.unit),
                better: Some(m.better),
                knobs: None,
            })
            .collect(),
        What::Machines => cosched_machine::presets::machine_names()
            .map(|n| {
                let m = cosched_machine::presets::machine(n)?;
                Ok(Item {
                    name: n.into(),
                    description: m.description.clone(),
                    oracle: None,
                    contexts: Some(m.n_contexts()),
                    threads: None,
                    unit: None,
                    better: None,
                    knobs: None,
                })
            })
            .collect::<Result<_, RunError>>()?,
        What::Workloads => presets::workload_names()
            .map(|n| {
                let w = presets::workload(n)?;
                let threads = w.jobs.iter().map(|j| j.n_threads() * j.instances).sum();
                Ok(Item {
                    name: n.into(),
                    description: w.description.clone(),
                    oracle: None,
                    contexts: None,
                    threads: Some(threads),
                    unit: None,
                    better: None,
                    knobs: None,
                })
            })
            .collect::<Result<_, RunError>>()?,
    })
}
