//! The binary side of 004 §III.A: the ELF's functions, their disassembly, and the DWARF line
//! table and inline frames that bridge instructions to source lines (004 §III.A.2).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gimli::Reader as _;
use iced_x86::{
    Decoder, DecoderOptions, FlowControl, InstructionInfoFactory, Mnemonic, OpAccess, OpKind,
};
use object::{Object, ObjectKind, ObjectSection, ObjectSymbol, SymbolKind};
use serde::Serialize;

use crate::error::{Result, StaticError};

mod signature;
pub use signature::Signature;

type Reader = gimli::EndianReader<gimli::RunTimeEndian, Arc<[u8]>>;

/// A source position of an instruction.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    /// DWARF column (1-based), 0 when the line table has none; separates the arms of a `?:`
    /// that share a line.
    pub column: u32,
}

/// One frame of an instruction's inline chain, innermost first: the function the code came
/// from and the position in it (for outer frames, the position of the inlined call).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub function: Option<String>,
    pub position: Option<SourceLine>,
}

/// The lower-case name of a mnemonic (`Mnemonic::Addsd` is `addsd`): iced's names are the
/// Intel manual's.
pub fn mnemonic_name(m: Mnemonic) -> String {
    format!("{m:?}").to_lowercase()
}

fn serialize_mnemonic<S: serde::Serializer>(
    m: &Mnemonic,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&mnemonic_name(*m))
}

fn serialize_paths<S: serde::Serializer>(
    paths: &BTreeMap<u64, Vec<Mnemonic>>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(paths.len()))?;
    for (address, path) in paths {
        let names: Vec<String> = path.iter().map(|m| mnemonic_name(*m)).collect();
        map.serialize_entry(address, &names)?;
    }
    map.end()
}

/// One decoded instruction with what the models need to know about it.
#[derive(Debug, Clone, Serialize)]
pub struct Instruction {
    pub address: u64,
    pub length: u32,
    /// iced's mnemonic: what the analysis compares (`Mnemonic::Jle`), never a string.
    #[serde(serialize_with = "serialize_mnemonic")]
    pub mnemonic: Mnemonic,
    #[serde(skip)]
    pub flow: FlowControl,
    /// Target of a direct branch or call.
    pub target: Option<u64>,
    /// Memory operands read / written (iced's operand access info, not the mnemonic).
    pub loads: u32,
    pub stores: u32,
    /// `add reg, imm` / `sub reg, imm` / `inc` / `dec`: (full register, signed step) — a
    /// candidate induction-variable update.
    #[serde(skip)]
    pub step: Option<(iced_x86::Register, i64)>,
    /// Full general-purpose registers this instruction writes.
    #[serde(skip)]
    pub writes: Vec<iced_x86::Register>,
    /// Full registers compared by `cmp`/`test`.
    #[serde(skip)]
    pub compared: Vec<iced_x86::Register>,
    /// `cmp r, imm`: the immediate (a guard's threshold on the trip count).
    #[serde(skip)]
    pub compared_immediate: Option<i64>,
    /// `cmp x, imm` with `x` a register or memory: the immediate (a vectoriser's cost-model
    /// threshold on a trip count kept in a stack slot).
    #[serde(skip)]
    pub compare_constant: Option<i64>,
    /// `lea d, [s + c]` (no index) or `mov d, s`: (d, s, c), the destination as the source
    /// plus a constant (gcc's guard tests `N - 1`).
    #[serde(skip)]
    pub offset: Option<(iced_x86::Register, iced_x86::Register, i64)>,
    /// Registers used to address memory, with their scale (base registers have scale 1).
    #[serde(skip)]
    pub addressing: Vec<(iced_x86::Register, u32)>,
    /// Memory accesses (not `lea`/`nop`): address form and size, for the elements a loop
    /// iteration covers (unrolled and vectorised loops).
    #[serde(skip)]
    pub memory: Vec<MemoryAccess>,
    /// Widest SIMD register operand in bytes (16 xmm, 32 ymm, 64 zmm), 0 if none.
    pub simd_bytes: u32,
    /// Inline frames, innermost first; empty when DWARF has nothing for this address.
    pub frames: Vec<Frame>,
    /// iced's decoded instruction, whole: its operands, for reading induction variables.
    #[serde(skip)]
    pub decoded: iced_x86::Instruction,
}

