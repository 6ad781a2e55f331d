//! Tests of `mod.rs`.

use super::*;
use crate::learn::FmParams;

#[test]
fn observed_tim_entries_stand_in_for_the_fms_estimates() {
    let n = 4;
    let mut p = Slits::new(SlitsObjective::Contention, SlitsParams::default(), 1);
    p.n = n;
    let mut fm = Fm::new(2 * n + 2, FmParams { k: 2, ..Default::default() }, 5);
    fm.w0 = 1.0;
    p.fm = Some(fm);
    let fm_only = |p: &mut Slits| {
        let mut s = vec![];
        p.estimate(&mut s, &[0, 1], &[2, 3], CtxId(1));
        s
    };
    let before = fm_only(&mut p);
    // running t0 was observed with waiting t2 at 10: t2's estimate becomes (10 + FM(t1, t2)) / 2.
    p.tim.record(0, 2, 10.0);
    let after = fm_only(&mut p);
    let fm = p.fm.as_ref().unwrap();
    let want = (10.0 + fm.predict(&features(n, 1, 2, 1))) / 2.0;
    assert!((after[0] - want).abs() < 1e-12, "{} vs {want}", after[0]);
    assert_eq!(after[1], before[1], "t3 unobserved: FM only");
}
