//! `main`'s runs: the sizes it reads from its command line (`n = atoi(argv[1])`) written as
//! the strings of `argv`, as the loader passes them (System V ABI 3.4.1), so that a kernel
//! inlined into `main` is checked at many sizes as the others are.

use metron_symbolic::Binding;

use crate::loop_copy::machine::Machine;
use crate::source::ProgramInput;

/// Where `argv`'s pointers are, `envp`'s, and the strings (far from the binary's data, the
/// stack and the arrays a run allocates).
const ARGV: u64 = 0x6000_0000;
const ENVP: u64 = ARGV + 0x800;
const STRINGS: u64 = ARGV + 0x1000;
const STRING_BYTES: u64 = 0x40;

/// `main`'s arguments: `argc` (every input's argument given), `argv` and `envp`.
pub fn arguments(inputs: &[ProgramInput]) -> Vec<i64> {
    vec![argc(inputs) as i64, ARGV as i64, ENVP as i64]
}

fn argc(inputs: &[ProgramInput]) -> u64 {
    inputs.iter().map(|i| u64::from(i.argv)).max().unwrap_or(0) + 1
}

/// Writes `argv` for the sizes `values`: each input's value in decimal at its index, `1` at
/// an index no input reads, the program's name at 0 and the null pointer after the last; and
/// an empty environment. Nothing without inputs.
pub fn store(m: &mut Machine, inputs: &[ProgramInput], values: &Binding) {
    if inputs.is_empty() {
        return;
    }
    let argc = argc(inputs);
    for k in 0..argc {
        let text = match inputs.iter().find(|i| u64::from(i.argv) == k) {
            Some(i) => values.get(&i.name).copied().unwrap_or(1).to_string(),
            None if k == 0 => "metron-run".to_string(),
            None => "1".to_string(),
        };
        let at = STRINGS + k * STRING_BYTES;
        m.store_string(at, &text);
        m.store(ARGV + 8 * k, at as i64, 8);
    }
    m.store(ARGV + 8 * argc, 0, 8);
    m.store(ENVP, 0, 8);
}
