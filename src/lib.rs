//! pgnkit: validate, convert and analyse chess game records (PGN).
//!
//! The library is organised by how far data has been checked: raw bytes are split into games
//! and tokens by [`pgn`], move tokens become patterns in [`notation`], patterns become legal
//! moves and results by rule in [`rules`], and [`report`] turns problems into diagnostics.
//! [`convert`] writes replayed games in other notations and formats; [`input`] decodes
//! legacy encodings.
//!
//! | module | owns |
//! |---|---|
//! | [`input`] | opening paths and stdin, decompression, decoding to UTF-8, the per-file loop |
//! | [`pgn`] | splitting a stream into games, the lexer (tokens with byte spans), tags, dates |
//! | [`notation`] | reading and writing moves: SAN, LAN, UCI, figurines, other letters, Chinese |
//! | [`rules`] | the replay through shakmaty, endings by rule, adjudication |
//! | [`diag`] | the diagnostic codes and findings |
//! | [`outcome`] | how a run ends: what it found, what failed, its exit status |
//! | [`report`] | diagnostics as text, JSON Lines or CSV; output files |
//! | [`validate`] | the validate engine: every game checked, its diagnostics written |
//! | [`dedup`] | duplicate games found, the kept ones written, with a report |
//! | [`split`] | games written to files by a number of games, event, ECO or a tag |
//! | [`convert`] | replayed games written as PGN, JSON Lines, CSV, EPD, book text or Parquet |
//! | [`sort`] | the external sorter: records in sorted runs in memory or a temporary file, merged |
//! | [`stats`] | the `stats` engine ([`stats::Stats`], [`stats::Merger`]); standings, tie-breaks, ratings and tallies as plain data |
//! | [`cli`], [`cmd`] | the command line: arguments and one `run` per subcommand |
//!
//! From bytes to a diagnostic: decode, read games, replay each, report what it found.
//!
//! ```
//! use pgnkit::input::decode::decoded;
//! use pgnkit::pgn::{GameReader, Lexed, Movetext};
//! use pgnkit::report::{write_text, GameContext, RenderOptions};
//! use pgnkit::rules::game::{check_game, CheckOptions};
//! use pgnkit::rules::visit::NoVisitor;
//!
//! let file: &[u8] = b"[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Ke3 *\n";
//! let (text, _encoding, _bad_bytes) = decoded(Box::new(file), None)?;
//! let mut reader = GameReader::new(text);
//! let mut lexed = Lexed::default();
//! let mut out = Vec::new();
//! while let Some(game) = reader.next_game(&mut lexed)? {
//!     // The reader lexes each game whole.
//!     let opts = CheckOptions::default();
//!     let report = check_game(game.bytes, &lexed, Movetext::Tokens, &opts, &mut NoVisitor);
//!     assert_eq!((report.legal, report.plies), (false, 2));
//!     let ctx = GameContext {
//!         file: "games.pgn",
//!         number: game.number,
//!         line: game.line,
//!         white: lexed.tag("White").unwrap_or("?"),
//!         black: lexed.tag("Black").unwrap_or("?"),
//!         bytes: game.bytes,
//!     };
//!     for finding in &report.findings {
//!         write_text(&mut out, &ctx, finding, &RenderOptions::default())?;
//!     }
//! }
//! let text = String::from_utf8(out)?;
//! assert!(text.contains("error[M001]: 'Ke3' is not a legal move for White"), "{text}");
//! assert!(text.contains("help: did you mean Ke2?"), "{text}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cli;
pub mod cmd;
pub mod convert;
pub mod dedup;
pub mod diag;
pub mod eco;
pub mod input;
pub mod notation;
pub mod outcome;
pub mod pgn;
pub mod report;
pub mod rules;
pub mod select;
pub mod sort;
pub mod split;
pub mod stats;
pub mod tree;
pub mod validate;
