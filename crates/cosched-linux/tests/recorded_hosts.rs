//! The real runtime's host-dependent decisions on recorded sysfs trees of
//! other machines: each tree is read as `cosched run`
//! reads this host ([`Host::from_sysfs`]), described as a run without `-m`
//! describes it ([`Description::of`]), and policies are driven through a view
//! of that description. Every size in the checks comes from the description.

use cosched_core::policy::{Decision, Demand, Event, MachineView, Resource, Reuse};
use cosched_core::{CtxId, JobId, Nanos, PeriodId, ThreadId, Topology};
use cosched_linux::describe::Description;
use cosched_linux::host::recorded::{self, Shape};
use cosched_linux::host::Host;
use cosched_policies::{self as policies, PolicyOptions};

/// The shapes machines of our kind come in (2 MiB to 32 MiB L3, SMT or not,
/// one or two LLC domains), and one that reports no L3 at all.
const SHAPES: [(&str, Shape); 5] = [
    ("2mib-1llc-2cpu", Shape { cpus: 2, smt: false, llc_domains: 1, llc_kib: 2048 }),
    ("8mib-4cpu", Shape { cpus: 4, smt: false, llc_domains: 1, llc_kib: 8192 }),
    ("32mib-smt-8cpu", Shape { cpus: 8, smt: true, llc_domains: 1, llc_kib: 32768 }),
    ("two-llc-16cpu", Shape { cpus: 16, smt: true, llc_domains: 2, llc_kib: 16384 }),
    ("no-l3-2cpu", Shape { cpus: 2, smt: false, llc_domains: 1, llc_kib: 0 }),
];

/// What the runtime offers a policy, from the host and its description.
struct View<'a> {
    host: &'a Host,
    desc: &'a Description,
    running: Vec<Option<ThreadId>>,
    n_threads: usize,
}

impl MachineView for View<'_> {
    fn now(&self) -> Nanos {
        0
    }
    fn topology(&self) -> &Topology {
        &self.host.topology
    }
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.running[ctx.idx()]
    }
    fn job_of(&self, t: ThreadId) -> JobId {
        JobId(t.0)
    }
    fn n_threads_total(&self) -> usize {
        self.n_threads
    }
    fn bus_lines_per_s(&self) -> Option<f64> {
        self.desc.bus_lines_per_s
    }
    fn llc_bytes(&self) -> Option<f64> {
        self.desc.llc_bytes
    }
}

impl View<'_> {
    /// Deliver `ev`, apply the decisions as the runtime does, return them.
    fn send(&mut self, p: &mut dyn cosched_core::Policy, ev: Event) -> Vec<Decision> {
        if let Event::PeriodBegin { ctx: Some(c), .. } = ev {
            self.running[c.idx()] = None;
        }
        let mut out = vec![];
        p.on_event(&ev, self, &mut out);
        for d in &out {
            match *d {
                Decision::Run { thread, ctx } => {
                    assert!(ctx.idx() < self.running.len(), "a decision names context {ctx:?} the host lacks");
                    for r in self.running.iter_mut().filter(|r| **r == Some(thread)) {
                        *r = None;
                    }
                    self.running[ctx.idx()] = Some(thread);
                }
                Decision::Preempt { ctx } => self.running[ctx.idx()] = None,
                _ => {}
            }
        }
        out
    }

    fn ctx_of(&self, t: ThreadId) -> Option<CtxId> {
        self.running.iter().position(|r| *r == Some(t)).map(|c| CtxId(c as u32))
    }
}

fn llc(amount: f64) -> Demand {
    Demand { resource: Resource::Llc, amount, reuse: Reuse::High }
}

fn admitted(out: &[Decision]) -> Vec<PeriodId> {
    out.iter().filter_map(|d| if let Decision::Admit { period } = d { Some(*period) } else { None }).collect()
}

/// Two threads each beginning a period of `share` of the described LLC:
/// the periods admitted at once, and those admitted when the first ends.
fn two_periods(host: &Host, desc: &Description, share: f64) -> (Vec<PeriodId>, Vec<PeriodId>) {
    let mut p = policies::make("rda-strict", &PolicyOptions::default()).unwrap();
    let mut v = View { host, desc, running: vec![None; host.topology.n_contexts()], n_threads: 2 };
    p.init(&v).unwrap();
    for t in 0..2 {
        v.send(p.as_mut(), Event::Arrived { thread: ThreadId(t), job: JobId(t) });
    }
    let demand = llc(share * desc.llc_bytes.unwrap());
    let mut at_once = vec![];
    for t in 0..2u32 {
        let ctx = v.ctx_of(ThreadId(t));
        let ev = Event::PeriodBegin { thread: ThreadId(t), ctx, period: PeriodId(t + 1), demand };
        at_once.extend(admitted(&v.send(p.as_mut(), ev)));
    }
    let later = admitted(&v.send(p.as_mut(), Event::PeriodEnd { thread: ThreadId(0), period: PeriodId(1) }));
    (at_once, later)
}

#[test]
fn strict_admits_by_the_described_llc_on_every_recorded_shape() {
    for (tag, shape) in SHAPES {
        let (dir, host) = recorded::host(&format!("rda-{tag}"), &shape).unwrap();
        let desc = Description::of(&host, None, None);
        assert_eq!(desc.contexts, shape.cpus as usize, "{tag}");
        assert_eq!(desc.smt, shape.smt, "{tag}");
        assert_eq!(desc.llc_domains, shape.llc_domains as usize, "{tag}");
        if shape.llc_kib == 0 {
            assert!(desc.llc_bytes.is_none() && desc.line().contains("LLC unknown"), "{tag}: {}", desc.line());
            let mut p = policies::make("rda-strict", &PolicyOptions::default()).unwrap();
            let v = View { host: &host, desc: &desc, running: vec![None; shape.cpus as usize], n_threads: 1 };
            let e = p.init(&v).unwrap_err().to_string();
            assert!(e.contains("LLC capacity"), "{tag}: {e}");
        } else {
            assert_eq!(desc.llc_bytes, Some(shape.llc_kib as f64 * 1024.0), "{tag}");
            // Two periods of 3/4 of the LLC: one at a time.
            let (at_once, later) = two_periods(&host, &desc, 0.75);
            assert_eq!(at_once, vec![PeriodId(1)], "{tag}");
            assert_eq!(later, vec![PeriodId(2)], "{tag}");
            // Two of 2/5: together.
            let (at_once, later) = two_periods(&host, &desc, 0.4);
            assert_eq!(at_once, vec![PeriodId(1), PeriodId(2)], "{tag}");
            assert!(later.is_empty(), "{tag}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn round_robin_fills_every_described_context_and_no_other() {
    for (tag, shape) in SHAPES {
        let (dir, host) = recorded::host(&format!("rr-{tag}"), &shape).unwrap();
        let desc = Description::of(&host, None, None);
        let n = desc.contexts;
        let opts = PolicyOptions::default();
        for name in ["g-rrs", "cfs", "rda-compromise"] {
            if name.starts_with("rda") && desc.llc_bytes.is_none() {
                continue;
            }
            let mut p = policies::make(name, &opts).unwrap();
            let mut v = View { host: &host, desc: &desc, running: vec![None; n], n_threads: n + 1 };
            p.init(&v).unwrap();
            for t in 0..=n as u32 {
                v.send(p.as_mut(), Event::Arrived { thread: ThreadId(t), job: JobId(t) });
            }
            assert!(v.running.iter().all(Option::is_some), "{tag}/{name}: {:?}", v.running);
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
