//! metron-tune: generate–build–run campaigns over a configuration space, the resumable unit
//! library, local and Slurm executors, and the genetic tuner (002 Ch. 3-4).

pub mod campaign;
pub mod error;
pub mod executor;
pub mod ga;
pub mod gp;
pub mod project;
pub mod replay;
pub mod rng;
pub mod show;
pub mod slurm;
pub mod space;
pub mod template;
pub mod tools;
pub mod unit_library;

pub use error::{Result, TuneError};
