//! The parameters a function's machine code takes, read from DWARF: the register each one
//! arrives in at entry, and those the compiler fixed to a constant.
//!
//! A static function called with constant sizes (`kernel(n, *A)` after `int n = N;`) is
//! specialised by both compilers: gcc clones it (`kernel.constprop.0`) without the constant
//! parameters, clang keeps the signature and never reads them. Either way the function's
//! concrete DIE gives each such parameter a `DW_AT_const_value` (or, from clang, a location
//! that computes the constant: `DW_OP_consts 400; DW_OP_stack_value`), and its loops run to
//! constants: the model must count them at that value, and runs of the clone must pass the
//! remaining arguments in the registers the clone reads them from.

use std::collections::BTreeMap;

use gimli::{AttributeValue, Operation, Reader as _};
use serde::Serialize;

use super::Reader;

/// What DWARF says of one function's parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Signature {
    /// Parameters the compiler fixed, by source name: their value.
    pub fixed: BTreeMap<String, i64>,
    /// Parameters in a register at the function's entry, by source name: the DWARF register
    /// number (5 `rdi`, 4 `rsi`, 1 `rdx`, 2 `rcx`, 8 `r8`, 9 `r9`, 17.. `xmm0`..).
    pub registers: BTreeMap<String, u16>,
    /// Parameters on the stack at entry (past the sixth integer argument), by source name:
    /// the 8-byte slot above the return address (0 is the first).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub stack: BTreeMap<String, u16>,
    /// Stack parameters at `DW_OP_fbreg` offsets from an `rsp` frame base (clang without a
    /// frame pointer): `rsp` after the prologue's pushes, which only the code tells
    /// ([`Signature::settle_stack`] makes them slots).
    #[serde(skip)]
    after_prologue: BTreeMap<String, i64>,
}

impl Signature {
    /// DWARF numbers of the integer argument registers, in the order of the System V ABI.
    pub const INTEGER_REGISTERS: [u16; 6] = [5, 4, 1, 2, 8, 9];

    /// The parameter that arrives as the `k`-th integer argument: in its register, or past
    /// the sixth in stack slot `k - 6`.
    pub fn integer_argument(&self, k: usize) -> Option<&str> {
        let found = match Self::INTEGER_REGISTERS.get(k) {
            Some(&register) => self.registers.iter().find(|(_, &r)| r == register),
            None => {
                let slot = u16::try_from(k - Self::INTEGER_REGISTERS.len()).ok()?;
                self.stack.iter().find(|(_, &s)| s == slot)
            }
        };
        found.map(|(p, _)| p.as_str())
    }

    /// Places the stack parameters whose offsets count from `rsp` after a prologue that
    /// moved it down `prologue` bytes (pushes, `sub rsp`): the first stack argument is then
    /// at `prologue + 8`.
    pub fn settle_stack(&mut self, prologue: i64) {
        for (name, offset) in std::mem::take(&mut self.after_prologue) {
            let from_first = offset.checked_sub(prologue).and_then(|o| o.checked_sub(8));
            if let Some(slot) = from_first.and_then(stack_slot) {
                self.stack.insert(name, slot);
            }
        }
    }

    /// One past the last integer argument DWARF places.
    pub fn integer_arguments(&self) -> usize {
        let stacked = self.stack.values().map(|&s| usize::from(s) + 1).max();
        match stacked {
            Some(s) => Self::INTEGER_REGISTERS.len() + s,
            None => (0..Self::INTEGER_REGISTERS.len())
                .rev()
                .find(|&k| self.integer_argument(k).is_some())
                .map_or(0, |k| k + 1),
        }
    }
}

/// The signature of every function DWARF describes with a `DW_AT_low_pc`, by that address.
/// A unit or entry DWARF cannot read is skipped: the functions it holds keep no signature.
pub(super) fn signatures(dwarf: &gimli::Dwarf<Reader>) -> BTreeMap<u64, Signature> {
    let mut out = BTreeMap::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let Ok(mut tree) = unit.entries_tree(None) else {
            continue;
        };
        if let Ok(root) = tree.root() {
            let _ = walk(dwarf, &unit, root, &mut out, 0);
        }
    }
    out
}