impl Instruction {
    /// Frame code: the stack frame's set-up and tear-down (`push`/`pop`, `sub`/`add rsp`,
    /// `leave`, `ret`, `endbr64`). It carries the function's opening or closing line, not the
    /// statement it is scheduled with: gcc's shrink-wrapping moves a prologue into the one
    /// arm that calls out, and duplicates the `ret` into each arm of a `return c ? x : y`.
    pub(crate) fn is_frame(&self) -> bool {
        use iced_x86::{Mnemonic, Register};
        matches!(
            self.mnemonic,
            Mnemonic::Push | Mnemonic::Pop | Mnemonic::Leave | Mnemonic::Ret | Mnemonic::Endbr64
        ) || self.step.is_some_and(|(r, _)| r == Register::RSP)
            || (self.decoded.op0_register() == Register::RBP
                && self.decoded.op1_register() == Register::RSP)
    }

    /// `decoded` with no roles, accesses or source frames: the instruction tests build.
    #[cfg(test)]
    pub(crate) fn bare(decoded: iced_x86::Instruction) -> Instruction {
        Instruction {
            address: decoded.ip(),
            length: decoded.len() as u32,
            mnemonic: decoded.mnemonic(),
            flow: decoded.flow_control(),
            target: None,
            loads: 0,
            stores: 0,
            step: None,
            writes: Vec::new(),
            compared: Vec::new(),
            compared_immediate: None,
            compare_constant: None,
            offset: None,
            addressing: Vec::new(),
            memory: Vec::new(),
            simd_bytes: 0,
            frames: Vec::new(),
            decoded,
        }
    }

    /// The mnemonic's name in lower case (`addsd`), the key of the architecture description;
    /// models name it `x86_addsd` as Mira does.
    pub fn name(&self) -> String {
        mnemonic_name(self.mnemonic)
    }

    /// Source position in the physical (outermost) function: where inlined code was called.
    pub fn outer_line(&self) -> Option<&SourceLine> {
        self.frames.iter().rev().find_map(|f| f.position.as_ref())
    }

    /// Source position in the innermost (possibly inlined) function.
    pub fn inner_line(&self) -> Option<&SourceLine> {
        self.frames.first().and_then(|f| f.position.as_ref())
    }
}

/// One memory access: `base + index*scale + displacement`, `size` bytes (iced's memory
/// size). Vector moves are type-agnostic (gcc stores doubles with `movups`, which iced calls
/// packed singles), so the element size is left to the loop's arithmetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryAccess {
    pub base: Option<iced_x86::Register>,
    pub index: Option<iced_x86::Register>,
    pub scale: u32,
    pub displacement: i64,
    pub size: u32,
}

/// A function of the binary with its instructions.
#[derive(Debug, Clone, Serialize)]
pub struct Function {
    /// Symbol name as in the ELF (mangled for C++).
    pub symbol: String,
    /// Demangled source name (`matvec_std<double>::operator()(...)`).
    pub name: String,
    pub address: u64,
    pub size: u64,
    pub instructions: Vec<Instruction>,
    /// Its parameters as DWARF gives them: fixed by the compiler, or in which register.
    pub signature: Signature,
}

/// A compiler-made part of a source function and the part's suffix: gcc names its clones and
/// split parts `kernel.constprop.0`, `kernel.isra.0`, `kernel.part.0`, `kernel.cold` (C
/// identifiers have no `.`), demangled C++ `f(int) [clone .constprop.0]`.
pub fn split_clone(name: &str) -> (&str, Option<&str>) {
    if let Some(at) = name.find(" [clone ") {
        return (&name[..at], Some(name[at + 8..].trim_end_matches(']')));
    }
    match name.find('.') {
        Some(at) if at > 0 && !name.contains('(') => (&name[..at], Some(&name[at..])),
        _ => (name, None),
    }
}

