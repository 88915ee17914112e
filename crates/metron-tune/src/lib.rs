//! metron-tune: generate–build–run campaigns over a configuration space, the resumable unit
//! library, local and Slurm executors, and the genetic tuner (002 Ch. 3-4).

pub mod error;
pub mod ga;
pub mod project;
pub mod template;
pub mod rng;
pub mod space;

pub use error::{Result, TuneError};
