//! Source iterations per pass of a binary loop copy, read from the machine code: how far
//! the loop's induction registers and memory accesses advance per pass, over the source
//! loop's step (issue 4 step 5; issue 12 item 3).

use std::collections::{BTreeMap, BTreeSet};

use iced_x86::Register;
use metron_symbolic::Bound;

use crate::binary::{Function, Instruction};
use crate::cfg::Cfg;
use crate::source::SourceModel;

/// Source iterations one pass of binary loop `l` executes: 1 for an ordinary loop, `k` for a
/// loop unrolled and/or vectorised `k` times. `stride` is the source loop's step.
pub fn copy_factor(function: &Function, cfg: &Cfg, l: usize, stride: i64) -> i64 {
    let stride = stride.abs().max(1);
    match memory_factor(function, cfg, l, stride) {
        Some(k) => k,
        None => {
            let k = induction_factor(function, cfg, l);
            if k % stride == 0 {
                (k / stride).max(1)
            } else {
                1
            }
        }
    }
}

/// Instructions of the blocks of loop `l` that are in no inner loop.
pub(super) fn own_instructions<'a>(
    function: &'a Function,
    cfg: &Cfg,
    l: usize,
) -> Vec<&'a Instruction> {
    cfg.loops[l]
        .blocks
        .iter()
        .filter(|&&b| cfg.innermost_loop(b) == Some(l))
        .flat_map(|&b| cfg.blocks[b].code(function))
        .collect()
}

/// Per-pass increment of every register the loop changes only by constant steps (`add r, c`,
/// `lea r, [r + c]`, ...) in its own blocks, summed over them; `None` for the other registers
/// the loop writes; registers not written at all advance by 0.
pub(super) fn register_increments(
    function: &Function,
    cfg: &Cfg,
    l: usize,
) -> BTreeMap<Register, Option<i64>> {
    let own: BTreeSet<u64> = own_instructions(function, cfg, l)
        .iter()
        .map(|i| i.address)
        .collect();
    let mut out: BTreeMap<Register, Option<i64>> = BTreeMap::new();
    for &b in &cfg.loops[l].blocks {
        for i in cfg.blocks[b].code(function) {
            for r in &i.writes {
                let step = i
                    .step
                    .filter(|(s, _)| s == r && own.contains(&i.address))
                    .map(|(_, c)| c);
                let entry = out.entry(*r).or_insert(Some(0));
                *entry = match (*entry, step) {
                    (Some(sum), Some(c)) => Some(sum + c),
                    _ => None,
                };
            }
        }
    }
    out
}

/// Element size of the loop's arithmetic, for untyped vector moves (`movdqu`): 4 when
/// single-precision forms appear, 8 for double precision, unknown otherwise.
pub(super) fn arithmetic_element(instructions: &[&Instruction]) -> Option<u32> {
    let mut out = None;
    for i in instructions {
        let name = i.name();
        let m = name.strip_prefix('v').unwrap_or(&name);
        let arithmetic = [
            "add", "sub", "mul", "div", "sqrt", "max", "min", "fmadd", "fmsub",
        ]
        .iter()
        .any(|op| m.starts_with(op));
        if !arithmetic {
            continue;
        }
        if m.ends_with("ps") || m.ends_with("ss") {
            return Some(4);
        }
        if m.ends_with("pd") || m.ends_with("sd") {
            out = Some(8);
        }
    }
    out
}

/// One array as the code addresses it: base, index and scale (any displacement).
pub(super) type Array = (Option<Register>, Option<Register>, u32);
/// The element slots (byte offsets from the address form) a pass touches of one array.
pub(super) type Touched = BTreeSet<i64>;

/// Adds the elements access `m` covers to `slots`.
pub(super) fn touch(slots: &mut Touched, m: &crate::binary::MemoryAccess, element: u32) {
    let lanes = (m.size / element.max(1)).max(1);
    for lane in 0..lanes {
        slots.insert(m.displacement + i64::from(lane * element));
    }
}

