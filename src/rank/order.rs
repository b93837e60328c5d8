//! One sort for every "best score first" order: keys `(descending score key, tie-break)`
//! sorted as plain `(u64, u32)` pairs.
//!
//! Each `sort_by` with its own closure is a separate copy of the standard library's sort in
//! the WebAssembly (4–9 KiB each); ranking code that sorts through [`desc_key`] and
//! [`sort_keys`] shares one copy, and sorting small integer pairs is as fast as sorting
//! the records themselves.

/// A `u64` whose ascending order is `f64::total_cmp` descending: larger scores first, `+0.0`
/// before `-0.0`, NaNs with the sign bit clear before every number and those with it set
/// after.
pub fn desc_key(score: f64) -> u64 {
    let bits = score.to_bits();
    // total_cmp's ascending key: flip every bit of a negative, only the sign of a positive.
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    !ascending
}

/// Sorts `(key, tie-break)` pairs ascending: by key, then tie-break.
pub fn sort_keys(keys: &mut [(u64, u32)]) {
    keys.sort_unstable();
}

/// Indices `0..scores.len()` by descending `score` (`total_cmp`), equal scores in index order
/// (what a stable sort gives).
pub fn order_desc(scores: impl ExactSizeIterator<Item = f64>) -> Vec<usize> {
    let mut keys: Vec<(u64, u32)> = Vec::with_capacity(scores.len());
    for (i, score) in scores.enumerate() {
        keys.push((desc_key(score), u32::try_from(i).unwrap_or(u32::MAX)));
    }
    sort_keys(&mut keys);
    keys.into_iter().map(|(_, i)| i as usize).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desc_key_is_total_cmp_reversed() {
        let values = [
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            -2.25,
        ];
        for a in values {
            for b in values {
                assert_eq!(
                    desc_key(a).cmp(&desc_key(b)),
                    b.total_cmp(&a),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn order_desc_is_the_stable_descending_order() {
        let scores = [0.5, 1.0, 0.5, f64::NAN, -0.0, 0.0, 1.0, f64::NEG_INFINITY];
        let mut want: Vec<usize> = (0..scores.len()).collect();
        want.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        assert_eq!(order_desc(scores.iter().copied()), want);
    }
}
