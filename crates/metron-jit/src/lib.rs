//! Tracing-JIT cost analysis after Morton, Maier and Trinder, *JIT-Based Cost Analysis for
//! Dynamic Program Transformations* (ENTCS 330, 2016; "001" in the project's documents).
//!
//! The pipeline: a PYPYLOG file ([`log`]) gives traces, labels, guards, bridges and counters;
//! [`fragment`] turns them into the trace graph's fragments with their execution frequencies
//! (001 §3.1-3.2); [`op_class`] sorts operations into classes (001 §3.3); [`cost`] prices
//! fragments with the models CM0, CMC and CMW and sums the whole-program cost Γ (001 §4);
//! [`nnls`] fits CMW's weights to measured times (001 §4.3), [`calibration`] runs the whole
//! calibration on a corpus, and [`tau`] measures k = t/Γ across a task's tuning parameter and
//! closes the tuning loop (001 §5). [`profile`] and [`predict`] extend Γ to a whole-program
//! run-time prediction (start-up, warm-up, interpreter and GC terms) saved as a model file.

pub mod calibrate;
pub mod calibration;
pub mod cost;
pub mod difference;
pub mod error;
pub mod fragment;
pub mod graph_export;
pub mod lifetime;
pub mod log;
pub mod nnls;
pub mod op_class;
pub mod predict;
pub mod profile;
pub mod pypy;
pub mod stream;
pub mod tau;
pub mod trace;

pub use error::JitError;
