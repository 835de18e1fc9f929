//! pgnkit: validate, convert and analyse chess game records (PGN).

pub mod stats;
