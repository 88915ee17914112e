//! One module per subcommand; each exposes `Args` (clap) and `run`.
pub mod jit;
