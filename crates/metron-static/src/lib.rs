//! `metron-static`: static, parametric instruction-count models from a binary plus its
//! source (Mira, 004), validated against callgrind's per-instruction counts.

pub mod analysis;
mod arm_value;
pub mod assumption;
pub mod ast_cache;
pub mod binary;
mod branch;
pub mod branch_profile;
pub mod calibrate;
pub mod call_site;
pub mod callgrind;
pub mod category;
pub mod cfg;
pub mod clang_ast;
pub mod derived;
pub mod emit;
pub mod error;
pub mod error_path;
pub mod inline_frame;
pub mod interpreted_profile;
pub mod loop_context;
pub mod loop_copy;
mod loop_guard;
pub mod loop_profile;
pub mod model;
pub mod program;
pub mod report;
pub mod source;
pub mod validate;

pub use error::{Result, StaticError};
