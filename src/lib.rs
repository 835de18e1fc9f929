//! pgnkit: validate, convert and analyse chess game records (PGN).
//!
//! The library is organised by how far data has been checked: raw bytes are split into games
//! and tokens by [`pgn`], move tokens become patterns in [`notation`], patterns become legal
//! moves and results by rule in [`rules`], and [`report`] turns problems into diagnostics.
//! [`convert`] writes replayed games in other notations and formats; [`input`] decodes
//! legacy encodings.

pub mod cli;
pub mod cmd;
pub mod convert;
pub mod dedup;
pub mod diag;
pub mod input;
pub mod notation;
pub mod pgn;
pub mod report;
pub mod rules;
pub mod stats;
