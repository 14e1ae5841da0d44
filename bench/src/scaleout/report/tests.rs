//! Unit tests of the scale-out report.

use super::*;
use crate::scaleout::measure::layouts;

fn sample(rate: f64, busy: f64) -> Sample {
    Sample {
        rate,
        busy,
        calls: 1_000,
        ..Sample::default()
    }
}

#[test]
fn growth_until_the_cores_are_busy() {
    let all = layouts(3);
    let scaled: Vec<Medians> = all[3..]
        .iter()
        .zip([(10_000.0, 0.6), (15_000.0, 0.95), (14_000.0, 0.97)])
        .map(|(l, (r, b))| Medians::of(*l, &[sample(r, b)]))
        .collect();
    let refs: Vec<&Medians> = scaled.iter().collect();
    let (verdict, text) = growth(&refs, 2);
    assert_eq!(verdict, "**met**");
    assert!(text.contains("from 2 replicas"), "{text}");
    let flat: Vec<Medians> = all[3..5]
        .iter()
        .map(|l| Medians::of(*l, &[sample(10_000.0, 0.5)]))
        .collect();
    let refs: Vec<&Medians> = flat.iter().collect();
    assert_eq!(growth(&refs, 2).0, "**missed**");
}
