//! SSE floating point: the scalar (`addsd`, `ucomiss`, `cvtsi2sd`...) and packed (`mulpd`,
//! `cmpltps`...) instructions on the lanes of XMM registers, rounded to nearest as the default
//! MXCSR has it. A program run meets them where data is floating point: `if (v > 1.1f * mean)`
//! is `mulss; comiss; jbe`, and the branch is followed only if the run knows the values.
//!
//! Single-precision arithmetic is done in double and rounded once to single: for `+ - * /`
//! and `sqrt` that is the correctly rounded single result (53 ≥ 2·24 + 2, the condition under
//! which rounding twice is innocuous), so one path serves both precisions.

use iced_x86::{Instruction, Mnemonic, OpKind};

use super::{Flags, Machine};

/// The width of a floating-point lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    Single,
    Double,
}

impl Precision {
    pub(super) fn bits(self) -> u32 {
        match self {
            Precision::Single => 32,
            Precision::Double => 64,
        }
    }

    pub(super) fn lanes(self) -> u32 {
        128 / self.bits()
    }

    /// Lane `k` of `v`, widened to double (exactly).
    pub fn get(self, v: u128, k: u32) -> f64 {
        let raw = v >> (self.bits() * k);
        match self {
            Precision::Single => f64::from(f32::from_bits(raw as u32)),
            Precision::Double => f64::from_bits(raw as u64),
        }
    }

    /// `v` with lane `k` set to `x`, rounded to the lane's precision.
    pub fn put(self, v: u128, k: u32, x: f64) -> u128 {
        let (raw, mask) = match self {
            Precision::Single => (u128::from((x as f32).to_bits()), u128::from(u32::MAX)),
            Precision::Double => (u128::from(x.to_bits()), u128::from(u64::MAX)),
        };
        let at = self.bits() * k;
        (v & !(mask << at)) | raw << at
    }
}

/// The arithmetic of a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Add,
    Subtract,
    Multiply,
    Divide,
    Minimum,
    Maximum,
    SquareRoot,
}

impl Operation {
    /// `a op b` as the SDM defines it: `minsd`/`maxsd` return the second operand when the
    /// compare fails (either is NaN, or both are zero).
    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Operation::Add => a + b,
            Operation::Subtract => a - b,
            Operation::Multiply => a * b,
            Operation::Divide => a / b,
            Operation::Minimum => match a < b {
                true => a,
                false => b,
            },
            Operation::Maximum => match a > b {
                true => a,
                false => b,
            },
            Operation::SquareRoot => b.sqrt(),
        }
    }
}

/// An arithmetic instruction: its operation, precision, and whether it is scalar (the low
/// lane only, the rest of operand 0 kept).
fn arithmetic(m: Mnemonic) -> Option<(Operation, Precision, bool)> {
    use Mnemonic as M;
    use Operation as O;
    use Precision::{Double as D, Single as S};
    let (op, p, scalar) = match m {
        M::Addss => (O::Add, S, true),
        M::Addsd => (O::Add, D, true),
        M::Addps => (O::Add, S, false),
        M::Addpd => (O::Add, D, false),
        M::Subss => (O::Subtract, S, true),
        M::Subsd => (O::Subtract, D, true),
        M::Subps => (O::Subtract, S, false),
        M::Subpd => (O::Subtract, D, false),
        M::Mulss => (O::Multiply, S, true),
        M::Mulsd => (O::Multiply, D, true),
        M::Mulps => (O::Multiply, S, false),
        M::Mulpd => (O::Multiply, D, false),
        M::Divss => (O::Divide, S, true),
        M::Divsd => (O::Divide, D, true),
        M::Divps => (O::Divide, S, false),
        M::Divpd => (O::Divide, D, false),
        M::Minss => (O::Minimum, S, true),
        M::Minsd => (O::Minimum, D, true),
        M::Minps => (O::Minimum, S, false),
        M::Minpd => (O::Minimum, D, false),
        M::Maxss => (O::Maximum, S, true),
        M::Maxsd => (O::Maximum, D, true),
        M::Maxps => (O::Maximum, S, false),
        M::Maxpd => (O::Maximum, D, false),
        M::Sqrtss => (O::SquareRoot, S, true),
        M::Sqrtsd => (O::SquareRoot, D, true),
        M::Sqrtps => (O::SquareRoot, S, false),
        M::Sqrtpd => (O::SquareRoot, D, false),
        _ => return None,
    };
    Some((op, p, scalar))
}

