//! A small x86-64 interpreter over integer registers, SSE lanes (integer and floating point),
//! the stack and the flags, for reading the induction variables of loop copies (issue 12
//! item 3: "read each loop's induction variable (start, step, exit compare) from the machine
//! code") and for running `main` to learn the odds of branches on data. Values it cannot know
//! (array contents, unmodelled instructions) are unknown, and a branch that tests an unknown
//! value stops the run: the reading then falls back to the older rules.

mod float;
mod lanes;
mod library;
mod memory;
#[cfg(all(test, target_arch = "x86_64"))]
mod on_the_cpu;
mod vex;
mod ymm;

pub use library::Library;

use std::collections::{BTreeMap, HashMap};

use iced_x86::{ConditionCode, FlowControl, Instruction, Mnemonic, OpKind, Register};

use crate::binary::is_repeated_string;

/// Where the stack starts (any address far from the arrays the run is given).
pub const STACK_TOP: u64 = 0x7fff_0000_0000;

/// What the last flag-setting instruction left: enough for the conditions a loop exit tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flags {
    /// `cmp a, b` / `sub`: the flags of `a - b` at `bits`.
    Sub {
        a: i64,
        b: i64,
        bits: u32,
    },
    /// `test`/`and`/`or`/`xor`: result, carry and overflow clear.
    Logic {
        r: i64,
        bits: u32,
    },
    /// `add`/`inc`/`dec`/`neg`: result, and for `add` of two known values its carry and
    /// overflow (clang counts down with `add $-4, ecx; jb`).
    Add {
        r: i64,
        bits: u32,
        carry: Option<bool>,
        overflow: Option<bool>,
    },
    /// `shl`/`shr`/`sar` by a nonzero count: the result's zero and sign flags (the carry is
    /// the last bit shifted out, not kept).
    Shift {
        r: i64,
        bits: u32,
    },
    /// `ucomisd`/`comiss`...: ZF, PF and CF of a floating-point compare (OF and SF clear).
    Float {
        zero: bool,
        parity: bool,
        carry: bool,
    },
    Unknown,
}

/// A register's value and which of its bits are known: `setb bl` on an unknown `rbx` knows
/// `bl`, which is all the compiler reads of it.
#[derive(Debug, Clone, Copy)]
struct Bits {
    value: i64,
    known: u64,
}

impl Bits {
    fn full(value: i64) -> Bits {
        Bits {
            value,
            known: u64::MAX,
        }
    }
}

impl Bits {
    const UNKNOWN: Bits = Bits { value: 0, known: 0 };
}

/// What is known of each full register, indexed by its `iced_x86::Register` number. Every
/// operand reads one, so a hashed map spent half of a run hashing (`perf`, ludcmp at gcc -O3).
#[derive(Debug, Clone)]
struct ByRegister<T>(Box<[Option<T>; REGISTERS]>);

/// `iced_x86::Register`'s variants (its `REGISTER_ENUM_COUNT`).
const REGISTERS: usize = 256;

impl<T: Copy> ByRegister<T> {
    fn new() -> ByRegister<T> {
        ByRegister(Box::new([None; REGISTERS]))
    }

    fn get(&self, full: Register) -> Option<T> {
        *self.0.get(full as usize)?
    }

    fn set(&mut self, full: Register, v: Option<T>) {
        if let Some(slot) = self.0.get_mut(full as usize) {
            *slot = v;
        }
    }

    fn clear(&mut self) {
        self.0.fill(None);
    }

    fn iter(&self) -> impl Iterator<Item = (Register, T)> + '_ {
        Register::values().filter_map(|r| Some((r, self.get(r)?)))
    }
}

/// Registers (full width), stack bytes and flags; an absent register is unknown.
#[derive(Debug, Clone)]
pub struct Machine {
    /// Known general registers; `known` is never 0.
    regs: ByRegister<Bits>,
    /// Known XMM registers (by full register), their bits and which are known: see [`lanes`].
    vectors: ByRegister<lanes::Lanes>,
    /// Bits 128-255 of the vector registers (AVX's YMM), apart: SSE code never reads them.
    upper: ByRegister<lanes::Lanes>,
    /// Known bytes: the stack, the arguments and `.rodata` constants.
    memory: memory::Memory,
    pub flags: Flags,
    /// Address of the instruction that set `flags` (the exit compare).
    pub flags_from: u64,
    /// The next region an allocation returns, and whether they descend.
    heap: (u64, bool),
    /// Whether the values stored into the regions the run allocated stay known (a run of the
    /// whole program). Elsewhere they are data, as a kernel's arrays are: a `main` that fills
    /// its arrays and then runs a kernel inlined into it has branches on data there, whose
    /// counts no combination of the sizes fits. Pointers stored there stay known (the rows
    /// of a `double **`).
    pub allocated_data: bool,
}

fn mask(v: i64, bits: u32) -> i64 {
    if bits >= 64 {
        v
    } else {
        v & ((1i64 << bits) - 1)
    }
}

fn signed(v: i64, bits: u32) -> i64 {
    if bits >= 64 {
        v
    } else {
        let shift = 64 - bits;
        (v << shift) >> shift
    }
}

fn is_immediate(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Immediate8
            | OpKind::Immediate8_2nd
            | OpKind::Immediate16
            | OpKind::Immediate32
            | OpKind::Immediate64
            | OpKind::Immediate8to16
            | OpKind::Immediate8to32
            | OpKind::Immediate8to64
            | OpKind::Immediate32to64
    )
}

const CALLER_SAVED: [Register; 9] = [
    Register::RAX,
    Register::RCX,
    Register::RDX,
    Register::RSI,
    Register::RDI,
    Register::R8,
    Register::R9,
    Register::R10,
    Register::R11,
];

/// System V argument registers, in order.
pub const ARGUMENTS: [Register; 6] = [
    Register::RDI,
    Register::RSI,
    Register::RDX,
    Register::RCX,
    Register::R8,
    Register::R9,
];

/// Registers that are neither arguments nor the stack pointer at a function's entry.
const ENTRY_GARBAGE: [Register; 9] = [
    Register::RAX,
    Register::RBX,
    Register::RBP,
    Register::R10,
    Register::R11,
    Register::R12,
    Register::R13,
    Register::R14,
    Register::R15,
];

fn is_cmovcc(m: Mnemonic) -> bool {
    use Mnemonic as M;
    matches!(
        m,
        M::Cmova
            | M::Cmovae
            | M::Cmovb
            | M::Cmovbe
            | M::Cmove
            | M::Cmovg
            | M::Cmovge
            | M::Cmovl
            | M::Cmovle
            | M::Cmovne
            | M::Cmovno
            | M::Cmovnp
            | M::Cmovns
            | M::Cmovo
            | M::Cmovp
            | M::Cmovs
    )
}

fn is_setcc(m: Mnemonic) -> bool {
    use Mnemonic as M;
    matches!(
        m,
        M::Seta
            | M::Setae
            | M::Setb
            | M::Setbe
            | M::Sete
            | M::Setg
            | M::Setge
            | M::Setl
            | M::Setle
            | M::Setne
            | M::Setno
            | M::Setnp
            | M::Setns
            | M::Seto
            | M::Setp
            | M::Sets
    )
}

/// Operand `k` of `i` is a general-purpose register other than a high byte (`ah`...).
fn is_gpr_operand(i: &Instruction, k: u32) -> bool {
    i.op_kind(k) == OpKind::Register && i.op_register(k).is_gpr() && !is_high_byte(i.op_register(k))
}

fn is_high_byte(r: Register) -> bool {
    matches!(r, Register::AH | Register::BH | Register::CH | Register::DH)
}

/// Where control goes after a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// To this address (inside the function or, for a tail call, outside it).
    Goto(u64),
    /// The function returned.
    Return,
    /// The run cannot go on: a branch on an unknown value, an indirect jump, a trap.
    Stop,
}

/// A function of the same binary that runs enter, with its CFG.
pub struct Callee<'a> {
    pub function: &'a crate::binary::Function,
    pub cfg: crate::cfg::Cfg,
    by_start: HashMap<u64, usize>,
}