impl Function {
    /// The name users know it by: the source function a clone or split part comes from.
    /// A hash of the function's addresses and decoded instructions: the key under which
    /// what was learnt by running its machine code is cached (`ast_cache::Entry::for_bytes`).
    pub fn code_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = fnv::FnvHasher::default();
        for ins in &self.instructions {
            ins.address.hash(&mut h);
            ins.decoded.hash(&mut h);
        }
        h.finish()
    }

    pub fn source_name(&self) -> &str {
        split_clone(&self.name).0
    }

    /// `.constprop.0`, `.isra.0`, `.part.0`, `.cold`: which compiler-made part this is.
    pub fn clone_suffix(&self) -> Option<&str> {
        split_clone(&self.name).1
    }

    /// The source name, with the clone named when it is one: `norms (clone norms.constprop.0)`.
    pub fn display_name(&self) -> String {
        match self.clone_suffix() {
            Some(_) => format!("{} (clone {})", self.source_name(), self.symbol),
            None => self.name.clone(),
        }
    }

    pub fn contains(&self, address: u64) -> bool {
        address >= self.address && address < self.address + self.size
    }

    /// Source file of most of the function's instructions (the outermost frame's file).
    pub fn source_file(&self) -> Option<String> {
        let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
        for i in &self.instructions {
            if let Some(l) = i.outer_line() {
                *votes.entry(l.file.as_str()).or_default() += 1;
            }
        }
        votes
            .into_iter()
            .max_by_key(|(_, n)| *n)
            .map(|(f, _)| f.to_string())
    }
}

/// A loaded x86-64 ELF binary.
#[derive(Debug, Clone, Serialize)]
pub struct Binary {
    pub path: PathBuf,
    /// Position-independent executable (ELF type DYN): run-time addresses are shifted.
    pub pie: bool,
    pub functions: Vec<Function>,
    /// Compilation units' (name, directory) from DWARF, to find the sources.
    pub compilation_units: Vec<(String, String)>,
    /// PLT stub address -> the dynamic symbol it jumps to (`exp`, `malloc`): calls into code
    /// that is not analysed.
    pub plt: BTreeMap<u64, String>,
    /// PLT stub address -> mnemonics a call executes in it once the symbol is bound (`jmp`,
    /// or `endbr64; jmp`): callgrind charges them to the call site (`--skip-plt`).
    #[serde(serialize_with = "serialize_paths")]
    pub plt_path: BTreeMap<u64, Vec<Mnemonic>>,
    /// Defined data symbols of at most 8 bytes (global scalars such as a size `int n;` set
    /// by `main`), by name: their (address, bytes).
    pub variables: BTreeMap<String, (u64, u64)>,
    /// Defined data symbols larger than 8 bytes (global arrays), by name: their bytes. Sizes
    /// set with `-D` show here and nowhere else in the binary (DWARF does not record `-D`).
    #[serde(default)]
    pub arrays: BTreeMap<String, u64>,
    /// Read-only data sections (`.rodata`): (address, bytes). The runs of `calibrate` read
    /// the constants the code loads from them (a vector induction variable's `{0, 1, 2, 3}`).
    #[serde(skip)]
    pub read_only: Vec<(u64, Vec<u8>)>,
}

