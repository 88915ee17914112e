//! External programs metron tune calls (ARCHITECTURE.md: one wrapper per tool, saying how to
//! install it). The lead's catalogue in metron-measure takes them over.

use metron_measure::tool::Tool;

pub const SBATCH: Tool = Tool {
    program: "sbatch",
    debian_package: "slurm-client",
    purpose: "submitting metron tune units to Slurm",
};
pub const SQUEUE: Tool = Tool {
    program: "squeue",
    debian_package: "slurm-client",
    purpose: "following metron tune's Slurm jobs",
};
pub const SACCT: Tool = Tool {
    program: "sacct",
    debian_package: "slurm-client",
    purpose: "final states of metron tune's Slurm jobs",
};
pub const MPICC: Tool = Tool {
    program: "mpicc",
    debian_package: "libopenmpi-dev",
    purpose: "building examples/tune (the demo's tune step)",
};
pub const MPIRUN: Tool = Tool {
    program: "mpirun",
    debian_package: "openmpi-bin",
    purpose: "running examples/tune's MPI ranks",
};