impl<'a> Callee<'a> {
    pub fn new(function: &'a crate::binary::Function) -> Callee<'a> {
        let cfg = crate::cfg::Cfg::build(function);
        let by_start = cfg.blocks_by_start();
        Callee {
            function,
            cfg,
            by_start,
        }
    }
}

/// What a run knows of the functions it calls. Without it a call leaves the caller-saved
/// registers unknown, and a branch on its result stops the run (box_separable's `imin`).
#[derive(Default)]
pub struct Callees<'a> {
    /// Call targets (PLT stubs) of the C library functions whose effect a run follows.
    pub library: BTreeMap<u64, Library>,
    /// Functions of the same binary, by entry address, that a run enters.
    pub enter: HashMap<u64, Callee<'a>>,
    /// For a run of a whole program (`calibrate::program_run`): the entered functions'
    /// block visits, counted within an instruction budget instead of [`CALL_BUDGET`].
    pub tally: Option<std::cell::RefCell<Tally>>,
}

/// Block visits of a program run, by block start, and what is left of its budget.
#[derive(Debug, Default)]
pub struct Tally {
    pub visits: HashMap<u64, u64>,
    /// Instructions the run may still execute.
    pub budget: usize,
    /// An entered function stopped (a branch on an unknown value) or went over the budget:
    /// the visits are not the program's.
    pub stopped: bool,
}

impl Tally {
    /// Counts a visit of `block`; false (and stopped) past the budget.
    pub fn visit(&mut self, block: &crate::cfg::BasicBlock) -> bool {
        let n = block.end - block.first;
        match self.budget.checked_sub(n) {
            Some(left) if !self.stopped => {
                self.budget = left;
                *self.visits.entry(block.start).or_default() += 1;
                true
            }
            _ => {
                self.stopped = true;
                false
            }
        }
    }
}

/// Blocks one call may run before it counts as not returning (a callee with loops of its
/// own is not what this is for).
const CALL_BUDGET: usize = 10_000;
/// Calls within entered calls (recursion stops here).
const CALL_DEPTH: usize = 4;

impl Machine {
    /// Executes a block (004's basic block of the binary), and says where control goes.
    pub fn run_block(
        &mut self,
        function: &crate::binary::Function,
        block: &crate::cfg::BasicBlock,
        callees: &Callees,
    ) -> Flow {
        self.run_block_at(function, block, callees, 0)
    }

    fn run_block_at(
        &mut self,
        function: &crate::binary::Function,
        block: &crate::cfg::BasicBlock,
        callees: &Callees,
        depth: usize,
    ) -> Flow {
        let Some(last) = block
            .end
            .checked_sub(1)
            .and_then(|l| function.instructions.get(l))
        else {
            return Flow::Stop;
        };
        for ins in block.code(function) {
            let next = ins.address + u64::from(ins.length);
            let goto = |t: Option<u64>| t.map_or(Flow::Stop, Flow::Goto);
            match ins.flow {
                FlowControl::Call => {
                    self.call(ins, callees, depth);
                    if ins.address == last.address {
                        return Flow::Goto(next);
                    }
                }
                FlowControl::Next => {
                    self.execute(ins);
                    if ins.address == last.address {
                        return Flow::Goto(next);
                    }
                }
                FlowControl::UnconditionalBranch => return goto(ins.target),
                FlowControl::ConditionalBranch if is_repeated_string(&ins.decoded) => {
                    return self.repeat_string(ins);
                }
                FlowControl::ConditionalBranch => {
                    return match self.condition(ins.decoded.condition_code()) {
                        Some(true) => goto(ins.target),
                        Some(false) => Flow::Goto(next),
                        None => Flow::Stop,
                    };
                }
                FlowControl::Return => return Flow::Return,
                _ => return Flow::Stop,
            }
        }
        Flow::Stop
    }

    /// One pass of a `rep` string instruction, as valgrind runs it (and callgrind counts it,
    /// `rcx + 1` times): with `rcx` zero it goes on; otherwise one element, `rcx - 1`, and the
    /// instruction again. The direction flag
    /// is taken as clear (its state at every call, System V ABI 3.2.1).
    fn repeat_string(&mut self, ins: &crate::binary::Instruction) -> Flow {
        let next = ins.address + u64::from(ins.length);
        let Some(count) = self.register(Register::RCX) else {
            return Flow::Stop;
        };
        if count == 0 {
            return Flow::Goto(next);
        }
        let i = &ins.decoded;
        let bytes = i.memory_size().size() as u32;
        let accumulator = match bytes {
            1 => Register::AL,
            2 => Register::AX,
            4 => Register::EAX,
            _ => Register::RAX,
        };
        let (source, destination) = (self.register(Register::RSI), self.register(Register::RDI));
        let value = match i.mnemonic() {
            Mnemonic::Stosb | Mnemonic::Stosw | Mnemonic::Stosd | Mnemonic::Stosq => {
                self.register(accumulator)
            }
            _ => source.and_then(|s| self.load(s as u64, bytes)),
        };
        let lods = matches!(
            i.mnemonic(),
            Mnemonic::Lodsb | Mnemonic::Lodsw | Mnemonic::Lodsd | Mnemonic::Lodsq
        );
        let step = i64::from(bytes);
        match lods {
            true => self.set_register(accumulator, value),
            false => {
                let Some(d) = destination else {
                    return Flow::Stop;
                };
                match value {
                    Some(v) => self.store(d as u64, v, bytes),
                    None => self.forget(d as u64, bytes),
                }
                self.set_register(Register::RDI, Some(d.wrapping_add(step)));
            }
        }
        let movs = matches!(
            i.mnemonic(),
            Mnemonic::Movsb | Mnemonic::Movsw | Mnemonic::Movsd | Mnemonic::Movsq
        );
        if movs || lods {
            self.set_register(Register::RSI, source.map(|s| s.wrapping_add(step)));
        }
        self.set_register(Register::RCX, Some(count - 1));
        Flow::Goto(ins.address)
    }

    /// A call: entered when the callee is known, otherwise its effect on the registers.
    fn call(&mut self, ins: &crate::binary::Instruction, callees: &Callees, depth: usize) {
        let target = ins.target.unwrap_or(u64::MAX);
        if let Some(t) = callees.tally.as_ref() {
            // A program run must count every call it makes into the binary.
            if depth >= CALL_DEPTH && callees.enter.contains_key(&target) {
                t.borrow_mut().stopped = true;
            }
        }
        if depth < CALL_DEPTH {
            if let Some(callee) = callees.enter.get(&target) {
                let before = self.clone();
                if self.enter(ins, callee, callees, depth + 1) {
                    return;
                }
                *self = before;
            }
        }
        let args = library::Arguments {
            integers: [Register::RDI, Register::RSI, Register::RDX].map(|r| self.register(r)),
            floats: [Register::XMM0, Register::XMM1].map(|r| self.vector(r)),
        };
        self.execute(ins);
        if let Some(&f) = callees.library.get(&target) {
            self.library_call(f, &args, callees.tally.is_some());
        }
    }