type Node<'a, 'b> = gimli::EntriesTreeNode<'a, 'b, Reader>;

/// Namespaces and classes nest a few levels; a file nesting deeper is not walked further
/// (bad input must not overflow the stack).
const MAX_DEPTH: usize = 64;

/// Subprograms anywhere under `node` (C++ puts them in namespaces and classes).
fn walk(
    dwarf: &gimli::Dwarf<Reader>,
    unit: &gimli::Unit<Reader>,
    node: Node,
    out: &mut BTreeMap<u64, Signature>,
    depth: usize,
) -> gimli::Result<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let entry = node.entry();
    if entry.tag() == gimli::DW_TAG_subprogram {
        let low = match entry.attr_value(gimli::DW_AT_low_pc) {
            Some(v) => dwarf.attr_address(unit, v)?,
            None => None,
        };
        if let Some(low) = low {
            let signature = parameters(dwarf, unit, node, low)?;
            out.insert(low, signature);
        }
        return Ok(());
    }
    let mut children = node.children();
    while let Some(child) = children.next()? {
        walk(dwarf, unit, child, out, depth + 1)?;
    }
    Ok(())
}

/// The formal parameters of the subprogram at `node`, whose code starts at `low`.
fn parameters(
    dwarf: &gimli::Dwarf<Reader>,
    unit: &gimli::Unit<Reader>,
    node: Node,
    low: u64,
) -> gimli::Result<Signature> {
    let mut signature = Signature::default();
    let frame = FrameBase::of(unit, node.entry())?;
    let mut children = node.children();
    while let Some(child) = children.next()? {
        let entry = child.entry();
        if entry.tag() != gimli::DW_TAG_formal_parameter {
            continue;
        }
        let Some(name) = name(dwarf, unit, entry)? else {
            continue;
        };
        if let Some(v) = entry.attr_value(gimli::DW_AT_const_value) {
            if let Some(v) = constant(&v) {
                signature.fixed.insert(name, v);
            }
            continue;
        }
        match at_entry(dwarf, unit, entry, low)? {
            Some(AtEntry::Register(r)) => {
                signature.registers.insert(name, r);
            }
            Some(AtEntry::Constant(v)) => {
                signature.fixed.insert(name, v);
            }
            Some(AtEntry::Frame(offset)) => match frame {
                FrameBase::Cfa => {
                    if let Some(slot) = stack_slot(offset) {
                        signature.stack.insert(name, slot);
                    }
                }
                FrameBase::StackPointer => {
                    signature.after_prologue.insert(name, offset);
                }
                FrameBase::Other => {}
            },
            None => {}
        }
    }
    Ok(signature)
}

/// The entry's `DW_AT_name`, or that of its abstract origin (a clone's or an out-of-line
/// instance's parameters point to the source function's).
fn name(
    dwarf: &gimli::Dwarf<Reader>,
    unit: &gimli::Unit<Reader>,
    entry: &gimli::DebuggingInformationEntry<Reader>,
) -> gimli::Result<Option<String>> {
    let mut entry = entry.clone();
    // An origin chain is short (origin of an origin at most); the bound stops a cycle.
    for _ in 0..4 {
        if let Some(v) = entry.attr_value(gimli::DW_AT_name) {
            let s = dwarf.attr_string(unit, v)?;
            return Ok(Some(s.to_string_lossy()?.into_owned()));
        }
        match entry.attr_value(gimli::DW_AT_abstract_origin) {
            Some(AttributeValue::UnitRef(offset)) => entry = unit.entry(offset)?,
            _ => return Ok(None),
        }
    }
    Ok(None)
}

/// An integer `DW_AT_const_value`. gcc writes a signed `int` zero-extended to 32 bits in the
/// smallest data form (so `data4` is an `int`), clang as `sdata`/`udata`.
fn constant(v: &AttributeValue<Reader>) -> Option<i64> {
    match *v {
        AttributeValue::Sdata(v) => Some(v),
        AttributeValue::Udata(v) => i64::try_from(v).ok(),
        AttributeValue::Data1(v) => Some(i64::from(v)),
        AttributeValue::Data2(v) => Some(i64::from(v)),
        AttributeValue::Data4(v) => Some(i64::from(v as i32)),
        AttributeValue::Data8(v) => Some(v as i64),
        _ => None,
    }
}

