//! `metron-contention`: how much slower a thread gets when others contend for shared memory
//! banks. [`model`] holds the thesis's three probabilistic models (003 Eq. 4.1-4.3), their
//! training (§5.2.1) and a fourth model; [`sim`] is a deterministic cycle-level bank
//! simulator that stands in for the Kalray MPPA of 003 Ch. 5.

pub mod data;
pub mod experiment;
pub mod model;
pub mod sim;

#[derive(Debug, thiserror::Error)]
pub enum ContentionError {
    #[error("{file}:{line}: {message}")]
    Data {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{0}")]
    Invalid(String),
}