    /// Runs `callee` from its entry to its return on this machine; false when it stops.
    fn enter(
        &mut self,
        ins: &crate::binary::Instruction,
        callee: &Callee,
        callees: &Callees,
        depth: usize,
    ) -> bool {
        let Some(sp) = self.register(Register::RSP).map(|s| s.wrapping_sub(8)) else {
            return false;
        };
        self.set_register(Register::RSP, Some(sp));
        self.store(sp as u64, (ins.address + u64::from(ins.length)) as i64, 8);
        let mut b = callee.by_start.get(&callee.function.address).copied();
        let tally = callees.tally.as_ref();
        let stop = || {
            tally.inspect(|t| t.borrow_mut().stopped = true);
            false
        };
        let blocks = if tally.is_some() {
            usize::MAX
        } else {
            CALL_BUDGET
        };
        for _ in 0..blocks {
            let Some(block) = b.map(|b| &callee.cfg.blocks[b]) else {
                return stop();
            };
            if tally.is_some_and(|t| !t.borrow_mut().visit(block)) {
                return false;
            }
            match self.run_block_at(callee.function, block, callees, depth) {
                Flow::Return => {
                    // `ret` pops the return address the call pushed.
                    let top = self.register(Register::RSP).unwrap_or(sp);
                    self.set_register(Register::RSP, Some(top.wrapping_add(8)));
                    self.flags = Flags::Unknown;
                    return true;
                }
                Flow::Goto(next) => b = callee.by_start.get(&next).copied(),
                Flow::Stop => {
                    if tally.is_some() && std::env::var_os("METRON_CALIBRATE_TRACE").is_some() {
                        eprintln!(
                            "program run: {} stops in block {:#x}",
                            callee.function.name, block.start
                        );
                    }
                    return stop();
                }
            }
        }
        stop()
    }

    /// A machine at a function's entry with its integer arguments in registers and, past
    /// the sixth, on the stack.
    pub fn at_entry(arguments: &[i64]) -> Machine {
        let mut m = Machine {
            regs: ByRegister::new(),
            vectors: ByRegister::new(),
            upper: ByRegister::new(),
            memory: memory::Memory::default(),
            flags: Flags::Unknown,
            flags_from: 0,
            heap: (library::HEAP_START, false),
            allocated_data: false,
        };
        // The other registers hold the caller's values: some value, not an unknown one, so
        // that `setg r12b; test r12b, r12b` on a callee-saved register is followed (the
        // compiler reads only the byte it wrote). Correct code never branches on the rest.
        for (k, r) in ENTRY_GARBAGE.iter().enumerate() {
            m.regs
                .set(*r, Some(Bits::full(0x5eed_0000 + 0x100 * k as i64)));
        }
        m.regs
            .set(Register::RSP, Some(Bits::full(STACK_TOP as i64)));
        m.store(STACK_TOP, 0x4000_0000, 8);
        for (r, v) in ARGUMENTS.iter().zip(arguments) {
            m.regs.set(*r, Some(Bits::full(*v)));
        }
        // The seventh integer argument on is passed on the stack, above the return address
        // (System V ABI 3.2.3).
        for (k, v) in arguments.iter().skip(ARGUMENTS.len()).enumerate() {
            m.store(STACK_TOP + 8 * (k as u64 + 1), *v, 8);
        }
        m
    }

    /// Where two ways through a branch on data meet: what both know alike stays known, and
    /// a value the ways left different (`x = c` on one, `x = a[i]` or another `c` on the
    /// other) is unknown from here on, as the data chose it.
    pub fn join(&mut self, other: &Machine) {
        for r in Register::values() {
            let both = self.regs.get(r).zip(other.regs.get(r));
            let known = both.map(|(a, b)| Bits {
                value: a.value,
                known: a.known & b.known & !((a.value ^ b.value) as u64),
            });
            self.regs.set(r, known.filter(|k| k.known != 0));
            if self.vectors.get(r).is_some() && self.vectors.get(r) != other.vectors.get(r) {
                self.vectors.set(r, None);
            }
            if self.upper.get(r).is_some() && self.upper.get(r) != other.upper.get(r) {
                self.upper.set(r, None);
            }
        }
        self.memory.join(&other.memory);
        if self.flags != other.flags {
            self.flags = Flags::Unknown;
        }
    }

    /// Value of a general-purpose register at its own width (`eax`: the low 32 bits).
    pub fn register(&self, r: Register) -> Option<i64> {
        if !r.is_gpr() || is_high_byte(r) {
            return None;
        }
        let bits = r.size() as u32 * 8;
        let width = mask(-1, bits) as u64;
        let b = self.regs.get(r.full_register())?;
        (b.known & width == width).then_some(mask(b.value, bits))
    }

