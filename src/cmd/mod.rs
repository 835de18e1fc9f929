//! Subcommands: one file each, its arguments next to its `run`.

pub mod convert;
pub mod stats;
pub mod validate;