impl Binary {
    /// Reads and analyses the file at `path`.
    pub fn load(path: &Path) -> Result<Binary> {
        let bytes = std::fs::read(path).map_err(|source| StaticError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Binary::parse(&bytes, path)
    }

    /// The fuzzed entry point: any bytes give a `Binary` or an error, never a panic.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Binary> {
        let not_elf = |reason: String| StaticError::NotElf {
            path: path.to_path_buf(),
            reason,
        };
        let file = object::File::parse(bytes).map_err(|e| not_elf(e.to_string()))?;
        if file.format() != object::BinaryFormat::Elf {
            return Err(not_elf(format!("{:?} format", file.format())));
        }
        if file.architecture() != object::Architecture::X86_64 {
            return Err(StaticError::Architecture {
                path: path.to_path_buf(),
                machine: format!("{:?}", file.architecture()),
            });
        }
        if file.section_by_name(".debug_info").is_none()
            || file.section_by_name(".debug_line").is_none()
        {
            return Err(StaticError::NoDebugInfo {
                path: path.to_path_buf(),
            });
        }
        let dwarf = load_dwarf(&file, path)?;
        if let Some(dwo) = split_dwarf(&dwarf) {
            return Err(StaticError::SplitDwarf {
                path: path.to_path_buf(),
                dwo,
            });
        }
        let compilation_units = compilation_units(&dwarf);
        let signatures = signature::signatures(&dwarf);
        let context = addr2line::Context::from_dwarf(dwarf).map_err(|e| StaticError::Dwarf {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let (plt, plt_path) = plt_stubs(&file);
        let noreturn: std::collections::BTreeSet<u64> = plt
            .iter()
            .filter(|(_, n)| is_noreturn(n))
            .map(|(a, _)| *a)
            .collect();
        let mut functions = Vec::new();
        let symbols = function_symbols(&file);
        let noreturn_local: std::collections::BTreeSet<u64> = symbols
            .iter()
            .filter(|(_, _, n)| is_noreturn(n))
            .map(|(a, _, _)| *a)
            .collect();
        for (address, size, symbol) in symbols {
            let Some(code) = function_bytes(&file, address, size) else {
                continue;
            };
            let mut instructions = disassemble(code, address, &context);
            for i in &mut instructions {
                let target = i.target.unwrap_or(0);
                if i.flow == FlowControl::Call
                    && (noreturn.contains(&target) || noreturn_local.contains(&target))
                {
                    // Control never comes back: the block ends here without a successor.
                    i.flow = FlowControl::Exception;
                }
            }
            // Functions without any line information (crt start-up, PLT stubs) are not the
            // user's code; they are kept out so that "no debug info" stays detectable.
            if instructions.iter().all(|i| i.frames.is_empty()) {
                continue;
            }
            let name = demangle(&symbol);
            let mut signature = signatures.get(&address).cloned().unwrap_or_default();
            signature.settle_stack(prologue_bytes(&instructions));
            functions.push(Function {
                symbol,
                name,
                address,
                size,
                instructions,
                signature,
            });
        }
        if functions.is_empty() {
            return Err(StaticError::NoDebugInfo {
                path: path.to_path_buf(),
            });
        }
        Ok(Binary {
            path: path.to_path_buf(),
            pie: file.kind() == ObjectKind::Dynamic,
            functions,
            compilation_units,
            plt,
            plt_path,
            variables: data_symbols(&file),
            arrays: array_symbols(&file),
            read_only: read_only_data(&file),
        })
    }

    /// The `bytes` bytes at `address` when they lie in read-only data.
    pub fn constant(&self, address: u64, bytes: usize) -> Option<&[u8]> {
        let k = self
            .read_only
            .partition_point(|(a, _)| *a <= address)
            .checked_sub(1)?;
        let (start, data) = &self.read_only[k];
        let from = usize::try_from(address - start).ok()?;
        data.get(from..from.checked_add(bytes)?)
    }

    /// The function whose symbol or demangled name is `name` (or whose demangled name starts
    /// with `name(`); for a source name the compiler cloned, the original if kept, else a clone.
    pub fn function(&self, name: &str) -> Result<&Function> {
        let parts = self.parts(name)?;
        Ok(parts
            .iter()
            .find(|f| f.clone_suffix().is_none())
            .copied()
            .unwrap_or(parts[0]))
    }

    /// Every part of the function users call `name`: the function itself or, when the compiler
    /// replaced or split it, its clones and split parts (`name.constprop.0`, `name.cold`).
    /// An exact symbol or demangled name selects that one part.
    pub fn parts(&self, name: &str) -> Result<Vec<&Function>> {
        let exact: Vec<&Function> = self
            .functions
            .iter()
            .filter(|f| f.symbol == name || f.name == name)
            .collect();
        let prefix = format!("{name}(");
        let by_source: Vec<&Function> = self
            .functions
            .iter()
            .filter(|f| f.source_name() == name || f.source_name().starts_with(&prefix))
            .collect();
        let found = if exact.is_empty() || exact.iter().all(|f| f.clone_suffix().is_none()) {
            // `norms` names the function and its clones; `norms.constprop.0` only the clone.
            if by_source.is_empty() {
                exact
            } else {
                by_source
            }
        } else {
            exact
        };
        if !found.is_empty() {
            return Ok(found);
        }
        Err(StaticError::NoSuchFunction {
            path: self.path.clone(),
            name: name.to_string(),
            known: self
                .functions
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// The function containing a (static) address.
    pub fn function_at(&self, address: u64) -> Option<&Function> {
        self.functions.iter().find(|f| f.contains(address))
    }
}

fn load_dwarf(file: &object::File, path: &Path) -> Result<gimli::Dwarf<Reader>> {
    let endian = if file.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let load = |id: gimli::SectionId| -> std::result::Result<Reader, StaticError> {
        let data: Cow<[u8]> = match file.section_by_name(id.name()) {
            Some(section) => section
                .uncompressed_data()
                .map_err(|e| StaticError::Section {
                    path: path.to_path_buf(),
                    section: id.name().to_string(),
                    reason: e.to_string(),
                })?,
            None => Cow::Borrowed(&[]),
        };
        Ok(gimli::EndianReader::new(Arc::from(&*data), endian))
    };
    gimli::Dwarf::load(load)
}

/// The `.dwo` file of the first skeleton unit, when the binary was built with
/// `-gsplit-dwarf` (its functions and inline frames are not in the binary).
fn split_dwarf(dwarf: &gimli::Dwarf<Reader>) -> Option<String> {
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        if unit.dwo_id.is_none() {
            continue;
        }
        let name = unit
            .dwo_name()
            .ok()
            .flatten()
            .and_then(|v| dwarf.attr_string(&unit, v).ok())
            .and_then(|r| r.to_string_lossy().ok().map(|s| s.into_owned()));
        return Some(name.unwrap_or_else(|| "a .dwo file".into()));
    }
    None
}

fn compilation_units(dwarf: &gimli::Dwarf<Reader>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let text = |a: Option<Reader>| {
            a.and_then(|r| r.to_string_lossy().ok().map(|s| s.into_owned()))
                .unwrap_or_default()
        };
        out.push((text(unit.name.clone()), text(unit.comp_dir.clone())));
    }
    out
}

/// Defined text symbols with a size, one per address (aliases collapse to the first name).
fn function_symbols(file: &object::File) -> Vec<(u64, u64, String)> {
    let mut by_address: BTreeMap<u64, (u64, String)> = BTreeMap::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Text || symbol.size() == 0 || !symbol.is_definition() {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        by_address
            .entry(symbol.address())
            .or_insert((symbol.size(), name.to_string()));
    }
    by_address
        .into_iter()
        .map(|(a, (s, n))| (a, s, n))
        .collect()
}

/// Defined data symbols of 1 to 8 bytes: (address, size) by name.
/// Allocated sections that are neither code nor writable (`.rodata`), by address.
fn read_only_data(file: &object::File) -> Vec<(u64, Vec<u8>)> {
    use object::SectionKind as K;
    let mut out: Vec<(u64, Vec<u8>)> = file
        .sections()
        .filter(|s| matches!(s.kind(), K::ReadOnlyData | K::ReadOnlyString))
        .filter(|s| s.address() != 0)
        .filter_map(|s| Some((s.address(), s.data().ok()?.to_vec())))
        .collect();
    out.sort_by_key(|(a, _)| *a);
    out
}

/// Every defined data symbol: (name, address, bytes).
fn defined_data<'a>(file: &'a object::File) -> impl Iterator<Item = (String, u64, u64)> + 'a {
    file.symbols()
        .filter(|s| s.kind() == SymbolKind::Data && s.is_definition())
        .filter_map(|s| Some((s.name().ok()?.to_string(), s.address(), s.size())))
}

fn data_symbols(file: &object::File) -> BTreeMap<String, (u64, u64)> {
    defined_data(file)
        .filter(|(_, _, size)| (1..=8).contains(size))
        .map(|(name, address, size)| (name, (address, size)))
        .collect()
}

fn array_symbols(file: &object::File) -> BTreeMap<String, u64> {
    defined_data(file)
        .filter(|(_, _, size)| *size > 8)
        .map(|(name, _, size)| (name, size))
        .collect()
}

/// Functions that never return; a call to one ends its basic block (otherwise the following
/// code, often a loop body, would get a false predecessor and lose its dominator).
fn is_noreturn(name: &str) -> bool {
    let name = name.split('@').next().unwrap_or(name);
    matches!(
        name,
        "abort"
            | "exit"
            | "_exit"
            | "_Exit"
            | "__assert_fail"
            | "__stack_chk_fail"
            | "__cxa_throw"
            | "__cxa_rethrow"
            | "__cxa_throw_bad_array_new_length"
            | "__cxa_bad_alloc"
            | "_Unwind_Resume"
            | "__cxa_call_terminate"
            | "longjmp"
            | "siglongjmp"
            | "pthread_exit"
            | "err"
            | "errx"
    ) || name.starts_with("_ZSt9terminate")
        || name.starts_with("_ZSt17__throw_")
        || name.starts_with("_ZSt19__throw_")
        || name.starts_with("_ZSt20__throw_")
        || name.starts_with("_ZSt16__throw_")
        || name.starts_with("_ZSt24__throw_")
        || name.starts_with("_ZSt28__throw_")
        || name.starts_with("_ZSt21__throw_")
}

/// PLT stubs (`.plt`, `.plt.sec`, `.plt.got`) and the symbol each jumps to: each stub's
/// `jmp [rip+GOT]` slot is matched with the dynamic relocation that names the symbol.
type PltStubs = (BTreeMap<u64, String>, BTreeMap<u64, Vec<Mnemonic>>);

fn plt_stubs(file: &object::File) -> PltStubs {
    use object::ObjectSymbolTable;
    let mut out = BTreeMap::new();
    let mut paths = BTreeMap::new();
    let (Some(relocations), Some(dynsyms)) =
        (file.dynamic_relocations(), file.dynamic_symbol_table())
    else {
        return (out, paths);
    };
    let mut slot_name: BTreeMap<u64, String> = BTreeMap::new();
    for (offset, r) in relocations {
        if let object::RelocationTarget::Symbol(i) = r.target() {
            if let Some(name) = dynsyms.symbol_by_index(i).ok().and_then(|s| s.name().ok()) {
                slot_name.insert(offset, name.to_string());
            }
        }
    }
    for section in file.sections() {
        let name = section.name().unwrap_or("");
        if name != ".plt" && name != ".plt.sec" && name != ".plt.got" {
            continue;
        }
        let Ok(data) = section.data() else { continue };
        let mut decoder = Decoder::with_ip(64, data, section.address(), DecoderOptions::NONE);
        let mut stub_start = section.address();
        let mut path: Vec<Mnemonic> = Vec::new();
        while decoder.can_decode() {
            let instr = decoder.decode();
            if instr.mnemonic() == iced_x86::Mnemonic::Endbr64
                || stub_start % 16 == 0 && instr.ip() % 16 == 0
            {
                stub_start = instr.ip();
                path.clear();
            }
            path.push(instr.mnemonic());
            if instr.mnemonic() == iced_x86::Mnemonic::Jmp && instr.is_ip_rel_memory_operand() {
                let slot = instr.ip_rel_memory_address();
                if let Some(n) = slot_name.get(&slot) {
                    out.insert(stub_start, n.clone());
                    paths.entry(stub_start).or_insert_with(|| path.clone());
                }
            }
        }
    }
    (out, paths)
}

fn function_bytes<'a>(file: &'a object::File, address: u64, size: u64) -> Option<&'a [u8]> {
    let section = file.sections().find(|s| {
        s.kind() == object::SectionKind::Text
            && address >= s.address()
            && address.saturating_add(size) <= s.address().saturating_add(s.size())
    })?;
    let data = section.data().ok()?;
    let start = usize::try_from(address - section.address()).ok()?;
    let end = start.checked_add(usize::try_from(size).ok()?)?;
    data.get(start..end)
}