/// A compare's precision and whether it is scalar.
fn compare(m: Mnemonic) -> Option<(Precision, bool)> {
    use Mnemonic as M;
    Some(match m {
        M::Cmpss => (Precision::Single, true),
        M::Cmpsd => (Precision::Double, true),
        M::Cmpps => (Precision::Single, false),
        M::Cmppd => (Precision::Double, false),
        _ => return None,
    })
}

/// `cmp*` predicate `p` (imm8 0-7: eq, lt, le, unord, neq, nlt, nle, ord) of `a` and `b`.
fn predicate(p: u8, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match p & 7 {
        0 => a == b,
        1 => a < b,
        2 => a <= b,
        3 => unordered,
        4 => a != b,
        // "Not less" holds when unordered, as the SDM's table has it.
        5 => unordered || a >= b,
        6 => unordered || a > b,
        _ => !unordered,
    }
}

/// The integer a conversion to `bits` gives: rounded by `round` (truncated or to nearest
/// even), the "integer indefinite" `1 << (bits - 1)` when out of range or NaN.
fn to_integer(x: f64, bits: u32, truncate: bool) -> i64 {
    let r = if truncate {
        x.trunc()
    } else {
        x.round_ties_even()
    };
    let limit = 2f64.powi(bits as i32 - 1);
    match r >= -limit && r < limit {
        true => r as i64,
        false => i64::MIN >> (64 - bits),
    }
}

impl Machine {
    /// SSE floating-point arithmetic, compares and conversions; false when `i` is none of it.
    pub(super) fn float(&mut self, i: &Instruction) -> bool {
        let m = i.mnemonic();
        if let Some((op, p, scalar)) = arithmetic(m) {
            // A square root reads operand 1 alone.
            let a = match op {
                Operation::SquareRoot => Some(0),
                _ => self.lane_operand(i, 0, p, scalar),
            };
            let v = a.zip(self.lane_operand(i, 1, p, scalar)).map(|(a, b)| {
                let lanes = if scalar { 1 } else { p.lanes() };
                (0..lanes).fold(a, |r, k| p.put(r, k, op.apply(p.get(a, k), p.get(b, k))))
            });
            self.write_result(i, p, scalar, v);
        } else if let Some((p, scalar)) = compare(m).filter(|_| i.op_count() == 3) {
            let predicate_code = i.immediate(2) as u8;
            let (a, b) = (
                self.lane_operand(i, 0, p, scalar),
                self.lane_operand(i, 1, p, scalar),
            );
            let v = a.zip(b).map(|(a, b)| {
                let lanes = if scalar { 1 } else { p.lanes() };
                (0..lanes).fold(a, |r, k| {
                    let holds = predicate(predicate_code, p.get(a, k), p.get(b, k));
                    let ones = u128::MAX >> (128 - p.bits());
                    (r & !(ones << (p.bits() * k))) | (u128::from(holds) * ones) << (p.bits() * k)
                })
            });
            self.write_result(i, p, scalar, v);
        } else if matches!(m, Mnemonic::Ucomiss | Mnemonic::Comiss)
            || matches!(m, Mnemonic::Ucomisd | Mnemonic::Comisd)
        {
            self.ordered_compare(i, m);
        } else {
            return self.conversion(i, m);
        }
        true
    }

    /// Operand `k` whole, or for a scalar instruction its low lane (all the instruction
    /// reads of it).
    fn lane_operand(&self, i: &Instruction, k: u32, p: Precision, scalar: bool) -> Option<u128> {
        match scalar {
            true => self.read_low(i, k, p.bits()),
            false => self.read_wide(i, k),
        }
    }

    /// Writes a result to operand 0: whole, or for a scalar instruction its low lane.
    fn write_result(&mut self, i: &Instruction, p: Precision, scalar: bool, v: Option<u128>) {
        match scalar {
            true => self.write_low(i, p.bits(), v),
            false => self.write_wide(i, v),
        }
    }

    /// `ucomis*`/`comis*`: ZF, PF and CF as an unsigned compare gives them, all three set
    /// when unordered; OF, SF and AF cleared.
    fn ordered_compare(&mut self, i: &Instruction, m: Mnemonic) {
        let p = match m {
            Mnemonic::Ucomiss | Mnemonic::Comiss => Precision::Single,
            _ => Precision::Double,
        };
        let (a, b) = (self.read_low(i, 0, p.bits()), self.read_low(i, 1, p.bits()));
        self.flags = match a.zip(b) {
            Some((a, b)) => {
                let (x, y) = (p.get(a, 0), p.get(b, 0));
                let unordered = x.is_nan() || y.is_nan();
                Flags::Float {
                    zero: unordered || x == y,
                    parity: unordered,
                    carry: unordered || x < y,
                }
            }
            None => Flags::Unknown,
        };
    }

