//! The machine's memory: which bytes are known, and their values. Kept in aligned 8-byte
//! words with a mask of known bytes, so that a load or store of up to 8 bytes costs one or
//! two lookups instead of one per byte (a hashed byte map was a third of a run at -O0, where
//! every variable lives on the stack).

use fnv::FnvHashMap;

/// An aligned word: its bytes' values (little-endian) and which of them are known.
#[derive(Debug, Clone, Copy, Default)]
struct Word {
    value: u64,
    known: u8,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Memory {
    words: FnvHashMap<u64, Word>,
}

impl Memory {
    /// The `bytes` (1-8) at `address`, little-endian, when all are known.
    pub(super) fn load(&self, address: u64, bytes: u32) -> Option<u64> {
        let mut v = 0u64;
        let mut done = 0u32;
        // At most two words: the one `address` is in, and the next.
        while done < bytes {
            let at = address.wrapping_add(u64::from(done));
            let (base, offset) = (at & !7, (at & 7) as u32);
            let n = (8 - offset).min(bytes - done);
            let w = self.words.get(&base)?;
            let wanted = field(offset, n);
            if w.known & wanted != wanted {
                return None;
            }
            let part = (w.value >> (8 * offset)) & ones(n);
            v |= part << (8 * done);
            done += n;
        }
        Some(v)
    }

    /// The `bytes` (1-8) at `address`, little-endian, and a mask of the bits known (whole
    /// bytes): gcc reloads a 32-bit spill as 64 bits and masks the upper half off.
    pub(super) fn load_known(&self, address: u64, bytes: u32) -> (u64, u64) {
        let (mut v, mut known) = (0u64, 0u64);
        for k in 0..bytes.min(8) {
            let at = address.wrapping_add(u64::from(k));
            let Some(w) = self.words.get(&(at & !7)) else {
                continue;
            };
            let offset = (at & 7) as u32;
            if w.known & (1 << offset) != 0 {
                v |= ((w.value >> (8 * offset)) & 0xff) << (8 * k);
                known |= 0xff << (8 * k);
            }
        }
        (v, known)
    }

    /// Writes the low `bytes` (1-8) of `v` at `address`, or forgets them (`None`).
    pub(super) fn store(&mut self, address: u64, v: Option<u64>, bytes: u32) {
        let mut done = 0u32;
        while done < bytes {
            let at = address.wrapping_add(u64::from(done));
            let (base, offset) = (at & !7, (at & 7) as u32);
            let n = (8 - offset).min(bytes - done);
            let wanted = field(offset, n);
            match v {
                Some(v) => {
                    let w = self.words.entry(base).or_default();
                    let bits = ones(n) << (8 * offset);
                    let part = ((v >> (8 * done)) & ones(n)) << (8 * offset);
                    w.value = (w.value & !bits) | part;
                    w.known |= wanted;
                }
                None => {
                    if let Some(w) = self.words.get_mut(&base) {
                        w.known &= !wanted;
                        if w.known == 0 {
                            self.words.remove(&base);
                        }
                    }
                }
            }
            done += n;
        }
    }

    /// Keeps the bytes `other` knows with the same values; forgets the rest.
    pub(super) fn join(&mut self, other: &Memory) {
        self.words.retain(|base, w| {
            let Some(o) = other.words.get(base) else {
                return false;
            };
            let differ = w.value ^ o.value;
            let same = (0..8).filter(|k| (differ >> (8 * k)) & 0xff == 0);
            w.known &= o.known & same.fold(0u8, |m, k| m | (1 << k));
            w.known != 0
        });
    }
}

/// The known-mask of `n` bytes from `offset` in a word.
fn field(offset: u32, n: u32) -> u8 {
    (((1u16 << n) - 1) << offset) as u8
}

/// The low `n` bytes (1-8) set.
fn ones(n: u32) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A reproducible xorshift64 stream from `state`.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// Random loads, stores and forgets of 1-8 bytes at unaligned addresses agree with a map
    /// of single bytes.
    #[test]
    fn words_agree_with_a_map_of_bytes() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        let (mut words, mut bytes) = (Memory::default(), BTreeMap::<u64, u8>::new());
        let base = u64::MAX - 40; // stores that wrap around the address space too
        for _ in 0..20_000 {
            let address = base.wrapping_add(next() % 64);
            let n = 1 + (next() % 8) as u32;
            match next() % 3 {
                0 => {
                    let v = next();
                    words.store(address, Some(v), n);
                    for k in 0..n {
                        bytes.insert(address.wrapping_add(u64::from(k)), (v >> (8 * k)) as u8);
                    }
                }
                1 => {
                    words.store(address, None, n);
                    for k in 0..n {
                        bytes.remove(&address.wrapping_add(u64::from(k)));
                    }
                }
                _ => {
                    let expected = (0..n).rev().try_fold(0u64, |v, k| {
                        let b = bytes.get(&address.wrapping_add(u64::from(k)))?;
                        Some((v << 8) | u64::from(*b))
                    });
                    assert_eq!(words.load(address, n), expected, "{address:#x} {n}");
                }
            }
        }
    }

    /// A load of partly known bytes knows those a byte map knows, with their values.
    #[test]
    fn a_partial_load_knows_the_bytes_a_map_knows() {
        let mut next = xorshift(0x5eed_1e55_0f0b_17e5);
        let (mut words, mut bytes) = (Memory::default(), BTreeMap::<u64, u8>::new());
        for _ in 0..5_000 {
            let (address, n) = (next() % 40, 1 + (next() % 8) as u32);
            if next() % 2 == 0 {
                let v = next();
                words.store(address, Some(v), n);
                for k in 0..n {
                    bytes.insert(address + u64::from(k), (v >> (8 * k)) as u8);
                }
                continue;
            }
            let (v, known) = words.load_known(address, n);
            for k in 0..n {
                let byte = bytes.get(&(address + u64::from(k)));
                let field = 0xffu64 << (8 * k);
                assert_eq!(known & field != 0, byte.is_some(), "{address} {n} {k}");
                if let Some(b) = byte {
                    assert_eq!((v & field) >> (8 * k), u64::from(*b));
                }
            }
            if n < 8 {
                assert_eq!(known >> (8 * n), 0);
            }
        }
    }

    /// A join knows exactly the bytes both memories know with the same value.
    #[test]
    fn a_join_keeps_the_bytes_both_know_alike() {
        let mut next = xorshift(0x0ddb_a11c_afe0_5eed);
        for _ in 0..200 {
            let mut sides = [Memory::default(), Memory::default()];
            let mut maps = [BTreeMap::<u64, u8>::new(), BTreeMap::new()];
            for _ in 0..12 {
                let side = (next() % 2) as usize;
                let (address, n, v) = (next() % 24, 1 + (next() % 8) as u32, next() % 4);
                sides[side].store(address, Some(v), n);
                for k in 0..n {
                    maps[side].insert(address + u64::from(k), (v >> (8 * k)) as u8);
                }
            }
            let [mut a, b] = sides;
            a.join(&b);
            for address in 0..32u64 {
                let expected = maps[0]
                    .get(&address)
                    .filter(|v| maps[1].get(&address) == Some(v));
                assert_eq!(a.load(address, 1), expected.map(|v| u64::from(*v)));
            }
        }
    }
}
