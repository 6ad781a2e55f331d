//! Process selection (Perf&Fair Algorithm 1).

/// What the selector knows of one runnable process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Index of the process (the caller's numbering).
    pub id: usize,
    /// Accumulated progress (Eq. 1).
    pub progress: f64,
    /// Predicted main-memory bandwidth for the next quantum (the last quantum's), transactions/µs.
    pub bw_mm: f64,
    /// Light-sharing (last quantum below the LLC and memory thresholds).
    pub light: bool,
    /// IPC estimate expired (or never made).
    pub expired: bool,
    /// Quanta left before its estimate expires.
    pub validity_left: u32,
}

/// An estimation-mode selection (§5.1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimation {
    /// Processes given a whole core each (their estimate is measured this quantum).
    pub reserved: Vec<usize>,
    /// Light-sharing processes filling the other contexts.
    pub fill: Vec<usize>,
}

/// §5.1, Algorithm 1 lines 2-9: reserve a core to the expired process `p`
/// (the expired one with least progress); if it is light-sharing, also to
/// other light-sharing processes whose estimate is expired or within
/// `half_validity` quanta of expiring, while cores remain; then fill the
/// remaining contexts (`contexts_per_core` per free core) with light-sharing
/// processes of lowest progress. Contexts stay free when light processes run out.
pub fn estimation_select(
    c: &[Candidate],
    cores: usize,
    contexts_per_core: usize,
    half_validity: u32,
) -> Option<Estimation> {
    let by_progress = |a: &&Candidate, b: &&Candidate| a.progress.total_cmp(&b.progress).then(a.id.cmp(&b.id));
    let p = c.iter().filter(|x| x.expired).min_by(by_progress)?;
    let mut e = Estimation { reserved: vec![p.id], fill: vec![] };
    if p.light {
        let mut soon: Vec<&Candidate> =
            c.iter().filter(|x| x.id != p.id && x.light && (x.expired || x.validity_left <= half_validity)).collect();
        soon.sort_by(|a, b| {
            b.expired.cmp(&a.expired).then(a.validity_left.cmp(&b.validity_left)).then(by_progress(a, b))
        });
        for x in soon {
            if e.reserved.len() >= cores {
                break;
            }
            e.reserved.push(x.id);
        }
    }
    let free = (cores.saturating_sub(e.reserved.len())) * contexts_per_core;
    let mut light: Vec<&Candidate> = c.iter().filter(|x| x.light && !e.reserved.contains(&x.id)).collect();
    light.sort_by(by_progress);
    e.fill = light.into_iter().take(free).map(|x| x.id).collect();
    Some(e)
}

/// Algorithm 1 line 11: the Online Average Transaction Rate, the average of
/// the processes' average main-memory bandwidths times the hardware contexts.
pub fn oatr(avg_bw: &[f64], contexts: usize) -> f64 {
    if avg_bw.is_empty() {
        0.0
    } else {
        avg_bw.iter().sum::<f64>() / avg_bw.len() as f64 * contexts as f64
    }
}

/// Algorithm 1 line 17: `1 / |BW_remain / CPU_remain − BW_p|`, infinite for
/// an exact fit (the division is guarded: a perfect fit is simply the best).
pub fn fitness(bw_remain: f64, cpu_remain: usize, bw_p: f64) -> f64 {
    let gap = (bw_remain / cpu_remain.max(1) as f64 - bw_p).abs();
    if gap > 0.0 {
        1.0 / gap
    } else {
        f64::INFINITY
    }
}

/// Greedy fitness selection of `n` processes from `pool` (lines 14-19),
/// updating the remaining bandwidth and contexts; ties go to lower progress, then id.
fn by_fitness(pool: &mut Vec<&Candidate>, n: usize, bw_remain: &mut f64, cpu_remain: &mut usize, out: &mut Vec<usize>) {
    for _ in 0..n {
        if pool.is_empty() || *cpu_remain == 0 {
            break;
        }
        let (bw, cpu) = (*bw_remain, *cpu_remain);
        let best = (0..pool.len())
            .max_by(|&i, &j| {
                let (a, b) = (pool[i], pool[j]);
                fitness(bw, cpu, a.bw_mm)
                    .total_cmp(&fitness(bw, cpu, b.bw_mm))
                    .then(b.progress.total_cmp(&a.progress))
                    .then(b.id.cmp(&a.id))
            })
            .expect("nonempty");
        let p = pool.swap_remove(best);
        *bw_remain -= p.bw_mm;
        *cpu_remain -= 1;
        out.push(p.id);
    }
}