/// Where a parameter is at the function's entry.
#[derive(Debug, PartialEq, Eq)]
enum AtEntry {
    /// In one register (its DWARF number).
    Register(u16),
    /// A constant the location computes (`DW_OP_consts 400; DW_OP_stack_value`): clang's
    /// way of saying it fixed a parameter of a function it specialised, where gcc writes
    /// `DW_AT_const_value`.
    Constant(i64),
    /// At this offset from the frame base (`DW_OP_fbreg`): a stack argument at entry.
    Frame(i64),
}

/// What a subprogram's `DW_AT_frame_base` is at its entry, for its stack arguments.
enum FrameBase {
    /// `DW_OP_call_frame_cfa` (gcc): the first stack argument is at offset 0 ([`stack_slot`]).
    Cfa,
    /// `DW_OP_reg7` (`rsp`, clang without a frame pointer): `rsp` once the prologue has
    /// pushed the registers it saves, so the first stack argument is at 8 past them
    /// ([`Signature::settle_stack`]).
    StackPointer,
    /// Anything else (`rbp`, which entry has not set up yet).
    Other,
}

impl FrameBase {
    fn of(
        unit: &gimli::Unit<Reader>,
        entry: &gimli::DebuggingInformationEntry<Reader>,
    ) -> gimli::Result<FrameBase> {
        let Some(AttributeValue::Exprloc(e)) = entry.attr_value(gimli::DW_AT_frame_base) else {
            return Ok(FrameBase::Other);
        };
        let mut ops = e.operations(unit.encoding());
        Ok(match (ops.next()?, ops.next()?) {
            (Some(Operation::CallFrameCFA), None) => FrameBase::Cfa,
            (Some(Operation::Register { register }), None) if register.0 == 7 => {
                FrameBase::StackPointer
            }
            _ => FrameBase::Other,
        })
    }
}

/// The stack argument slot `from_first` bytes past the first stack argument.
fn stack_slot(from_first: i64) -> Option<u16> {
    (from_first >= 0 && from_first % 8 == 0)
        .then(|| u16::try_from(from_first / 8).ok())
        .flatten()
}

/// The parameter's location at `low`, when it is one register or a constant.
fn at_entry(
    dwarf: &gimli::Dwarf<Reader>,
    unit: &gimli::Unit<Reader>,
    entry: &gimli::DebuggingInformationEntry<Reader>,
    low: u64,
) -> gimli::Result<Option<AtEntry>> {
    let Some(value) = entry.attr_value(gimli::DW_AT_location) else {
        return Ok(None);
    };
    let expression = match value {
        AttributeValue::Exprloc(e) => e,
        other => {
            let Some(mut list) = dwarf.attr_locations(unit, other)? else {
                return Ok(None);
            };
            let mut at_entry = None;
            while let Some(l) = list.next()? {
                if l.range.begin <= low && low < l.range.end {
                    at_entry = Some(l.data);
                    break;
                }
            }
            match at_entry {
                Some(e) => e,
                None => return Ok(None),
            }
        }
    };
    location_at(expression, unit.encoding())
}

