//! LEB128 varints of `u32`, as the posting lists and the tokenizer's packed Unicode tables hold
//! them (seven bits a byte, low bits first, the top bit set on every byte but the last).
//! `wire::value` reads its own `u64` varints, with an error for malformed input.

/// A varint from the front of `bytes`, advanced past it. The bytes are the engine's own, so
/// they are well formed; a truncated varint ends early instead of panicking.
#[inline]
pub(crate) fn read(bytes: &mut &[u8]) -> u32 {
    let mut value = 0;
    let mut shift = 0;
    while let Some((&byte, rest)) = bytes.split_first() {
        *bytes = rest;
        value |= u32::from(byte & 0x7f) << (shift & 31);
        if byte < 0x80 {
            break;
        }
        shift += 7;
    }
    value
}

/// Gives `out` the bytes of `value`.
pub(crate) fn put(mut value: u32, out: &mut impl FnMut(u8)) {
    while value >= 0x80 {
        out(value as u8 | 0x80);
        value >>= 7;
    }
    out(value as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_as_written() {
        for value in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::from(u16::MAX),
            u32::MAX,
        ] {
            let mut bytes = Vec::new();
            put(value, &mut |b| bytes.push(b));
            let mut rest = bytes.as_slice();
            assert_eq!(read(&mut rest), value);
            assert!(rest.is_empty());
        }
        assert_eq!(read(&mut &[0x80u8][..]), 0, "a truncated varint ends early");
    }
}