fn disassemble(
    code: &[u8],
    address: u64,
    context: &addr2line::Context<Reader>,
) -> Vec<Instruction> {
    let mut decoder = Decoder::with_ip(64, code, address, DecoderOptions::NONE);
    let mut info = InstructionInfoFactory::new();
    let mut out = Vec::new();
    while decoder.can_decode() {
        let instr = decoder.decode();
        if instr.is_invalid() {
            continue;
        }
        let (mut loads, mut stores) = (0, 0);
        let used = info.info(&instr);
        let writes: Vec<iced_x86::Register> = used
            .used_registers()
            .iter()
            .filter(|u| {
                matches!(
                    u.access(),
                    OpAccess::Write
                        | OpAccess::ReadWrite
                        | OpAccess::CondWrite
                        | OpAccess::ReadCondWrite
                ) && u.register().is_gpr()
            })
            .map(|u| u.register().full_register())
            .collect();
        let mut memory = Vec::new();
        for m in used.used_memory() {
            if m.access() != OpAccess::NoMemAccess && m.segment() != iced_x86::Register::FS {
                let reg = |r: iced_x86::Register| {
                    (r != iced_x86::Register::None && r != iced_x86::Register::RIP)
                        .then(|| r.full_register())
                };
                memory.push(MemoryAccess {
                    base: reg(m.base()),
                    index: reg(m.index()),
                    scale: m.scale(),
                    displacement: m.displacement() as i64,
                    size: m.memory_size().size() as u32,
                });
            }
            match m.access() {
                OpAccess::Read | OpAccess::CondRead => loads += 1,
                OpAccess::Write | OpAccess::CondWrite => stores += 1,
                OpAccess::ReadWrite | OpAccess::ReadCondWrite => {
                    loads += 1;
                    stores += 1;
                }
                _ => {}
            }
        }
        let target = match instr.op0_kind() {
            OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64 => {
                Some(instr.near_branch_target())
            }
            _ => None,
        };
        let simd_bytes = (0..instr.op_count())
            .filter(|&k| instr.op_kind(k) == OpKind::Register)
            .map(|k| instr.op_register(k))
            .filter(|r| r.is_xmm() || r.is_ymm() || r.is_zmm())
            .map(|r| r.size() as u32)
            .max()
            .unwrap_or(0);
        let (step, compared, addressing) = register_roles(&instr);
        let repeated = is_repeated_string(&instr);
        let (compared_immediate, offset) = guard_operands(&instr);
        out.push(Instruction {
            compared_immediate,
            compare_constant: compare_constant(&instr),
            offset,
            address: instr.ip(),
            step,
            writes,
            compared,
            addressing,
            memory,
            simd_bytes,
            length: instr.len() as u32,
            mnemonic: instr.mnemonic(),
            flow: match repeated {
                true => FlowControl::ConditionalBranch,
                false => instr.flow_control(),
            },
            target: match repeated {
                true => Some(instr.ip()),
                false => target,
            },
            loads,
            stores,
            frames: frames(context, instr.ip()),
            decoded: instr,
        });
    }
    out
}

