//! MATLAB/Octave front end, the instruction-tree execution model and source-to-source
//! transformations of 000 Chapters 4-6 (the thesis's HU!M compiler), proven on GNU Octave.

pub mod ast;
pub mod bench;
pub mod bench_store;
pub mod classes;
pub mod classification;
pub mod dataflow;
pub mod dependence;
pub mod differential;
pub mod dimensionality;
pub mod generator;
pub mod instruction_tree;
pub mod linear;
pub mod octave;
pub mod passes;
pub mod resolve;
pub mod rewrite;

pub use ast::{parse, Program, SourceFile, SyntaxError};