    /// The fully known general-purpose registers (full width) and their values.
    pub fn registers(&self) -> impl Iterator<Item = (Register, i64)> + '_ {
        self.regs
            .iter()
            .filter(|(_, b)| b.known == u64::MAX)
            .map(|(r, b)| (r, b.value))
    }

    fn set_register(&mut self, r: Register, v: Option<i64>) {
        self.set_register_bits(r, v.map_or(Bits::UNKNOWN, Bits::full));
    }

    /// Writes `v` (at `r`'s width) to `r`, bit by bit known.
    fn set_register_bits(&mut self, r: Register, v: Bits) {
        let full = r.full_register();
        let bits = r.size() as u32 * 8;
        let b = match bits {
            64 => v,
            // 32-bit writes zero the upper half, whatever the value.
            32 => Bits {
                value: mask(v.value, 32),
                known: v.known | !(u32::MAX as u64),
            },
            // 8- and 16-bit writes keep the rest of the register, known or not.
            _ if r.is_gpr8() || r.is_gpr16() => {
                let shift = if is_high_byte(r) { 8 } else { 0 };
                let field = (mask(-1, bits) as u64) << shift;
                let old = self.regs.get(full).unwrap_or(Bits::UNKNOWN);
                Bits {
                    value: ((old.value as u64 & !field) | ((v.value as u64) << shift & field))
                        as i64,
                    known: (old.known & !field) | ((v.known << shift) & field),
                }
            }
            _ => Bits::UNKNOWN,
        };
        self.regs.set(full, (b.known != 0).then_some(b));
    }

    /// The 8 bytes at the stack pointer, which moves past them.
    fn pop(&mut self) -> Option<i64> {
        let sp = self.register(Register::RSP);
        let v = sp.and_then(|s| self.load(s as u64, 8));
        self.set_register(Register::RSP, sp.map(|s| s.wrapping_add(8)));
        v
    }

    /// What is known of register `r`'s bits at its own width (none of a high-byte register).
    fn register_bits(&self, r: Register) -> Bits {
        if !r.is_gpr() || is_high_byte(r) {
            return Bits::UNKNOWN;
        }
        let width = mask(-1, r.size() as u32 * 8) as u64;
        let b = self.regs.get(r.full_register()).unwrap_or(Bits::UNKNOWN);
        Bits {
            value: b.value & width as i64,
            known: b.known & width,
        }
    }

    /// What is known of operand `k`'s bits at its width: a register, an immediate, or up to
    /// 8 bytes of memory, byte by byte.
    fn operand_bits(&self, i: &Instruction, k: u32) -> Bits {
        match i.op_kind(k) {
            OpKind::Register => self.register_bits(i.op_register(k)),
            OpKind::Memory if i.memory_size().size() <= 8 => {
                let bytes = i.memory_size().size() as u32;
                let Some(a) = self.address(i) else {
                    return Bits::UNKNOWN;
                };
                let (value, known) = self.memory.load_known(a, bytes);
                Bits {
                    value: value as i64,
                    known,
                }
            }
            kind if is_immediate(kind) => Bits::full(i.immediate(k) as i64),
            _ => Bits::UNKNOWN,
        }
    }

    /// Stores the bytes of `v` that are known at `address` and forgets the rest.
    fn store_known(&mut self, address: u64, v: Bits, bytes: u32) {
        for k in 0..bytes.min(8) {
            let byte = (v.known >> (8 * k)) & 0xff == 0xff;
            let value = byte.then_some((v.value as u64 >> (8 * k)) & 0xff);
            self.store_bytes(address.wrapping_add(u64::from(k)), value, 1);
        }
    }

    /// The low 8 of `bytes` at `address`, when all `bytes` are known.
    fn load(&self, address: u64, bytes: u32) -> Option<i64> {
        for k in (8..bytes).step_by(8) {
            self.memory
                .load(address.wrapping_add(u64::from(k)), (bytes - k).min(8))?;
        }
        self.memory.load(address, bytes.min(8)).map(|v| v as i64)
    }

    /// Writes the low `bytes` of `v` at `address` (little-endian).
    pub fn store(&mut self, address: u64, v: i64, bytes: u32) {
        self.store_bytes(address, Some(v as u64), bytes);
    }

    fn forget(&mut self, address: u64, bytes: u32) {
        self.store_bytes(address, None, bytes);
    }

    /// What a store of `v` (`bytes` wide) at `address` leaves known: see
    /// [`Machine::allocated_data`].
    fn kept(&self, address: u64, v: Option<u64>, bytes: u32) -> Option<u64> {
        if self.allocated_data || !library::is_allocated(address) {
            return v;
        }
        v.filter(|&v| bytes == 8 && library::is_allocated(v))
    }

    /// Stores (or forgets) any number of bytes; past 8 the value's bytes are zero.
    fn store_bytes(&mut self, address: u64, v: Option<u64>, bytes: u32) {
        let v = self.kept(address, v, bytes);
        for k in (0..bytes).step_by(8) {
            let part = v.map(|v| if k == 0 { v } else { 0 });
            let at = address.wrapping_add(u64::from(k));
            self.memory.store(at, part, (bytes - k).min(8));
        }
    }

    /// The effective address of the instruction's memory operand (`lea`'s value).
    fn address(&self, i: &Instruction) -> Option<u64> {
        if i.is_ip_rel_memory_operand() {
            return Some(i.ip_rel_memory_address());
        }
        let base = match i.memory_base() {
            Register::None => 0,
            b => self.register(b)?,
        };
        let index = match i.memory_index() {
            Register::None => 0,
            x => self
                .register(x)?
                .wrapping_mul(i64::from(i.memory_index_scale())),
        };
        let a = base
            .wrapping_add(index)
            .wrapping_add(i.memory_displacement64() as i64);
        Some(match i.memory_size().size() {
            _ if i.memory_base().size() == 4 => mask(a, 32) as u64,
            _ => a as u64,
        })
    }

    /// Operand `k` at its width: (value, bits).
    fn read(&self, i: &Instruction, k: u32) -> (Option<i64>, u32) {
        match i.op_kind(k) {
            OpKind::Register => {
                let r = i.op_register(k);
                (self.register(r), r.size() as u32 * 8)
            }
            OpKind::Memory => {
                let bytes = i.memory_size().size() as u32;
                let v = self.address(i).and_then(|a| self.load(a, bytes));
                (v, bytes * 8)
            }
            kind if is_immediate(kind) => (Some(i.immediate(k) as i64), 64),
            _ => (None, 64),
        }
    }

    /// Operand `k`'s value, if known.
    pub fn operand(&self, i: &Instruction, k: u32) -> Option<i64> {
        self.read(i, k).0
    }

    fn write(&mut self, i: &Instruction, k: u32, v: Option<i64>) {
        match i.op_kind(k) {
            OpKind::Register => self.set_register(i.op_register(k), v),
            OpKind::Memory => {
                let bytes = i.memory_size().size() as u32;
                match (self.address(i), v) {
                    (Some(a), Some(v)) => self.store(a, v, bytes),
                    (Some(a), None) => self.forget(a, bytes),
                    // A store through an unknown pointer: never the stack in compiled loops.
                    (None, _) => {}
                }
            }
            _ => {}
        }
    }

    /// Whether the condition of `jcc`/`cmovcc`/`setcc` holds; `None` when the flags are not known.
    pub fn condition(&self, code: ConditionCode) -> Option<bool> {
        use ConditionCode as C;
        // PF: an even number of ones in the result's low byte.
        let even = |r: i64| (r as u8).count_ones() % 2 == 0;
        let (zero, negative, less, below, parity) = match self.flags {
            Flags::Sub { a, b, bits } => {
                let (sa, sb) = (signed(a, bits), signed(b, bits));
                let (ua, ub) = (mask(a, bits) as u64, mask(b, bits) as u64);
                let d = signed(a.wrapping_sub(b), bits);
                (ua == ub, d < 0, Some(sa < sb), Some(ua < ub), even(d))
            }
            Flags::Logic { r, bits } => {
                let r = signed(r, bits);
                (r == 0, r < 0, Some(r < 0), Some(false), even(r))
            }
            Flags::Add {
                r,
                bits,
                carry,
                overflow,
            } => {
                let r = signed(r, bits);
                let less = Some((r < 0) != overflow.unwrap_or(false));
                (r == 0, r < 0, less, carry, even(r))
            }
            Flags::Shift { r, bits } => {
                let r = signed(r, bits);
                (r == 0, r < 0, None, None, even(r))
            }
            Flags::Float {
                zero,
                parity,
                carry,
            } => (zero, false, Some(false), Some(carry), parity),
            Flags::Unknown => return None,
        };
        Some(match code {
            C::e => zero,
            C::ne => !zero,
            C::s => negative,
            C::ns => !negative,
            C::l => less?,
            C::ge => !less?,
            C::le => less? || zero,
            C::g => !less? && !zero,
            C::b => below?,
            C::ae => !below?,
            C::be => below? || zero,
            C::a => !below? && !zero,
            C::p => parity,
            C::np => !parity,
            _ => return None,
        })
    }

    /// Executes one instruction that does not transfer control (calls clobber the
    /// caller-saved registers).
    pub fn execute(&mut self, ins: &crate::binary::Instruction) {
        let i = &ins.decoded;
        let (before, from) = (self.flags, self.flags_from);
        let carry = self.condition(ConditionCode::b);
        self.flags = Flags::Unknown;
        self.flags_from = i.ip();
        // VEX first: `lanes` forgets the destination of what it does not follow, and a VEX
        // form's first source may be that register.
        if !self.vex(i)
            && !self.arithmetic(i, carry)
            && !self.moves(i, before)
            && !self.float(i)
            && !self.lanes(i)
        {
            self.clobber(ins);
        }
        // Moves, `lea`, `cmov`, `set` and pushes leave the flags as they were.
        if i.rflags_modified() == 0 {
            (self.flags, self.flags_from) = (before, from);
        }
    }

    /// Binary and unary integer arithmetic (`carry`: the flag `adc`/`sbb` read); false when
    /// `i` is none of it.
    fn arithmetic(&mut self, i: &Instruction, carry: Option<bool>) -> bool {
        use Mnemonic as M;
        let m = i.mnemonic();
        // Decided before the operands are read: most instructions of a vectorised body are
        // not integer arithmetic, and reading a memory operand costs a lookup.
        let integer = matches!(
            m,
            M::Cmp | M::Sub | M::Test | M::And | M::Xor | M::Or | M::Add | M::Sbb | M::Adc
        ) || matches!(
            m,
            M::Inc | M::Dec | M::Neg | M::Not | M::Shl | M::Sar | M::Shr
        ) || (m == M::Imul && i.op_count() > 1);
        if !integer {
            return false;
        }
        let (a, bits) = self.read(i, 0);
        let b = (i.op_count() > 1).then(|| self.read(i, 1).0).flatten();
        let same = i.op_count() > 1
            && i.op0_kind() == OpKind::Register
            && i.op1_kind() == OpKind::Register
            && i.op0_register() == i.op1_register();
        let r = match m {
            M::Cmp | M::Sub => match (a, b) {
                (Some(a), Some(b)) => {
                    self.flags = Flags::Sub { a, b, bits };
                    Some(a.wrapping_sub(b))
                }
                _ if same && m == M::Sub => Some(0),
                _ => None,
            },
            M::Test | M::And => a.zip(b).map(|(a, b)| a & b),
            M::Xor if same => Some(0),
            M::Or => a.zip(b).map(|(a, b)| a | b),
            M::Xor => a.zip(b).map(|(a, b)| a ^ b),
            M::Add => a.zip(b).map(|(a, b)| a.wrapping_add(b)),
            // `cmp $1, esi; sbb eax, eax`: -1 when `esi` is 0, else 0 (a branch-free `min`).
            M::Sbb if same => carry.map(|c| -i64::from(c)),
            M::Sbb => a
                .zip(b)
                .zip(carry)
                .map(|((a, b), c)| a.wrapping_sub(b).wrapping_sub(i64::from(c))),
            M::Adc => a
                .zip(b)
                .zip(carry)
                .map(|((a, b), c)| a.wrapping_add(b).wrapping_add(i64::from(c))),
            M::Inc => a.map(|a| a.wrapping_add(1)),
            M::Dec => a.map(|a| a.wrapping_sub(1)),
            M::Neg => a.map(|a| a.wrapping_neg()),
            M::Not => a.map(|a| !a),
            M::Shl | M::Sar | M::Shr => shift(m, a, b.or((i.op_count() == 1).then_some(1)), bits),
            M::Imul if i.op_count() == 3 => {
                let c = self.read(i, 1).0.zip(self.read(i, 2).0);
                c.map(|(x, y)| x.wrapping_mul(y))
            }
            M::Imul if i.op_count() == 2 => a.zip(b).map(|(a, b)| a.wrapping_mul(b)),
            _ => return false,
        };
        if r.is_none() && self.partial_bits(i) {
            return true;
        }
        if let Some(r) = r {
            match m {
                M::Cmp | M::Sub => {}
                M::Test | M::And | M::Or | M::Xor => self.flags = Flags::Logic { r, bits },
                // A shift by zero leaves the flags as they were (not modelled: unknown).
                M::Shl | M::Sar | M::Shr if shift_count(i, b) != Some(0) => {
                    self.flags = Flags::Shift {
                        r: mask(r, bits),
                        bits,
                    }
                }
                M::Add | M::Inc | M::Dec | M::Neg => {
                    let (carry, overflow) = match (m, a, b) {
                        (M::Add, Some(a), Some(b)) => add_carry_overflow(a, b, bits),
                        _ => (None, None),
                    };
                    self.flags = Flags::Add {
                        r,
                        bits,
                        carry,
                        overflow,
                    }
                }
                _ => {}
            }
        }
        if !matches!(m, M::Cmp | M::Test) {
            self.write(i, 0, r);
        }
        true
    }

    /// `and`/`or`/`xor`/`test`/`add`/`sub` bit by bit where an operand is only partly known:
    /// gcc's alias test `setae cl; or ecx, r13d; test r13b, r13b` reads only the low byte,
    /// which the `set`s made known whatever `ecx`'s upper bits were. False when `i` is none
    /// of these on a register (the flags stay unknown: a partial result sets none of them).
    fn partial_bits(&mut self, i: &Instruction) -> bool {
        use Mnemonic as M;
        let m = i.mnemonic();
        let logic = matches!(m, M::And | M::Or | M::Xor | M::Test | M::Add | M::Sub);
        if !logic || i.op0_kind() != OpKind::Register {
            return false;
        }
        let a = self.register_bits(i.op0_register());
        let b = match i.op1_kind() {
            OpKind::Register => self.register_bits(i.op1_register()),
            kind if is_immediate(kind) => Bits::full(i.immediate(1) as i64),
            _ => return false,
        };
        let (x, y) = (a.value as u64, b.value as u64);
        let (value, known) = match m {
            // A known 1 decides `or`, a known 0 decides `and`.
            M::Or => (x | y, (a.known & b.known) | (a.known & x) | (b.known & y)),
            M::And | M::Test => (x & y, (a.known & b.known) | (a.known & !x) | (b.known & !y)),
            // A carry or borrow runs upward only: the low bits known in both are known.
            M::Add | M::Sub => {
                let low = (!(a.known & b.known)).trailing_zeros();
                let known = u64::MAX.checked_shr(64 - low).unwrap_or(0);
                let r = if m == M::Add {
                    x.wrapping_add(y)
                } else {
                    x.wrapping_sub(y)
                };
                (r, known)
            }
            _ => (x ^ y, a.known & b.known),
        };
        if m != M::Test {
            let bits = Bits {
                value: (value & known) as i64,
                known,
            };
            self.set_register_bits(i.op0_register(), bits);
        }
        true
    }

    /// `idiv`/`div` of `edx:eax` (`rdx:rax`) by the operand: quotient in `eax`, remainder in
    /// `edx`. A dividend beyond the low half's range, or a zero divisor, leaves both unknown
    /// (the hardware would fault; the runs cannot follow).
    fn divide(&mut self, i: &Instruction) {
        let (divisor, bits) = self.read(i, 0);
        let Some((lo, hi)) = self.double_width(bits) else {
            return;
        };
        let signed_op = i.mnemonic() == Mnemonic::Idiv;
        let result = (|| {
            let (low, high, d) = (self.register(lo)?, self.register(hi)?, divisor?);
            let (low, d) = if signed_op {
                (signed(low, bits), signed(d, bits))
            } else {
                (low, d)
            };
            // The high half must be the low half's sign (or zero): a true 2n-bit dividend
            // needs wider arithmetic than the runs do.
            let extension = if signed_op && low < 0 {
                mask(-1, bits)
            } else {
                0
            };
            if high != extension || d == 0 {
                return None;
            }
            if signed_op {
                Some((low.checked_div(d)?, low.checked_rem(d)?))
            } else {
                let (u, v) = (low as u64, d as u64);
                Some(((u / v) as i64, (u % v) as i64))
            }
        })();
        self.set_register(lo, result.map(|r| r.0));
        self.set_register(hi, result.map(|r| r.1));
    }

    /// The low and high halves of a double-width operand of `bits` bits (`rax`/`rdx`,
    /// `eax`/`edx`); at other widths (not modelled) both become unknown.
    fn double_width(&mut self, bits: u32) -> Option<(Register, Register)> {
        match bits {
            64 => Some((Register::RAX, Register::RDX)),
            32 => Some((Register::EAX, Register::EDX)),
            _ => {
                self.set_register(Register::RAX, None);
                self.set_register(Register::RDX, None);
                None
            }
        }
    }

    /// `rdx:rax = rax * operand` (`edx:eax` at 32 bits), signed or not.
    fn widening_multiply(&mut self, i: &Instruction, signed_op: bool) {
        let (factor, bits) = self.read(i, 0);
        let Some((lo, hi)) = self.double_width(bits) else {
            return;
        };
        let product = self.register(lo).zip(factor).map(|(a, b)| {
            if signed_op {
                (i128::from(signed(a, bits)) * i128::from(signed(b, bits))) as u128
            } else {
                u128::from(mask(a, bits) as u64) * u128::from(mask(b, bits) as u64)
            }
        });
        self.set_register(lo, product.map(|p| p as u64 as i64));
        self.set_register(hi, product.map(|p| (p >> bits) as u64 as i64));
    }

    /// Moves, extensions, `lea`, stack pushes and pops, `cmov`/`set`; false otherwise.
    fn moves(&mut self, i: &Instruction, flags: Flags) -> bool {
        use Mnemonic as M;
        let m = i.mnemonic();
        match m {
            // A register copied as far as it is known: gcc's `setg r9b; ...; mov eax, r9d;
            // test al, al` reads only the byte the `set` wrote into an unknown `r9`.
            // A reload as far as the spill is known: gcc spills `m + 1` as 32 bits, reloads
            // 64 and masks the upper half off after a `sub`.
            M::Mov if is_gpr_operand(i, 0) => {
                let bits = self.operand_bits(i, 1);
                self.set_register_bits(i.op0_register(), bits);
            }
            M::Mov if i.op0_kind() == OpKind::Memory && is_gpr_operand(i, 1) => {
                let bytes = i.memory_size().size() as u32;
                if let Some(a) = self.address(i) {
                    self.store_known(a, self.register_bits(i.op1_register()), bytes);
                }
            }
            M::Mov | M::Movzx => {
                let v = self.read(i, 1).0;
                self.write(i, 0, v);
            }
            M::Movsx | M::Movsxd => {
                let (v, bits) = self.read(i, 1);
                self.write(i, 0, v.map(|v| signed(v, bits)));
            }
            M::Lea => {
                let v = self.address(i).map(|a| a as i64);
                self.write(i, 0, v);
            }
            M::Cdqe => {
                let v = self.register(Register::EAX).map(|v| signed(v, 32));
                self.set_register(Register::RAX, v);
            }
            // Sign extension into the high half for a division (`x % 3` at -O2 keeps the
            // sign in `edx` to correct its magic-number quotient).
            M::Cdq => {
                let v = self.register(Register::EAX).map(|v| signed(v, 32) >> 31);
                self.set_register(Register::EDX, v);
            }
            M::Cqo => {
                let v = self.register(Register::RAX).map(|v| v >> 63);
                self.set_register(Register::RDX, v);
            }
            M::Idiv | M::Div => self.divide(i),
            // `mul`/`imul` of one operand: the double-width product in `rdx:rax` (`x / 3` by
            // a magic number at clang -O3 keeps the high half).
            M::Mul => self.widening_multiply(i, false),
            M::Imul if i.op_count() == 1 => self.widening_multiply(i, true),
            M::Push => {
                let v = self.read(i, 0).0;
                let sp = self.register(Register::RSP).map(|s| s.wrapping_sub(8));
                self.set_register(Register::RSP, sp);
                if let Some(sp) = sp {
                    match v {
                        Some(v) => self.store(sp as u64, v, 8),
                        None => self.forget(sp as u64, 8),
                    }
                }
            }
            M::Pop => {
                let v = self.pop();
                self.write(i, 0, v);
            }
            // `mov rsp, rbp; pop rbp`: the epilogue of gcc -O0's frames with a `sub rsp`.
            M::Leave => {
                self.set_register(Register::RSP, self.register(Register::RBP));
                let v = self.pop();
                self.set_register(Register::RBP, v);
            }
            M::Nop | M::Endbr64 => {}
            _ => return self.conditional_move(i, flags),
        }
        true
    }

    fn conditional_move(&mut self, i: &Instruction, flags: Flags) -> bool {
        let code = i.condition_code();
        if code == ConditionCode::None {
            return false;
        }
        let now = std::mem::replace(&mut self.flags, flags);
        let holds = self.condition(code);
        self.flags = now;
        if is_cmovcc(i.mnemonic()) {
            match holds {
                Some(true) => {
                    let v = self.read(i, 1).0;
                    self.write(i, 0, v);
                }
                Some(false) => {}
                None => self.write(i, 0, None),
            }
        } else if is_setcc(i.mnemonic()) {
            self.write(i, 0, holds.map(i64::from));
        } else {
            return false;
        }
        true
    }

    /// An instruction the machine does not model: what it writes becomes unknown (the
    /// registers and stores the disassembly recorded).
    fn clobber(&mut self, ins: &crate::binary::Instruction) {
        if ins.mnemonic == Mnemonic::Call {
            for r in CALLER_SAVED {
                self.regs.set(r, None);
            }
            // Every XMM register is caller-saved (System V ABI 3.2.1).
            self.vectors.clear();
            self.upper.clear();
            return;
        }
        for &r in &ins.writes {
            self.regs.set(r, None);
        }
        if ins.stores > 0 {
            if let Some(a) = self.address(&ins.decoded) {
                let bytes = ins.memory.iter().map(|m| m.size).max().unwrap_or(8);
                self.forget(a, bytes.max(1));
            }
        }
    }
}