/// A `rep`-prefixed `stos`, `movs` or `lods` (gcc's inline `memset` of a row: `rep stosq`):
/// a loop on itself, as valgrind runs it and callgrind counts it (once per element and once
/// more, when it finds `rcx` is 0). It is a block of its own with a branch back to itself, so
/// that its passes are counted as a loop's. `repe cmps`/`repne scas`, which stop on data, stay one instruction.
pub fn is_repeated_string(instr: &iced_x86::Instruction) -> bool {
    use Mnemonic as M;
    instr.is_string_instruction()
        && instr.has_rep_prefix()
        && matches!(
            instr.mnemonic(),
            M::Stosb
                | M::Stosw
                | M::Stosd
                | M::Stosq
                | M::Movsb
                | M::Movsw
                | M::Movsd
                | M::Movsq
                | M::Lodsb
                | M::Lodsw
                | M::Lodsd
                | M::Lodsq
        )
}

/// The immediate of a two-operand `cmp`, whatever the other operand.
fn compare_constant(instr: &iced_x86::Instruction) -> Option<i64> {
    let immediate = matches!(
        instr.op1_kind(),
        OpKind::Immediate8
            | OpKind::Immediate8to32
            | OpKind::Immediate8to64
            | OpKind::Immediate32
            | OpKind::Immediate32to64
    );
    (instr.mnemonic() == Mnemonic::Cmp && instr.op_count() == 2 && immediate)
        .then(|| instr.immediate(1) as i64)
}

