//! The ELF/DWARF loading entry point must turn any bytes into a model or an error, never a
//! panic. Seed corpus: small real binaries built with -g (kept in corpus/load_elf).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(binary) = metron_static::binary::Binary::parse(data, std::path::Path::new("fuzz")) {
        for f in &binary.functions {
            let _ = metron_static::cfg::Cfg::build(f);
        }
    }
});