/// One location expression as a register or a constant; `None` for anything else (a stack
/// slot, a computed value, an entry value).
fn location_at(
    expression: gimli::Expression<Reader>,
    encoding: gimli::Encoding,
) -> gimli::Result<Option<AtEntry>> {
    let mut ops = expression.operations(encoding);
    let (first, second) = (ops.next()?, ops.next()?);
    let value_alone = matches!(second, Some(Operation::StackValue)) && ops.next()?.is_none();
    Ok(match (first, second) {
        (Some(Operation::Register { register }), None) => Some(AtEntry::Register(register.0)),
        (Some(Operation::FrameOffset { offset }), None) => Some(AtEntry::Frame(offset)),
        (Some(Operation::SignedConstant { value }), _) if value_alone => {
            Some(AtEntry::Constant(value))
        }
        (Some(Operation::UnsignedConstant { value }), _) if value_alone => {
            i64::try_from(value).ok().map(AtEntry::Constant)
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_read_as_gcc_and_clang_write_them() {
        // gcc: a signed int zero-extended to 32 bits in the smallest form.
        assert_eq!(constant(&AttributeValue::Data1(200)), Some(200));
        assert_eq!(constant(&AttributeValue::Data2(40_000)), Some(40_000));
        assert_eq!(constant(&AttributeValue::Data4(0xffff_ffff)), Some(-1));
        // clang: sdata / udata.
        assert_eq!(constant(&AttributeValue::Sdata(-7)), Some(-7));
        assert_eq!(constant(&AttributeValue::Udata(30)), Some(30));
        assert_eq!(constant(&AttributeValue::Udata(u64::MAX)), None);
    }

    #[test]
    fn a_location_is_a_register_or_a_constant_clang_computes() {
        let encoding = gimli::Encoding {
            format: gimli::Format::Dwarf32,
            version: 4,
            address_size: 8,
        };
        let at = |bytes: &'static [u8]| {
            let bytes: std::sync::Arc<[u8]> = std::sync::Arc::from(bytes);
            let reader = Reader::new(bytes, gimli::RunTimeEndian::Little);
            location_at(gimli::Expression(reader), encoding).unwrap()
        };
        // DW_OP_reg5 (rdi); DW_OP_fbreg +8.
        assert_eq!(at(&[0x55]), Some(AtEntry::Register(5)));
        assert_eq!(at(&[0x91, 0x08]), Some(AtEntry::Frame(8)));
        // DW_OP_consts 400; DW_OP_stack_value: clang's specialised `init_array(400, ...)`.
        assert_eq!(at(&[0x11, 0x90, 0x03, 0x9f]), Some(AtEntry::Constant(400)));
        // DW_OP_lit7; DW_OP_stack_value.
        assert_eq!(at(&[0x37, 0x9f]), Some(AtEntry::Constant(7)));
        // A constant that is an address (no DW_OP_stack_value), a stack slot, a sum.
        assert_eq!(at(&[0x37]), None);
        assert_eq!(at(&[0x77, 0x08]), None);
        assert_eq!(at(&[0x37, 0x38, 0x22, 0x9f]), None);
    }

    #[test]
    fn the_kth_integer_argument_is_the_parameter_in_its_register() {
        let s = Signature {
            fixed: BTreeMap::new(),
            stack: [("z".to_string(), 1)].into_iter().collect(),
            registers: [
                ("a".to_string(), 5),
                ("b".to_string(), 4),
                ("x".to_string(), 17),
            ]
            .into_iter()
            .collect(),
            after_prologue: BTreeMap::new(),
        };
        assert_eq!(s.integer_argument(0), Some("a"));
        assert_eq!(s.integer_argument(1), Some("b"));
        assert_eq!(s.integer_argument(2), None);
        assert_eq!(s.integer_argument(6), None);
        assert_eq!(s.integer_argument(7), Some("z"), "the second stack slot");
        assert_eq!(s.integer_argument(9), None);
        assert_eq!(s.integer_arguments(), 8);
    }

    #[test]
    fn stack_offsets_from_rsp_count_past_the_prologue() {
        // clang -O2, six pushes (48 bytes): `x` at `DW_OP_fbreg +56` is the first stack
        // argument, read as `0x38(%rsp)` after the pushes; `+72` the third.
        let mut s = Signature::default();
        s.after_prologue.insert("x".into(), 56);
        s.after_prologue.insert("z".into(), 72);
        s.after_prologue.insert("local".into(), 20);
        s.settle_stack(48);
        assert_eq!(s.stack.get("x"), Some(&0));
        assert_eq!(s.stack.get("z"), Some(&2));
        assert_eq!(s.stack.get("local"), None, "below the arguments");
        // A leaf without pushes: the first stack argument at +8.
        let mut leaf = Signature::default();
        leaf.after_prologue.insert("w".into(), 8);
        leaf.settle_stack(0);
        assert_eq!(leaf.stack.get("w"), Some(&0));
    }
}