/// Element size of an access: a scalar access is one element; vector moves are type-agnostic
/// (gcc stores doubles with `movups`), so a vector access takes the element of the
/// arithmetic around it, else 8 bytes (`double`, the examples' type).
pub(super) fn element_size(m: &crate::binary::MemoryAccess, typed: Option<u32>) -> u32 {
    if m.size >= 16 {
        typed.unwrap_or(8)
    } else {
        m.size
    }
}

/// The arrays loop `l`'s own blocks access at a constant non-zero advance per pass, keyed by
/// (array, advance in bytes, element size), with the displacements and lanes one pass touches.
pub(super) fn advancing_arrays(
    function: &Function,
    cfg: &Cfg,
    l: usize,
) -> BTreeMap<(Array, i64, u32), Touched> {
    let increments = register_increments(function, cfg, l);
    let own = own_instructions(function, cfg, l);
    let typed = arithmetic_element(&own);
    let advance_of = |r: Option<Register>| match r {
        None => Some(0),
        Some(r) => increments.get(&r).copied().unwrap_or(Some(0)),
    };
    // (array, advance, element) -> accesses
    let mut groups: BTreeMap<(Array, i64, u32), Touched> = BTreeMap::new();
    for ins in &own {
        for m in &ins.memory {
            if m.base == Some(Register::RSP) {
                continue;
            }
            let (Some(b), Some(x)) = (advance_of(m.base), advance_of(m.index)) else {
                continue;
            };
            let advance = b + x * i64::from(m.scale);
            if advance == 0 || m.size == 0 {
                continue;
            }
            let element = element_size(m, typed);
            let key = ((m.base, m.index, m.scale), advance, element);
            touch(groups.entry(key).or_default(), m, element);
        }
    }
    groups
}

/// Source iterations per pass from the loop's memory accesses. Accesses are grouped by their
/// address form (`base + index*scale`, any displacement) and per-pass advance; a group that
/// advances `A` bytes over `e`-byte elements, touching `d` distinct elements (every lane of
/// every access), covers `min(A/e/stride, d)` source iterations per pass (the minimum keeps a
/// stencil `a[j] + a[j+1]` at 1 and a strided `a[2*j]` at 1). The loop's factor is the least
/// over its groups; `None` when no access advances by a known constant.
pub(super) fn memory_factor(function: &Function, cfg: &Cfg, l: usize, stride: i64) -> Option<i64> {
    let groups = advancing_arrays(function, cfg, l);
    groups
        .iter()
        .filter_map(|((_, advance, element), slots)| {
            let bytes = advance.abs();
            let e = i64::from(*element);
            if bytes % e != 0 || (bytes / e) % stride != 0 {
                return None;
            }
            let touched = slots.len() as i64;
            Some((bytes / e / stride).min(touched).max(1))
        })
        .min()
}

/// The older rule, for loops without a constantly advancing access: the register the exit
/// test compares and a constant `add` updates; its step counts bytes when it addresses memory
/// with scale 1 (over the element size), elements when scaled, iterations otherwise.
pub(super) fn induction_factor(function: &Function, cfg: &Cfg, l: usize) -> i64 {
    let instructions = own_instructions(function, cfg, l);
    let element = i64::from(arithmetic_element(&instructions).unwrap_or(8));
    let compared: BTreeSet<Register> = instructions
        .iter()
        .flat_map(|i| i.compared.iter().copied())
        .collect();
    // A loop-carried induction variable: compared, stepped by a constant, written by
    // nothing else in the loop (at -O0 the variable lives in memory and never qualifies).
    let only_stepped = |r: &Register| {
        instructions
            .iter()
            .all(|i| !i.writes.contains(r) || i.step.is_some_and(|(s, _)| s == *r))
    };
    let Some((reg, step)) = instructions
        .iter()
        .filter_map(|i| i.step)
        .find(|(r, _)| compared.contains(r) && only_stepped(r))
    else {
        return 1;
    };
    // The variable may address memory only in inner loops (a row pointer).
    let scales: BTreeSet<u32> = cfg.loops[l]
        .blocks
        .iter()
        .flat_map(|&b| cfg.blocks[b].code(function))
        .flat_map(|i| i.addressing.iter())
        .filter(|(r, _)| *r == reg)
        .map(|(_, s)| *s)
        .collect();
    let step = step.abs();
    let k = match scales.iter().next() {
        None => step,
        Some(1) => step / element,
        Some(s) => step * i64::from(*s) / element,
    };
    k.max(1)
}