/// The carry (unsigned overflow) and signed overflow of `a + b` at `bits`.
fn add_carry_overflow(a: i64, b: i64, bits: u32) -> (Option<bool>, Option<bool>) {
    let (ua, ub) = (mask(a, bits) as u64 as u128, mask(b, bits) as u64 as u128);
    let limit = if bits >= 64 {
        u64::MAX as u128
    } else {
        (1u128 << bits) - 1
    };
    let (sa, sb) = (signed(a, bits), signed(b, bits));
    let sr = signed(a.wrapping_add(b), bits);
    let overflow = (sa < 0) == (sb < 0) && (sr < 0) != (sa < 0);
    (Some(ua + ub > limit), Some(overflow))
}

/// A shift's count as the hardware masks it; `None` when unknown.
fn shift_count(i: &Instruction, b: Option<i64>) -> Option<i64> {
    let by = if i.op_count() == 1 { Some(1) } else { b };
    let bits = i.op0_register().size().max(i.memory_size().size()) * 8;
    by.map(|v| v & if bits == 64 { 63 } else { 31 })
}

fn shift(m: Mnemonic, a: Option<i64>, by: Option<i64>, bits: u32) -> Option<i64> {
    let (a, by) = (a?, (by? & if bits == 64 { 63 } else { 31 }) as u32);
    Some(match m {
        Mnemonic::Shl => a.wrapping_shl(by),
        Mnemonic::Sar => signed(a, bits) >> by,
        _ => ((mask(a, bits) as u64) >> by) as i64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `add $-4, ecx; jb` (clang's down-counting exit): the carry is set while `ecx >= 4`.
    #[test]
    fn an_add_sets_the_carry_of_the_unsigned_sum() {
        assert_eq!(add_carry_overflow(5, -4, 32), (Some(true), Some(false)));
        assert_eq!(add_carry_overflow(3, -4, 32), (Some(false), Some(false)));
        assert_eq!(
            add_carry_overflow(i32::MAX as i64, 1, 32),
            (Some(false), Some(true))
        );
    }

    /// Instructions as the disassembly gives them (only what the machine reads).
    pub(super) fn decode(bytes: &[u8]) -> Vec<crate::binary::Instruction> {
        let mut d = iced_x86::Decoder::with_ip(64, bytes, 0x1000, iced_x86::DecoderOptions::NONE);
        let mut out = Vec::new();
        while d.can_decode() {
            let decoded = d.decode();
            out.push(crate::binary::Instruction::bare(decoded));
        }
        out
    }

    /// gcc's run-time alias test: two `set`s into the low bytes of registers whose upper
    /// bits nothing wrote, `or`ed at 32 bits and tested at 8. The low byte is known, so
    /// the test is; the upper bits stay unknown. Without the `set`s nothing is known.
    #[test]
    fn a_logic_op_on_partly_known_registers_keeps_the_known_bits() {
        let code = decode(&[
            0x83, 0xfe, 0x05, // cmp $5, esi
            0x41, 0x0f, 0x9e, 0xc5, // setle r13b
            0x83, 0xff, 0x03, // cmp $3, edi
            0x0f, 0x93, 0xc1, // setae cl
            0x41, 0x09, 0xcd, // or ecx, r13d
            0x45, 0x84, 0xed, // test r13b, r13b
        ]);
        let run = |esi: i64, edi: i64, skip_sets: bool| {
            let mut m = Machine::at_entry(&[]);
            m.set_register(Register::RSI, Some(esi));
            m.set_register(Register::RDI, Some(edi));
            let sets =
                |i: &&crate::binary::Instruction| !skip_sets || !is_setcc(i.decoded.mnemonic());
            code.iter().filter(sets).for_each(|i| m.execute(i));
            (m.condition(ConditionCode::ne), m.register(Register::R13D))
        };
        assert_eq!(run(9, 1, false), (Some(false), None));
        assert_eq!(run(4, 1, false), (Some(true), None));
        assert_eq!(run(9, 3, false), (Some(true), None));
        assert_eq!(run(9, 3, true), (None, None));
    }

    /// `rep stosq` as valgrind runs it: rcx + 1 passes (one element each, then the pass that
    /// finds rcx zero), `rdi` stepping by the element; an unknown rcx stops the run.
    #[test]
    fn a_rep_store_passes_once_per_element_and_once_more() {
        let code = decode(&[0xf3, 0x48, 0xab]); // rep stosq
        let rep = &code[0];
        assert!(is_repeated_string(&rep.decoded));
        let base = 0x10_0000i64;
        let passes = |rcx: Option<i64>| {
            let mut m = Machine::at_entry(&[]);
            m.set_register(Register::RCX, rcx);
            m.set_register(Register::RDI, Some(base));
            m.set_register(Register::RAX, Some(7));
            let mut n = 0;
            loop {
                n += 1;
                match m.repeat_string(rep) {
                    Flow::Goto(a) if a == rep.address => continue,
                    Flow::Goto(a) => assert_eq!(a, rep.address + 3),
                    Flow::Stop => return None,
                    Flow::Return => panic!("rep stosq returned"),
                }
                break;
            }
            Some((n, m.register(Register::RDI), m.load(base as u64 + 24, 8)))
        };
        assert_eq!(passes(Some(0)), Some((1, Some(base), None)));
        assert_eq!(passes(Some(4)), Some((5, Some(base + 32), Some(7))));
        assert_eq!(passes(None), None);
    }

    /// `x % 3` and `x / 7` as compilers emit them: `cltd` fills `edx` with the sign of
    /// `eax`; `idiv` truncates toward zero with the remainder's sign the dividend's; `div`
    /// is unsigned. A high half that is not the sign extension leaves both unknown.
    #[test]
    fn divisions_follow_the_sign_extension_into_edx() {
        let code = decode(&[
            0x99, // cltd
            0xf7, 0xf9, // idiv ecx
        ]);
        let run = |eax: i64, ecx: i64| {
            let mut m = Machine::at_entry(&[]);
            m.set_register(Register::EAX, Some(eax));
            m.set_register(Register::ECX, Some(ecx));
            code.iter().for_each(|i| m.execute(i));
            let q = m.register(Register::EAX).map(|v| signed(v, 32));
            let r = m.register(Register::EDX).map(|v| signed(v, 32));
            (q, r)
        };
        assert_eq!(run(17, 3), (Some(5), Some(2)));
        assert_eq!(run(-17, 3), (Some(-5), Some(-2)));
        assert_eq!(run(-17, -3), (Some(5), Some(-2)));
        assert_eq!(run(5, 0), (None, None));
        let unsigned = decode(&[0x31, 0xd2, 0xf7, 0xf1]); // xor edx, edx; div ecx
        let mut m = Machine::at_entry(&[]);
        m.set_register(Register::EAX, Some(0xffff_fff0));
        m.set_register(Register::ECX, Some(16));
        unsigned.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), Some(0x0fff_ffff));
        assert_eq!(m.register(Register::EDX), Some(0));
        let wide = decode(&[0xf7, 0xf9]); // idiv ecx with edx = 1: a 33-bit dividend
        let mut m = Machine::at_entry(&[]);
        m.set_register(Register::EAX, Some(4));
        m.set_register(Register::EDX, Some(1));
        m.set_register(Register::ECX, Some(2));
        wide.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), None);
    }

    /// clang's `x / 3` for unsigned `x`: `mul` by 0xaaaaaaaaaaaaaaab, the high half shifted.
    #[test]
    fn a_widening_multiply_gives_the_high_half() {
        let code = decode(&[
            0x48, 0xf7, 0xe2, // mul rdx
            0x48, 0xd1, 0xea, // shr rdx, 1
        ]);
        for x in [0i64, 1, 5, 6, 7, 100, 1 << 40] {
            let mut m = Machine::at_entry(&[]);
            m.set_register(Register::RAX, Some(x));
            m.set_register(Register::RDX, Some(0xaaaa_aaaa_aaaa_aaabu64 as i64));
            code.iter().for_each(|i| m.execute(i));
            assert_eq!(m.register(Register::RDX), Some(x / 3), "x = {x}");
        }
        let imul = decode(&[0xf7, 0xe9]); // imul ecx: edx:eax = eax * ecx, signed
        let mut m = Machine::at_entry(&[]);
        m.set_register(Register::EAX, Some(-3));
        m.set_register(Register::ECX, Some(1 << 30));
        imul.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), Some(0x4000_0000));
        assert_eq!(m.register(Register::EDX).map(|v| signed(v, 32)), Some(-1));
    }

    /// `cmp $1, esi; sbb eax, eax` (gcc's branch-free `esi == 0 ? -1 : 0`) and `adc`.
    #[test]
    fn sbb_and_adc_read_the_carry_of_the_compare() {
        let code = decode(&[
            0x83, 0xfe, 0x01, // cmp esi, 1
            0x19, 0xc0, // sbb eax, eax
            0x83, 0xfe, 0x01, // cmp esi, 1
            0x11, 0xca, // adc edx, ecx
        ]);
        for (esi, sbb, adc) in [(0, -1i64, 11), (1, 0, 10), (7, 0, 10)] {
            let mut m = Machine::at_entry(&[]);
            m.set_register(Register::ESI, Some(esi));
            m.set_register(Register::EDX, Some(3));
            m.set_register(Register::ECX, Some(7));
            code.iter().for_each(|i| m.execute(i));
            assert_eq!(m.register(Register::EAX).map(|v| signed(v, 32)), Some(sbb));
            assert_eq!(m.register(Register::EDX), Some(adc), "esi = {esi}");
        }
    }

    /// gcc -O3's vector induction variable: broadcast, `paddd` per pass, last lane out
    /// through `pshufd $0xff; movd`. An instruction the machine does not model forgets it.
    #[test]
    fn a_vector_induction_variable_is_followed_through_its_lanes() {
        let code = decode(&[
            0x66, 0x0f, 0x6e, 0xc0, // movd xmm0, eax
            0x66, 0x0f, 0x70, 0xc0, 0x00, // pshufd xmm0, xmm0, 0
            0x66, 0x0f, 0x6e, 0xc9, // movd xmm1, ecx
            0x66, 0x0f, 0x70, 0xc9, 0x00, // pshufd xmm1, xmm1, 0
            0x66, 0x0f, 0xfe, 0xc1, // paddd xmm0, xmm1
            0x66, 0x0f, 0xfe, 0xc1, // paddd xmm0, xmm1
            0x66, 0x0f, 0x70, 0xc0, 0xff, // pshufd xmm0, xmm0, 0xff
            0x66, 0x0f, 0x7e, 0xc0, // movd eax, xmm0
        ]);
        let mut m = Machine::at_entry(&[]);
        m.set_register(Register::EAX, Some(5));
        m.set_register(Register::ECX, Some(4));
        code.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), Some(13));
        // `pcmpeqd xmm2, xmm2` is -1 in every lane: `paddd xmm0, xmm2` counts back one.
        let minus_one = decode(&[
            0x66, 0x0f, 0x76, 0xd2, // pcmpeqd xmm2, xmm2
            0x66, 0x0f, 0xfe, 0xc2, // paddd xmm0, xmm2
            0x66, 0x0f, 0x7e, 0xc0, // movd eax, xmm0
        ]);
        minus_one.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), Some(12));
        // pmaddubsw xmm0, xmm0 (SSSE3, not modelled); movd eax, xmm0
        let unmodelled = decode(&[0x66, 0x0f, 0x38, 0x04, 0xc0, 0x66, 0x0f, 0x7e, 0xc0]);
        unmodelled.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), None);
    }

    /// clang -O0's `cvtsi2ss xmm0, edx` after a call (nothing of `xmm0` known): the low lane
    /// is known, and so is all a scalar instruction reads; an instruction that reads the
    /// whole register does not know it.
    #[test]
    fn a_scalar_result_is_known_in_a_register_whose_upper_lanes_are_not() {
        let code = decode(&[
            0xf3, 0x0f, 0x2a, 0xc2, // cvtsi2ss xmm0, edx
            0xf3, 0x0f, 0x58, 0xc0, // addss xmm0, xmm0
            0xf3, 0x0f, 0x10, 0xc8, // movss xmm1, xmm0
            0x0f, 0x2e, 0xc8, // ucomiss xmm1, xmm0
            0x66, 0x0f, 0x7e, 0xc0, // movd eax, xmm0
        ]);
        let mut m = Machine::at_entry(&[]);
        m.set_register(Register::RDX, Some(3));
        code.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), Some(6.0f32.to_bits() as i64));
        assert_eq!(m.condition(ConditionCode::e), Some(true));
        assert_eq!(m.vector(Register::XMM0), None);
        // unpcklps reads lane 1 of xmm0, which no instruction wrote.
        let whole = decode(&[0x0f, 0x14, 0xc0, 0x66, 0x0f, 0x7e, 0xc0]); // unpcklps; movd
        whole.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::EAX), None);
    }

    /// `push rbp; mov rbp, rsp; sub rsp, 16; ...; leave`: the caller's frame pointer and the
    /// stack pointer come back as they were.
    #[test]
    fn leave_restores_the_frame_of_the_caller() {
        let code = decode(&[
            0x55, // push rbp
            0x48, 0x89, 0xe5, // mov rbp, rsp
            0x48, 0x83, 0xec, 0x10, // sub rsp, 16
            0xc9, // leave
        ]);
        let mut m = Machine::at_entry(&[]);
        let sp = m.register(Register::RSP);
        m.set_register(Register::RBP, Some(0x1234));
        code.iter().for_each(|i| m.execute(i));
        assert_eq!(m.register(Register::RBP), Some(0x1234));
        assert_eq!(m.register(Register::RSP), sp);
    }

    /// `mov ecx, 10; xor eax, eax; add rax, 2; dec ecx; jne` run by hand: ten passes, the
    /// counter steps -1 to 0, rax +2 per pass.
    #[test]
    fn a_down_counting_loop_runs_its_passes() {
        let code = decode(&[
            0xb9, 0x0a, 0, 0, 0, // mov ecx, 10
            0x31, 0xc0, // xor eax, eax
            0x48, 0x83, 0xc0, 0x02, // add rax, 2
            0xff, 0xc9, // dec ecx
            0x75, 0xf8, // jne -8
        ]);
        let mut m = Machine::at_entry(&[]);
        m.execute(&code[0]);
        m.execute(&code[1]);
        let mut passes = 0;
        loop {
            passes += 1;
            m.execute(&code[2]);
            m.execute(&code[3]);
            if !m.condition(code[4].decoded.condition_code()).unwrap() {
                break;
            }
        }
        assert_eq!(passes, 10);
        assert_eq!(m.register(Register::RAX), Some(20));
        assert_eq!(m.register(Register::ECX), Some(0));
    }

    /// Signed and unsigned conditions of `cmp` at 32 bits, a 32-bit write zeroing the upper
    /// half, `movsxd` and a stack spill.
    #[test]
    fn compares_widths_and_spills_follow_the_hardware() {
        let code = decode(&[
            0xbf, 0xff, 0xff, 0xff, 0xff, // mov edi, -1
            0x83, 0xff, 0x02, // cmp edi, 2
            0x48, 0x63, 0xc7, // movsxd rax, edi
            0x48, 0x89, 0x44, 0x24, 0xf8, // mov [rsp-8], rax
            0x48, 0x8b, 0x54, 0x24, 0xf8, // mov rdx, [rsp-8]
        ]);
        let mut m = Machine::at_entry(&[]);
        m.execute(&code[0]);
        assert_eq!(m.register(Register::RDI), Some(0xffff_ffff));
        m.execute(&code[1]);
        assert_eq!(m.condition(ConditionCode::l), Some(true));
        assert_eq!(m.condition(ConditionCode::a), Some(true));
        assert_eq!(m.condition(ConditionCode::e), Some(false));
        m.execute(&code[2]);
        assert_eq!(m.register(Register::RAX), Some(-1));
        m.execute(&code[3]);
        m.execute(&code[4]);
        assert_eq!(m.register(Register::RDX), Some(-1));
        // The flags of the `cmp` survive the moves.
        assert_eq!(m.condition(ConditionCode::l), Some(true));
    }

    /// `setb bl` after `rbx` was loaded from an array knows `bl`, which is all `test bl, bl`
    /// reads; `ebx` stays unknown.
    #[test]
    fn a_byte_written_into_an_unknown_register_is_known() {
        let code = decode(&[
            0x8b, 0x1f, // mov ebx, [rdi]
            0x39, 0xf7, // cmp edi, esi
            0x0f, 0x92, 0xc3, // setb bl
            0x84, 0xdb, // test bl, bl
        ]);
        let mut m = Machine::at_entry(&[1, 5]);
        for ins in &code {
            m.execute(ins);
        }
        assert_eq!(m.register(Register::BL), Some(1));
        assert_eq!(m.register(Register::EBX), None);
        assert_eq!(m.condition(ConditionCode::ne), Some(true));
    }

    /// `setg r9b; mov eax, r9d; test al, al` with `r9` unknown (gcc -O3 keeps a loop
    /// invariant's `setg` in a register it never wrote whole): the copy keeps the byte.
    #[test]
    fn a_register_copy_keeps_the_bits_known() {
        let code = decode(&[
            0x4c, 0x8b, 0x0f, // mov r9, [rdi]
            0x39, 0xf7, // cmp edi, esi
            0x41, 0x0f, 0x9f, 0xc1, // setg r9b
            0x44, 0x89, 0xc8, // mov eax, r9d
            0x84, 0xc0, // test al, al
        ]);
        let mut m = Machine::at_entry(&[7, 5]);
        code.iter().for_each(|ins| m.execute(ins));
        assert_eq!(m.register(Register::AL), Some(1));
        assert_eq!(m.register(Register::EAX), None);
        assert_eq!(m.condition(ConditionCode::ne), Some(true));
    }

    /// gcc -O3 (nest 3020): `m + 1` spilled as 32 bits below the stack pointer, reloaded as
    /// 64 (the upper half is whatever was there), a 64-bit `sub`, then a 32-bit `and` that
    /// zeroes the upper half: the low half is known throughout, so the result is.
    #[test]
    fn a_wide_reload_of_a_narrow_spill_keeps_its_low_half() {
        let code = decode(&[
            0x8d, 0x56, 0x01, // lea edx, [rsi + 1]
            0x89, 0x54, 0x24, 0xf0, // mov [rsp - 0x10], edx
            0x4c, 0x8b, 0x6c, 0x24, 0xf0, // mov r13, [rsp - 0x10]
            0x49, 0x29, 0xfd, // sub r13, rdi
            0x4c, 0x89, 0xed, // mov rbp, r13
            0x83, 0xe5, 0xfe, // and ebp, -2
        ]);
        let mut m = Machine::at_entry(&[3, 10]);
        code.iter().for_each(|ins| m.execute(ins));
        assert_eq!(m.register(Register::R13D), Some(8));
        assert_eq!(m.register(Register::R13), None);
        assert_eq!(m.register(Register::RBP), Some(8));
        // Spilled back as 64 bits, the known half stays known and the rest does not.
        let spill = decode(&[0x4c, 0x89, 0x6c, 0x24, 0xe0]); // mov [rsp - 0x20], r13
        m.execute(&spill[0]);
        let sp = m.register(Register::RSP).unwrap() as u64;
        assert_eq!(m.load(sp - 0x20, 4), Some(8));
        assert_eq!(m.load(sp - 0x20, 8), None);
    }

    /// `shr rcx, 32; setne cl` (clang's test that a 64-bit trip count fits 32 bits): the
    /// shift sets the zero flag; its carry is not kept.
    #[test]
    fn a_shift_sets_the_zero_flag_of_its_result() {
        let code = decode(&[
            0x48, 0xc1, 0xe9, 0x20, // shr rcx, 32
            0x0f, 0x95, 0xc1, // setne cl
        ]);
        for (v, high) in [(5i64, 0), (5 << 32, 1)] {
            let mut m = Machine::at_entry(&[0, 0, 0, v]);
            m.execute(&code[0]);
            assert_eq!(m.condition(ConditionCode::b), None);
            m.execute(&code[1]);
            assert_eq!(m.register(Register::CL), Some(high), "rcx = {v:#x}");
        }
    }

    /// A load from an array the run never wrote is unknown, and so is a branch on it.
    #[test]
    fn array_contents_are_unknown() {
        let code = decode(&[
            0x8b, 0x07, // mov eax, [rdi]
            0x85, 0xc0, // test eax, eax
        ]);
        let mut m = Machine::at_entry(&[1 << 32]);
        m.execute(&code[0]);
        m.execute(&code[1]);
        assert_eq!(m.register(Register::EAX), None);
        assert_eq!(m.condition(ConditionCode::e), None);
    }
}
