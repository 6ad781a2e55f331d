//! Every paper rerun in-process on small inputs: the report has the paper's
//! parts in order, every table's interval columns are numeric, no NaN is
//! shown, and the same options give the same bytes. (The full-size reruns are
//! the slow tier: `scripts/check-results` holds docs/results to them.)

use cosched_lab::paper::{self, Seeds};
use cosched_lab::report::Report;
use cosched_lab::RunError;

fn report(study: impl Fn(&mut Report) -> Result<(), RunError>) -> Report {
    let mut r = Report::default();
    study(&mut r).unwrap_or_else(|e| panic!("{e}"));
    r
}

const TWO: Seeds = Seeds { seeds: 2, noise: 1.0 };

/// The report has each of `parts` (in this order), each of `files`, and every
/// interval column of every file is numeric (a mean and its half-width).
fn holds(r: &Report, parts: &[&str], files: &[&str]) {
    let text = r.markdown();
    assert!(!text.contains("NaN"), "a NaN is shown:\n{text}");
    let mut at = 0;
    for p in parts {
        let i = text[at..].find(p).unwrap_or_else(|| panic!("missing {p:?} after byte {at}:\n{text}"));
        at += i;
    }
    let written = r.files();
    for f in files {
        let (_, csv) = written.iter().find(|(n, _)| n == f).unwrap_or_else(|| panic!("{f} not written"));
        assert!(csv.lines().count() >= 2, "{f}: no rows");
        let head = fields(csv.lines().next().unwrap());
        for line in csv.lines().skip(1) {
            let cells = fields(line);
            assert_eq!(cells.len(), head.len(), "{f}: {line}");
            for i in (0..head.len()).filter(|&i| head[i].ends_with(" ci95") && !cells[i].is_empty()) {
                for c in [&cells[i], &cells[i - 1]] {
                    assert!(c.parse::<f64>().is_ok_and(f64::is_finite), "{f}: {line}");
                }
            }
        }
    }
}

/// The fields of one CSV line (RFC 4180 quoting; no newlines inside fields here).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (vec![], String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[test]
fn efs_quick_has_every_figure_and_table() {
    let o = paper::efs::Options { quick: true, seeds: TWO, timing: false, ..Default::default() };
    let r = report(|s| paper::efs::run(&o, s));
    holds(
        &r,
        &["2 seeds", "mu = ", "Fig. 4", "Fig. 6", "Fig. 7", "Table 1", "Fig. 8", "Fig. 9", "Fig. 10", "Ablation"],
        &["fig4.csv", "fig6.csv", "fig7.csv", "fig7-timeline.csv", "table1.csv", "fig8.csv", "fig9.csv", "fig10.csv"],
    );
    assert!(r.files().iter().all(|(n, _)| *n != "decision-time.csv"), "timing off writes no timing");
}

#[test]
fn evt_small_has_pot_sample_size_sp_pot_and_random_sampling() {
    let o = paper::evt::Options { samples: 1000, seeds: TWO, ..Default::default() };
    let r = report(|s| paper::evt::run(&o, s));
    holds(
        &r,
        &["2 seeds", "POT estimate", "Fig. 5", "SP-POT", "oracle input", "Fig. 9"],
        &["pot.csv", "sample-size.csv", "sp-pot.csv", "random-sampling.csv"],
    );
    let pot = &r.files().into_iter().find(|(n, _)| *n == "pot.csv").unwrap().1;
    assert!(pot.lines().next().unwrap().contains("UPB ci95"), "{pot}");
    assert_eq!(pot.lines().count(), 6, "one row per application:\n{pot}");
}

#[test]
fn slits_small_has_every_figure_the_ablation_and_fm_accuracy() {
    let o = paper::slits::Options { seeds: TWO, ablation_seeds: 2, timing: false, ..Default::default() };
    let r = report(|s| paper::slits::run(&o, s));
    holds(
        &r,
        &["Fig. 3", "Headline", "Figs. 4-5", "Fig. 1", "Figs. 6-8", "FM accuracy"],
        &["fig3-speedup.csv", "headline.csv", "fig678-ablation.csv", "fm-accuracy-tim.csv"],
    );
    assert!(!r.markdown().contains("Decision time"), "timing off prints no timing");
}

