//! Who each thread exchanges data with: the partner lists and groups of a
//! job instance's sharing pattern (ring, stencil, pipeline, all-to-all,
//! groups; Barrow-Williams et al. 2009), `docs/model.md`, "Data exchanged
//! between threads".

use super::{Partners, Plan};
use crate::spec::workload::{Pattern, SharingSpec};

impl Plan {
    /// Partners of the threads `first..` of one instance (classes in order,
    /// `counts` threads each) under pattern `sh`.
    pub(super) fn add_partners(&mut self, sh: &SharingSpec, first: u32, counts: &[u32]) {
        let n: u32 = counts.iter().sum();
        let lists: Vec<Vec<u32>> = match sh.pattern {
            Pattern::AllToAll | Pattern::Groups => {
                let size = if sh.pattern == Pattern::Groups { sh.size.unwrap_or(2).min(n) } else { n };
                for k in 0..n {
                    let start = k / size.max(1) * size;
                    let members = size.min(n - start);
                    let id = self.n_groups + k / size.max(1);
                    self.threads[(first + k) as usize].partners = Partners::Group { id, size: members };
                }
                self.n_groups += n.div_ceil(size.max(1));
                return;
            }
            Pattern::Ring => (0..n).map(|k| if n < 2 { vec![] } else { vec![(k + n - 1) % n, (k + 1) % n] }).collect(),
            Pattern::Stencil => {
                let rows = (1..=n).filter(|r| n.is_multiple_of(*r) && r * r <= n).max().unwrap_or(1);
                let cols = n / rows;
                (0..n)
                    .map(|k| {
                        let (r, c) = (k / cols, k % cols);
                        let mut v = vec![];
                        if r > 0 {
                            v.push(k - cols);
                        }
                        if r + 1 < rows {
                            v.push(k + cols);
                        }
                        if c > 0 {
                            v.push(k - 1);
                        }
                        if c + 1 < cols {
                            v.push(k + 1);
                        }
                        v
                    })
                    .collect()
            }
            Pattern::Pipeline => {
                let starts: Vec<u32> =
                    counts.iter().scan(0, |acc, &c| Some(std::mem::replace(acc, *acc + c))).collect();
                let mut out = vec![];
                for (st, &cnt) in counts.iter().enumerate() {
                    for q in 0..cnt {
                        let mut v = vec![];
                        for nb in [st.checked_sub(1), Some(st + 1).filter(|&x| x < counts.len())].into_iter().flatten()
                        {
                            if counts[nb] > 0 {
                                v.push(starts[nb] + (q as u64 * counts[nb] as u64 / cnt as u64) as u32);
                            }
                        }
                        out.push(v);
                    }
                }
                out
            }
        };
        for (k, mut v) in lists.into_iter().enumerate() {
            v.sort_unstable();
            v.dedup();
            v.retain(|&j| j != k as u32);
            let start = self.partners.len() as u32;
            let w = 1.0 / v.len().max(1) as f32;
            self.partners.extend(v.iter().map(|&j| (first + j, w)));
            let len = v.len() as u32;
            self.threads[first as usize + k].partners =
                if len == 0 { Partners::None } else { Partners::List { start, len } };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Partners, Plan};

    fn plan_of(sharing: &str, classes: &str, n: u32) -> Plan {
        let src = format!(
            "name = \"t\"\n[[job]]\nname = \"j\"\nthreads = {n}\ninstances = 2\n[job.sharing]\n{sharing}\n{classes}"
        );
        let w = crate::presets::workload_from_toml("t.toml", &src).unwrap();
        let m = cosched_machine::presets::machine("xeon-x5550-16c").unwrap();
        Plan::new(&w, &m, None, 1, "t.toml").unwrap()
    }

    const ONE: &str =
        "[[job.phase]]\ninstructions = 1e9\nipc = 1\nllc_apki = 5\nllc_mpki = 1\nmrc_ref_mb = 8\nfootprint_mb = 8";

    fn partners(p: &Plan, t: usize) -> Vec<(u32, f32)> {
        match p.threads[t].partners {
            Partners::List { start, len } => p.partners[start as usize..(start + len) as usize].to_vec(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn patterns_give_the_stated_partners() {
        let p = plan_of("pattern = \"ring\"\napki = 1", ONE, 4);
        assert_eq!(partners(&p, 0), vec![(1, 0.5), (3, 0.5)]);
        assert_eq!(partners(&p, 5), vec![(4, 0.5), (6, 0.5)], "second instance: its own threads");
        let p = plan_of("pattern = \"stencil\"\napki = 1", ONE, 6); // 2 x 3 grid
        assert_eq!(partners(&p, 0).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(partners(&p, 4).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 3, 5]);
        let stages = format!(
            "[[job.class]]\nname = \"a\"\nshare = 1\n{}\n[[job.class]]\nname = \"b\"\nshare = 2\n{}",
            ONE.replace("job.phase", "job.class.phase"),
            ONE.replace("job.phase", "job.class.phase")
        );
        let p = plan_of("pattern = \"pipeline\"\napki = 1", &stages, 6); // stage a: 0-1, stage b: 2-5
        assert_eq!(partners(&p, 0), vec![(2, 1.0)]);
        assert_eq!(partners(&p, 1), vec![(4, 1.0)]);
        assert_eq!(partners(&p, 5), vec![(1, 1.0)]);
        let p = plan_of("pattern = \"groups\"\napki = 1\nsize = 4", ONE, 6);
        let g: Vec<Partners> = p.threads.iter().map(|t| t.partners).collect();
        assert_eq!(g[0], g[3]);
        assert_ne!(g[3], g[4]);
        assert_eq!(g[4], Partners::Group { id: 1, size: 2 }, "the last group is what is left");
        assert_eq!(g[6], Partners::Group { id: 2, size: 4 }, "instances do not share groups");
        // A solo plan renumbers partners to its own threads.
        let p = plan_of("pattern = \"ring\"\napki = 1", ONE, 4);
        assert_eq!(partners(&p.solo(1), 0), vec![(1, 0.5), (3, 0.5)]);
    }
}