/// Whether the instruction reads or writes an array (not the stack, not a constant).
pub(super) fn array_access(i: &Instruction) -> bool {
    i.memory
        .iter()
        .any(|m| (m.base.is_some() || m.index.is_some()) && m.base != Some(Register::RSP))
}

/// Whether the instructions move whole vectors of an array (16 bytes or more per access).
pub(super) fn is_vector(instructions: &[&Instruction]) -> bool {
    instructions.iter().any(|i| {
        array_access(i)
            && i.memory
                .iter()
                .any(|m| m.size >= 16 && m.base != Some(Register::RSP))
    })
}

/// Elements the instructions touch, summed over the arrays (accesses sharing base, index and
/// scale; every lane of every access, each element once); constants are no array. A base or
/// index register loaded anew (`mov` from the stack between accesses: clang -O3 reloads each
/// array's pointer into `rax` at iir_filter.c's prologue) holds another array from then on;
/// stepping it (`add`, `lea`) does not.
pub(super) fn touched_elements(
    instructions: &[&Instruction],
    skip: &BTreeSet<Array>,
) -> Option<i64> {
    touched(instructions, skip).map(|(elements, _)| elements)
}

/// `touched_elements`, and how many arrays they are in.
pub(super) fn touched(
    instructions: &[&Instruction],
    skip: &BTreeSet<Array>,
) -> Option<(i64, usize)> {
    let typed = arithmetic_element(instructions);
    let mut groups: BTreeMap<(Array, u32, u32), Touched> = BTreeMap::new();
    let mut loaded: BTreeMap<Register, u32> = BTreeMap::new();
    for ins in instructions {
        for m in &ins.memory {
            if (m.base.is_none() && m.index.is_none())
                || m.base == Some(Register::RSP)
                || m.size == 0
                || skip.contains(&(m.base, m.index, m.scale))
            {
                continue;
            }
            let element = element_size(m, typed);
            let anew = |r: Option<Register>| r.and_then(|r| loaded.get(&r).copied()).unwrap_or(0);
            let key = ((m.base, m.index, m.scale), anew(m.base), anew(m.index));
            touch(groups.entry(key).or_default(), m, element);
        }
        if ins.mnemonic == iced_x86::Mnemonic::Mov && ins.step.is_none() {
            for &r in &ins.writes {
                *loaded.entry(r).or_default() += 1;
            }
        }
    }
    (!groups.is_empty()).then(|| {
        let elements = groups.values().map(|slots| slots.len() as i64).sum();
        (elements, groups.len())
    })
}

/// Address forms loop `l` reads or writes at the same place on every pass (`x[i]` in a
/// `j` loop): the same element however many iterations a pass takes, so not counted when
/// comparing a straight-line pass with a copy.
pub(super) fn invariant_arrays(function: &Function, cfg: &Cfg, l: usize) -> BTreeSet<Array> {
    let increments = register_increments(function, cfg, l);
    let fixed = |r: Option<Register>| r.is_none_or(|r| !increments.contains_key(&r));
    own_instructions(function, cfg, l)
        .iter()
        .flat_map(|i| i.memory.iter())
        .filter(|m| (m.base.is_some() || m.index.is_some()) && fixed(m.base) && fixed(m.index))
        .map(|m| (m.base, m.index, m.scale))
        .collect()
}

