//! Games kept with their error (`--keep-broken`, pgn-extract's `--keepbroken`): a game with an
//! illegal move is written as far as it replays, then its first error in a comment, then the
//! rest of its movetext as recorded, in comments, so that a keeper who cleans a file loses no
//! game (FIDE: an illegal move stands once the opponent has moved; boards that record moves
//! miss some).

use std::borrow::Cow;

use super::options::ConvertOptions;
use super::rewrite::{self, Game};
use super::{Collector, Element};
use crate::diag::Severity;
use crate::pgn::{GameResult, Lexed};
use crate::rules::game::GameReport;

/// The game as `--keep-broken` writes it: its tags, its moves before its first error that
/// stops a conversion, that error, and the movetext from there as written (without its
/// result) in comments. `movetext` is where the movetext starts in `bytes`.
pub(super) fn write(
    bytes: &[u8],
    movetext: usize,
    lexed: &Lexed,
    report: &GameReport,
    collector: &Collector,
    args: &ConvertOptions,
    players: Vec<(String, String)>,
) -> String {
    let error = report
        .findings
        .iter()
        .find(|f| f.severity == Severity::Error && super::blocks_output(f.code));
    // An error about the whole game (its start position) keeps none of its moves.
    let at = error
        .and_then(|f| f.span)
        .map_or(movetext, |s| (s.start as usize).max(movetext))
        .min(bytes.len());
    let until = u32::try_from(at).unwrap_or(u32::MAX);
    let mut elements = super::elements_until(bytes, collector, args.keep(), until);
    let mut trailer = Vec::new();
    // Close the variations the error cut off.
    let open = elements.iter().fold(0isize, |depth, e| match e {
        Element::VariationStart => depth + 1,
        Element::VariationEnd => depth - 1,
        _ => depth,
    });
    for _ in 0..open.max(0) {
        elements.push(Element::VariationEnd);
    }
    if let Some(f) = error {
        let at = match f.ply {
            Some(p) => format!(" at {}{}", p.number, if p.white { "." } else { "..." }),
            None => String::new(),
        };
        let note = format!(
            "pgnkit: error {}{at}: {}; the rest of the game as recorded follows",
            f.code.as_str(),
            f.message
        );
        trailer.push(Element::Comment(Cow::Owned(note)));
    }
    let rest = String::from_utf8_lossy(&bytes[at..]);
    let rest = without_result(rest.trim_end());
    // The comments recorded there stay comments of their own, and the text between them
    // goes in comments too: a brace cannot be inside one, and old readers know no `;`.
    for piece in rest
        .split(['{', '}'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        trailer.push(Element::Comment(Cow::Owned(piece.to_owned())));
    }
    let result = super::final_result(lexed, report, false);
    let game = Game {
        lexed,
        report,
        result,
        fixed: false,
        eco: &[],
        players,
        // After the moves, so that a cut (--drop-ply, --ply-limit) keeps them.
        trailer,
    };
    let mut text = String::with_capacity(bytes.len() + 256);
    rewrite::write_pgn(&args.rewrite, &game, elements, collector, &mut text);
    text
}

/// `text` without the result that ends it.
fn without_result(text: &str) -> &str {
    let last = text.rsplit(char::is_whitespace).next().unwrap_or("");
    match GameResult::parse(last.as_bytes()) {
        Some(_) => text[..text.len() - last.len()].trim_end(),
        None => text,
    }
}
