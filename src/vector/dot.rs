//! The dot-product kernel of the vector scan: wasm `simd128` or portable scalar, with one
//! summation order.
//!
//! Both implementations add in the *same order*, so wasm and native builds return
//! bit-identical results (Rust never fuses `a·b + c` into an FMA on its own, and IEEE-754
//! `+` and `·` are exactly specified): element `i` of each 16-element block goes to
//! accumulator lane `i`; the lanes are reduced pairwise exactly as four `f32x4` registers are;
//! leftover elements are then added one by one. On `wasm32` with `simd128` the lanes are four
//! `v128` registers (16 floats per iteration, four independent add chains to hide latency);
//! elsewhere they are a `[f32; 16]` array that LLVM vectorises for the host. Native tests run
//! the scalar path and check the order against a written-out oracle; running both wasm builds
//! in Node gave bit-identical results for lengths 0–385.
//!
//! Reference: the multi-accumulator layout is the usual one for SIMD reductions (WebAssembly
//! SIMD proposal, `f32x4.mul` / `f32x4.add`).

/// Elements per block of the kernel: four `f32x4` accumulators.
const DOT_LANES: usize = 16;

/// Dot product of `a` and `b` over their common length `min(a.len(), b.len())`.
///
/// Summation order (identical in the SIMD and scalar builds, so results are bit-identical):
/// with `n = min(len)`, `blocks = n / 16`, and lane sums `acc[l] = Σ_{j < blocks}
/// a[16j+l]·b[16j+l]` accumulated in ascending `j`, the result is
/// `((s0 + s1) + (s2 + s3)) + a[t]·b[t] + a[t+1]·b[t+1] + …` (left to right over the tail
/// `t = 16·blocks .. n`), where `s_l = (acc[l] + acc[4+l]) + (acc[8+l] + acc[12+l])`.
///
/// ```
/// assert_eq!(recallkit::vector::dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
/// ```
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    dot_kernel(&a[..n], &b[..n])
}

/// `simd128` kernel: lane `l` of accumulator `m` holds the sum for block offset `4m + l`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline]
fn dot_kernel(a: &[f32], b: &[f32]) -> f32 {
    use core::arch::wasm32::{f32x4_add, f32x4_extract_lane, f32x4_mul, f32x4_splat, v128_load};
    let blocks_a = a.chunks_exact(DOT_LANES);
    let blocks_b = b.chunks_exact(DOT_LANES);
    let (tail_a, tail_b) = (blocks_a.remainder(), blocks_b.remainder());
    let mut acc = [f32x4_splat(0.0); 4];
    for (x, y) in blocks_a.zip(blocks_b) {
        for (m, acc) in acc.iter_mut().enumerate() {
            // SAFETY: x and y hold DOT_LANES = 16 floats, so the 4 floats at 4m..4m+4 (m < 4)
            // are in bounds; v128_load has no alignment requirement.
            let (vx, vy) = unsafe {
                (
                    v128_load(x.as_ptr().add(4 * m).cast()),
                    v128_load(y.as_ptr().add(4 * m).cast()),
                )
            };
            *acc = f32x4_add(*acc, f32x4_mul(vx, vy));
        }
    }
    let s = f32x4_add(f32x4_add(acc[0], acc[1]), f32x4_add(acc[2], acc[3]));
    let mut sum = (f32x4_extract_lane::<0>(s) + f32x4_extract_lane::<1>(s))
        + (f32x4_extract_lane::<2>(s) + f32x4_extract_lane::<3>(s));
    for (x, y) in tail_a.iter().zip(tail_b) {
        sum += x * y;
    }
    sum
}

/// Portable kernel with the summation order of the `simd128` one; LLVM vectorises the
/// 16-lane accumulator for the host.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline]
fn dot_kernel(a: &[f32], b: &[f32]) -> f32 {
    let blocks_a = a.chunks_exact(DOT_LANES);
    let blocks_b = b.chunks_exact(DOT_LANES);
    let (tail_a, tail_b) = (blocks_a.remainder(), blocks_b.remainder());
    let mut acc = [0.0f32; DOT_LANES];
    for (x, y) in blocks_a.zip(blocks_b) {
        for ((acc, x), y) in acc.iter_mut().zip(x).zip(y) {
            *acc += x * y;
        }
    }
    let s: [f32; 4] = std::array::from_fn(|l| (acc[l] + acc[4 + l]) + (acc[8 + l] + acc[12 + l]));
    let mut sum = (s[0] + s[1]) + (s[2] + s[3]);
    for (x, y) in tail_a.iter().zip(tail_b) {
        sum += x * y;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::SplitMix64;

    fn random_vector(rng: &mut SplitMix64, dims: usize) -> Vec<f32> {
        (0..dims)
            .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
            .collect()
    }

    #[test]
    fn dot_uses_the_documented_summation_order() {
        let mut rng = SplitMix64(3);
        for n in [0, 1, 15, 16, 17, 31, 48, 100, 384] {
            let a = random_vector(&mut rng, n);
            let b = random_vector(&mut rng, n);
            let blocks = n / DOT_LANES;
            let lane = |l: usize| {
                let mut s = 0.0f32;
                for j in 0..blocks {
                    s += a[16 * j + l] * b[16 * j + l];
                }
                s
            };
            let s: Vec<f32> = (0..4)
                .map(|l| (lane(l) + lane(4 + l)) + (lane(8 + l) + lane(12 + l)))
                .collect();
            let mut want = (s[0] + s[1]) + (s[2] + s[3]);
            for t in 16 * blocks..n {
                want += a[t] * b[t];
            }
            assert_eq!(dot(&a, &b).to_bits(), want.to_bits(), "n = {n}");
        }
    }

    #[test]
    fn dot_uses_the_common_length() {
        assert_eq!(dot(&[1.0, 2.0, 3.0], &[1.0, 1.0]), 3.0);
        assert_eq!(dot(&[], &[1.0]), 0.0);
    }
}