/// Source iterations per pass of each of several binary loop copies of one source loop,
/// relative to the narrowest: bytes a pass advances (least over the loop's arrays) over the
/// narrowest copy's, which takes one source iteration per pass (clang's scalar remainder).
/// Unlike the element rule this needs no element size and no subscript: a loop over
/// `v[3*i..3*i+2]` advances 24 bytes per iteration in its scalar copy and 192 in a copy that
/// takes 8. `None` when a copy has no advancing access or the advances do not divide.
///
/// Loads are compared with loads when every copy has an advancing load: arrays of one loop
/// may advance at different rates (`out[x/2] = in[x] + in[x+1]` advances its loads 8 bytes per
/// iteration and its store 4), and a vector copy whose store address is computed rather than
/// stepped would otherwise be compared with the scalar copy's slower store.
pub fn relative_factors(function: &Function, cfg: &Cfg, copies: &[usize]) -> Option<Vec<i64>> {
    let by_loads: Option<Vec<i64>> = copies
        .iter()
        .map(|&l| least_load_advance(function, cfg, l))
        .collect();
    let advances: Vec<i64> = match by_loads {
        Some(a) => a,
        None => copies
            .iter()
            .map(|&l| {
                advancing_arrays(function, cfg, l)
                    .keys()
                    .map(|(_, advance, _)| advance.abs())
                    .min()
            })
            .collect::<Option<_>>()?,
    };
    let narrowest = *advances.iter().min()?;
    // Equal advances: distributed or versioned loops (gcc -O3 splits `a[j] = 1; b[j] = 2`
    // into one loop per array), not a wide copy and its remainder.
    if narrowest == 0 || advances.iter().all(|a| *a == narrowest) {
        return None;
    }
    if advances.iter().any(|a| a % narrowest != 0) {
        return None;
    }
    Some(advances.iter().map(|a| a / narrowest).collect())
}

/// Whether a lone copy of factor `k` (no other binary loop and no straight-line pass of the
/// same source loop) is believable: a compiler that unrolls or vectorises needs a remainder
/// unless the trip count is a constant multiple of `k`. A loop over `a[3*i]`, `a[3*i+1]`,
/// `a[3*i+2]` looks like an unroll by 3 to the memory rule; this keeps it at 1.
pub fn lone_copy_plausible(source: &SourceModel, s: usize, k: i64) -> bool {
    let Ok(scop) = &source.loops[s].scop else {
        return false;
    };
    let (Bound::Max(starts) | Bound::Min(starts)) = &scop.start;
    let (Bound::Max(ends) | Bound::Min(ends)) = &scop.end;
    let ([start], [end]) = (starts.as_slice(), ends.as_slice()) else {
        return false;
    };
    let (high, low) = if scop.stride > 0 {
        (end, start)
    } else {
        (start, end)
    };
    let Ok(span) = high.plus_scaled(low, -1) else {
        return false;
    };
    if !span.terms.is_empty() {
        return false;
    }
    let stride = scop.stride.abs();
    let span = span.constant + i64::from(scop.end_inclusive);
    let trip = (span + stride - 1).div_euclid(stride);
    trip > 0 && trip % k == 0
}

/// The least advance per pass, in bytes, of the loads (instructions that read memory and
/// write none) of binary loop `l`; `None` when no load advances by a known constant.
fn least_load_advance(function: &Function, cfg: &Cfg, l: usize) -> Option<i64> {
    let increments = register_increments(function, cfg, l);
    let advance_of = |r: Option<Register>| match r {
        None => Some(0),
        Some(r) => increments.get(&r).copied().unwrap_or(Some(0)),
    };
    own_instructions(function, cfg, l)
        .iter()
        .filter(|i| i.loads > 0 && i.stores == 0)
        .flat_map(|i| i.memory.iter())
        .filter(|m| m.base != Some(Register::RSP) && m.size > 0)
        .filter_map(|m| Some(advance_of(m.base)? + advance_of(m.index)? * i64::from(m.scale)))
        .map(i64::abs)
        .filter(|a| *a > 0)
        .min()
}
