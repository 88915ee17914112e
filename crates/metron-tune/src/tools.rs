//! External programs metron tune calls, from the one catalogue (`metron doctor` lists them).

pub use metron_measure::tool::{MPICC, MPIRUN, SACCT, SBATCH, SQUEUE};