/// §5.2, Algorithm 1 lines 11-19: select up to `contexts` processes. With
/// `restrict_progress`, only processes with `progress + 1 < MaxP` qualify
/// first (all of them when they are fewer than the contexts, the rest then
/// chosen by fitness among all); without it (the `perf` policy), fitness only.
/// `target` is the OATR (or the oracle's IABW).
pub fn pf_select(c: &[Candidate], contexts: usize, target: f64, restrict_progress: bool) -> Vec<usize> {
    let mut bw_remain = target;
    let mut cpu_remain = contexts.min(c.len());
    let mut out = Vec::with_capacity(cpu_remain);
    if restrict_progress {
        let max_p = c.iter().map(|x| x.progress).fold(f64::MIN, f64::max);
        let mut behind: Vec<&Candidate> = c.iter().filter(|x| x.progress + 1.0 < max_p).collect();
        if behind.len() <= cpu_remain {
            for x in &behind {
                bw_remain -= x.bw_mm;
                cpu_remain -= 1;
                out.push(x.id);
            }
            let mut rest: Vec<&Candidate> = c.iter().filter(|x| !out.contains(&x.id)).collect();
            let n = cpu_remain;
            by_fitness(&mut rest, n, &mut bw_remain, &mut cpu_remain, &mut out);
        } else {
            let n = cpu_remain;
            by_fitness(&mut behind, n, &mut bw_remain, &mut cpu_remain, &mut out);
        }
    } else {
        let mut all: Vec<&Candidate> = c.iter().collect();
        let n = cpu_remain;
        by_fitness(&mut all, n, &mut bw_remain, &mut cpu_remain, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: usize, progress: f64, bw: f64, light: bool, expired: bool, left: u32) -> Candidate {
        Candidate { id, progress, bw_mm: bw, light, expired, validity_left: left }
    }

    #[test]
    fn no_process_within_one_of_maxp_is_chosen_while_enough_others_qualify() {
        // 8 processes, 4 contexts: ids 0-4 are > 1 behind MaxP = 10, ids 5-7 are not.
        let c: Vec<Candidate> = (0..8)
            .map(|i| {
                cand(
                    i,
                    if i < 5 { 5.0 + i as f64 * 0.5 } else { 9.5 + (i - 5) as f64 * 0.25 },
                    i as f64,
                    false,
                    false,
                    10,
                )
            })
            .collect();
        let s = pf_select(&c, 4, 20.0, true);
        assert_eq!(s.len(), 4);
        assert!(s.iter().all(|&i| i < 5), "{s:?}");
        // Fewer qualify than contexts: all of them, then the best fits of the rest.
        let s = pf_select(&c[3..], 4, 20.0, true);
        assert!(s.contains(&3) && s.contains(&4) && s.len() == 4);
    }

    #[test]
    fn fitness_prefers_the_process_closest_to_the_remaining_bandwidth_per_context() {
        assert!(fitness(12.0, 4, 3.0).is_infinite());
        assert!(fitness(12.0, 4, 2.5) > fitness(12.0, 4, 5.0));
        // Target 8 over 2 contexts: first pick bw 4 (exact), then 4 again from what remains.
        let c = vec![
            cand(0, 0.0, 1.0, true, false, 9),
            cand(1, 0.0, 4.0, true, false, 9),
            cand(2, 0.0, 9.0, true, false, 9),
            cand(3, 0.0, 4.2, true, false, 9),
        ];
        let s = pf_select(&c, 2, 8.0, false);
        assert_eq!(s, vec![1, 3]);
    }

    #[test]
    fn estimation_reserves_cores_and_fills_with_light_processes_only() {
        let c = vec![
            cand(0, 3.0, 1.0, true, true, 0),   // expired, light: gets a core
            cand(1, 2.0, 1.0, true, false, 15), // light, close to expiring (<= 20): a core too
            cand(2, 1.0, 9.0, false, false, 5), // heavy: never a co-runner here
            cand(3, 4.0, 1.0, true, false, 39), // light, far from expiring: fills
            cand(4, 0.5, 1.0, true, false, 38), // light, fills first (lower progress)
        ];
        let e = estimation_select(&c, 3, 2, 20).unwrap();
        assert_eq!(e.reserved, vec![0, 1]);
        assert_eq!(e.fill, vec![4, 3]);
        // A heavy expired process gets its core alone; only light processes co-run.
        let c2 = vec![
            cand(0, 0.0, 9.0, false, true, 0),
            cand(1, 0.0, 9.0, false, false, 3),
            cand(2, 0.0, 1.0, true, false, 30),
        ];
        let e = estimation_select(&c2, 2, 2, 20).unwrap();
        assert_eq!(e.reserved, vec![0]);
        assert_eq!(e.fill, vec![2]);
        assert!(estimation_select(&c2[1..], 2, 2, 20).is_none());
    }

    #[test]
    fn oatr_is_mean_bandwidth_times_contexts() {
        assert!((oatr(&[1.0, 2.0, 3.0], 12) - 24.0).abs() < 1e-12);
    }
}