/// The immediate of `cmp r, imm`, and `d = s + c` for `lea d, [s + c]` and `mov d, s`
/// between general-purpose registers.
fn guard_operands(
    instr: &iced_x86::Instruction,
) -> (
    Option<i64>,
    Option<(iced_x86::Register, iced_x86::Register, i64)>,
) {
    use iced_x86::Register;
    let immediate = compare_constant(instr).filter(|_| instr.op0_kind() == OpKind::Register);
    let gpr = |r: Register| r.is_gpr();
    let offset = match instr.mnemonic() {
        Mnemonic::Lea
            if instr.memory_index() == Register::None
                && gpr(instr.memory_base())
                && gpr(instr.op0_register()) =>
        {
            Some((
                instr.op0_register().full_register(),
                instr.memory_base().full_register(),
                instr.memory_displacement64() as i64,
            ))
        }
        Mnemonic::Mov
            if instr.op_count() == 2
                && instr.op0_kind() == OpKind::Register
                && instr.op1_kind() == OpKind::Register
                && gpr(instr.op0_register())
                && gpr(instr.op1_register()) =>
        {
            Some((
                instr.op0_register().full_register(),
                instr.op1_register().full_register(),
                0,
            ))
        }
        _ => None,
    };
    (immediate, offset)
}

type Roles = (
    Option<(iced_x86::Register, i64)>,
    Vec<iced_x86::Register>,
    Vec<(iced_x86::Register, u32)>,
);