    /// Conversions between integers and floating point, and between the precisions; false
    /// when `i` is none of them.
    fn conversion(&mut self, i: &Instruction, m: Mnemonic) -> bool {
        use Mnemonic as M;
        use Precision::{Double as D, Single as S};
        match m {
            M::Cvtsi2ss | M::Cvtsi2sd => {
                let p = if m == M::Cvtsi2ss { S } else { D };
                let v = self
                    .source_integer(i)
                    .map(|n| p.put(0, 0, integer_to(p, n)));
                self.write_low(i, p.bits(), v);
            }
            M::Cvttss2si | M::Cvtss2si | M::Cvttsd2si | M::Cvtsd2si => {
                let p = if matches!(m, M::Cvttss2si | M::Cvtss2si) {
                    S
                } else {
                    D
                };
                let truncate = matches!(m, M::Cvttss2si | M::Cvttsd2si);
                let bits = i.op0_register().size() as u32 * 8;
                let v = (self.read_low(i, 1, p.bits()))
                    .map(|b| to_integer(p.get(b, 0), bits, truncate));
                self.set_register(i.op0_register(), v);
            }
            M::Cvtss2sd | M::Cvtsd2ss => {
                let (from, to) = if m == M::Cvtss2sd { (S, D) } else { (D, S) };
                let v = self
                    .read_low(i, 1, from.bits())
                    .map(|b| to.put(0, 0, from.get(b, 0)));
                self.write_low(i, to.bits(), v);
            }
            _ => {
                let Some(v) = self.packed_conversion(i, m) else {
                    return false;
                };
                self.write_wide(i, v);
            }
        }
        true
    }

    /// The integer operand 1 of `cvtsi2s*`, signed at its width (a register or memory).
    fn source_integer(&self, i: &Instruction) -> Option<i64> {
        let bits = match i.op1_kind() {
            OpKind::Register => i.op1_register().size() as u32 * 8,
            _ => i.memory_size().size() as u32 * 8,
        };
        let v = self.read_wide(i, 1)? as u64;
        Some(match bits {
            32 => i64::from(v as u32 as i32),
            _ => v as i64,
        })
    }

    /// The packed conversions (`cvtdq2pd`, `cvttps2dq`, `cvtps2pd`...): `None` when `i` is
    /// none of them, `Some(None)` when its source is unknown.
    fn packed_conversion(&self, i: &Instruction, m: Mnemonic) -> Option<Option<u128>> {
        use Mnemonic as M;
        use Precision::{Double as D, Single as S};
        let convert: fn(u128) -> u128 = match m {
            M::Cvtdq2ps => |b| (0..4).fold(0, |r, k| S.put(r, k, f64::from(int32(b, k) as f32))),
            M::Cvtdq2pd => |b| (0..2).fold(0, |r, k| D.put(r, k, f64::from(int32(b, k)))),
            M::Cvtps2pd => |b| (0..2).fold(0, |r, k| D.put(r, k, S.get(b, k))),
            M::Cvtpd2ps => |b| (0..2).fold(0, |r, k| S.put(r, k, D.get(b, k))),
            M::Cvttps2dq => |b| to_int32_lanes(S, b, true),
            M::Cvtps2dq => |b| to_int32_lanes(S, b, false),
            M::Cvttpd2dq => |b| to_int32_lanes(D, b, true),
            M::Cvtpd2dq => |b| to_int32_lanes(D, b, false),
            _ => return None,
        };
        Some(self.read_wide(i, 1).map(convert))
    }
}

/// 32-bit integer lane `k` of `v`.
fn int32(v: u128, k: u32) -> i32 {
    (v >> (32 * k)) as u32 as i32
}

/// Each lane of `p` in `v` converted to a 32-bit integer, in the low lanes (zeros above).
fn to_int32_lanes(p: Precision, v: u128, truncate: bool) -> u128 {
    (0..p.lanes()).fold(0, |out, k| {
        let n = to_integer(p.get(v, k), 32, truncate) as u32;
        out | u128::from(n) << (32 * k)
    })
}

/// An integer converted to `p` as the hardware rounds it once (a 64-bit integer to single
/// goes straight to single, not through double).
fn integer_to(p: Precision, n: i64) -> f64 {
    match p {
        Precision::Single => f64::from(n as f32),
        Precision::Double => n as f64,
    }
}
