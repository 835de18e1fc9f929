//! The rules: matching move patterns to legal moves, replaying games through shakmaty, and
//! deciding results by rule (checkmate, stalemate, dead position, repetition, move limits).

pub mod adjudicate;
mod ending;
mod explain;
pub mod game;
pub mod matcher;
pub mod outcome;
mod replay;
mod start;
pub(crate) use start::fen_of_a_variant;
mod tags;
pub mod visit;