#[test]
fn perf_fair_small_composes_mixes_across_the_bandwidth_range() {
    let o =
        paper::perf_fair::Options { seeds: TWO, mixes: 2, solo_seconds: 4.0, job_length: false, ..Default::default() };
    let r = report(|s| paper::perf_fair::run(&o, s));
    holds(
        &r,
        &["Fig. 1", "Fig. 2", "by bandwidth regime", "Ablation: re-estimation", "Fig. 3", "Mixes"],
        &["fig1-unfairness.csv", "fig2-speedup.csv", "regimes.csv", "ablation-reestimation.csv", "mixes.csv"],
    );
    // The two mixes are composed for the ends of the default range (PAPER_BW_RANGE, 40:140 trans/µs).
    let paper::perf_fair::BwRange { lo, hi } = paper::perf_fair::PAPER_BW_RANGE;
    let mixes = r.files().into_iter().find(|(n, _)| *n == "mixes.csv").unwrap().1;
    let bw: Vec<f64> = mixes.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    let tol = (hi - lo) * 0.15;
    assert!((bw[0] - lo).abs() < tol && (bw[1] - hi).abs() < tol, "{bw:?} against {lo}:{hi}");
}

#[test]
fn perf_fairs_job_length_study_stretches_the_default_mix_to_the_papers_100_s() {
    let m = cosched_machine::presets::machine("xeon-e5645").unwrap();
    let r = report(|s| paper::perf_fair_length::run(&m, &TWO, s));
    holds(&r, &["Job length", "spec-mix24"], &["job-length.csv"]);
    let csv = r.files().into_iter().find(|(n, _)| *n == "job-length.csv").unwrap().1;
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    // Three arms at preset length (as is, no tick, no rotation), one per stretched length, and the
    // preset length with the quanta shortened.
    assert_eq!(rows.len(), 3 + paper::perf_fair_length::LENGTHS_S.len() + 1, "{csv}");
    // The 100-s arm's jobs run about the paper's 100 s alone: about 500 of Perf&Fair's 200-ms quanta.
    let quanta: Vec<f64> = rows[rows.len() - 2][3..5].iter().map(|q| q.parse().unwrap()).collect();
    assert!(quanta.iter().all(|q| (q / 500.0 - 1.0).abs() < 0.15), "{quanta:?}");
    // The ablated arms change the machine's Linux model, not Perf&Fair: its unfairness is the same.
    assert_eq!(rows[0][7], rows[1][7], "{csv}");
}

#[test]
fn rda_small_has_figs_7_to_13_and_the_overhead_study() {
    let o = paper::rda::Options { seeds: TWO, ..Default::default() };
    let r = report(|s| paper::rda::run(&o, s));
    holds(
        &r,
        &["2 seeds", "Figs. 7-10", "Fig. 11", "Fig. 12", "Fig. 13"],
        &["figs7-10.csv", "summary.csv", "fig11-overhead.csv"],
    );
}

#[test]
fn a_refused_option_names_its_knob_before_any_work() {
    let bad = |e: RunError, knob: &str| match e {
        RunError::Option { knobs, .. } => assert_eq!(knobs, [knob]),
        e => panic!("{e:?}"),
    };
    let zero = Seeds { seeds: 0, noise: 1.0 };
    let mut r = Report::default();
    bad(paper::efs::run(&paper::efs::Options { seeds: zero, ..Default::default() }, &mut r).unwrap_err(), "seeds");
    let o =
        paper::perf_fair::Options { bw_range: paper::perf_fair::BwRange { lo: 140.0, hi: 40.0 }, ..Default::default() };
    bad(paper::perf_fair::run(&o, &mut r).unwrap_err(), "bw_range");
    let o = paper::perf_fair::Options { mixes: 1_000_000_000, ..Default::default() };
    bad(paper::perf_fair::run(&o, &mut r).unwrap_err(), "mixes");
    let o = paper::perf_fair::Options { solo_seconds: f64::NAN, ..Default::default() };
    bad(paper::perf_fair::run(&o, &mut r).unwrap_err(), "solo_seconds");
    let o = paper::rda::Options { pp_cost_us: -1.0, ..Default::default() };
    bad(paper::rda::run(&o, &mut r).unwrap_err(), "pp_cost_us");
    let o = paper::evt::Options { samples: usize::MAX, ..Default::default() };
    bad(paper::evt::run(&o, &mut r).unwrap_err(), "samples");
    let o = paper::efs::Options { seeds: Seeds { seeds: 2, noise: -1.0 }, ..Default::default() };
    bad(paper::efs::run(&o, &mut r).unwrap_err(), "noise");
    assert!(r.blocks.is_empty(), "a refusal writes nothing");
}

#[test]
fn the_same_options_give_the_same_report() {
    let o = paper::evt::Options { samples: 300, seeds: Seeds { seeds: 1, noise: 1.0 }, ..Default::default() };
    let a = report(|s| paper::evt::run(&o, s));
    let b = report(|s| paper::evt::run(&o, s));
    assert_eq!(a.markdown(), b.markdown());
    assert_eq!(a.files(), b.files());
}
