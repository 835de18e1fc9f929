//! Input streams before the PGN reader sees them: decoding legacy encodings to UTF-8.

pub mod decode;

pub use decode::{DecodeStats, DecodingReader, InputEncoding};