fn register_roles(instr: &iced_x86::Instruction) -> Roles {
    use iced_x86::Register;
    let reg0 = (instr.op_count() > 0 && instr.op0_kind() == OpKind::Register)
        .then(|| instr.op0_register().full_register());
    let imm = (instr.op_count() > 1)
        .then(|| match instr.op1_kind() {
            OpKind::Immediate8
            | OpKind::Immediate8to32
            | OpKind::Immediate8to64
            | OpKind::Immediate32
            | OpKind::Immediate32to64 => Some(instr.immediate(1) as i64),
            _ => None,
        })
        .flatten();
    let step = match (instr.mnemonic(), reg0, imm) {
        (Mnemonic::Add, Some(r), Some(i)) => Some((r, i)),
        (Mnemonic::Sub, Some(r), Some(i)) => Some((r, -i)),
        (Mnemonic::Inc, Some(r), _) => Some((r, 1)),
        (Mnemonic::Dec, Some(r), _) => Some((r, -1)),
        // `lea r, [r + c]`: clang's pointer bump.
        (Mnemonic::Lea, Some(r), _)
            if instr.memory_base().full_register() == r
                && instr.memory_index() == Register::None =>
        {
            Some((r, instr.memory_displacement64() as i64))
        }
        _ => None,
    };
    let compared = if matches!(instr.mnemonic(), Mnemonic::Cmp | Mnemonic::Test) {
        (0..instr.op_count())
            .filter(|&k| instr.op_kind(k) == OpKind::Register)
            .map(|k| instr.op_register(k).full_register())
            .collect()
    } else {
        Vec::new()
    };
    let mut addressing = Vec::new();
    if (0..instr.op_count()).any(|k| instr.op_kind(k) == OpKind::Memory) {
        if instr.memory_base() != Register::None && instr.memory_base() != Register::RIP {
            addressing.push((instr.memory_base().full_register(), 1));
        }
        if instr.memory_index() != Register::None {
            addressing.push((
                instr.memory_index().full_register(),
                instr.memory_index_scale(),
            ));
        }
    }
    (step, compared, addressing)
}

fn frames(context: &addr2line::Context<Reader>, address: u64) -> Vec<Frame> {
    let mut out = Vec::new();
    let Ok(mut iter) = context.find_frames(address).skip_all_loads() else {
        return out;
    };
    while let Ok(Some(frame)) = iter.next() {
        let function = frame
            .function
            .as_ref()
            .and_then(|f| f.demangle().ok().map(|s| s.into_owned()));
        let position = frame.location.and_then(|l| {
            Some(SourceLine {
                file: l.file?.to_string(),
                line: l.line?,
                column: l.column.unwrap_or(0),
            })
        });
        out.push(Frame { function, position });
    }
    out
}

fn demangle(symbol: &str) -> String {
    addr2line::demangle(symbol, gimli::DW_LANG_C_plus_plus).unwrap_or_else(|| symbol.to_string())
}

/// How far a function's prologue moves `rsp` down before its body: its leading pushes and
/// `sub rsp, imm` (an `rsp` step, `Instruction::step`); moves, `lea` and `endbr64` between
/// them that leave `rsp` alone are passed over. clang without a frame pointer gives stack
/// parameters' places from `rsp` after them.
fn prologue_bytes(instructions: &[Instruction]) -> i64 {
    use iced_x86::Register;
    let mut bytes: i64 = 0;
    for i in instructions.iter().take(24) {
        let passes_over = matches!(
            i.mnemonic,
            Mnemonic::Endbr64 | Mnemonic::Mov | Mnemonic::Movaps | Mnemonic::Movups | Mnemonic::Lea
        ) && !i.writes.contains(&Register::RSP);
        match (i.mnemonic, i.step) {
            (Mnemonic::Push, _) => bytes = bytes.saturating_add(8),
            (_, Some((Register::RSP, down))) if down < 0 => bytes = bytes.saturating_sub(down),
            _ if passes_over => {}
            _ => break,
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> iced_x86::Instruction {
        iced_x86::Decoder::new(64, bytes, iced_x86::DecoderOptions::NONE).decode()
    }

    /// A `cmp` against a register and one against a stack slot (gcc's cost-model test,
    /// `cmpl $0xd, 0x40(%rsp)`): both give their constant; only the register form is a
    /// guard's threshold. A `cmp` of two registers has none.
    #[test]
    fn compare_constants_of_registers_and_memory() {
        let register = decode(&[0x83, 0xf8, 0x05]);
        let memory = decode(&[0x83, 0x7c, 0x24, 0x40, 0x0d]);
        let registers = decode(&[0x39, 0xc8]);
        assert_eq!(compare_constant(&register), Some(5));
        assert_eq!(guard_operands(&register).0, Some(5));
        assert_eq!(compare_constant(&memory), Some(13));
        assert_eq!(guard_operands(&memory).0, None);
        assert_eq!(compare_constant(&registers), None);
    }
}
