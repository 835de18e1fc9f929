//! The position a game starts from: the Variant, SetUp and FEN tags read, and an
//! impossible FEN explained.

use std::borrow::Cow;

use shakmaty::{
    fen::{Fen, ParseFenError},
    CastlingMode, Chess, PositionErrorKinds,
};

use crate::diag::{Code, Finding};
use crate::pgn::{KnownTag, KnownTags, Span};
use crate::rules::game::GameReport;

/// The position the game starts from, per its `Variant`, `SetUp` and `FEN` tags.
pub(super) fn start_position(known: &KnownTags, report: &mut GameReport) -> Option<Chess> {
    let written = known.value(KnownTag::Variant).unwrap_or("");
    let variant = written.trim().to_ascii_lowercase();
    let chess960 = match variant.as_str() {
        "" | "standard" | "from position" | "from_position" | "normal" | "chess" => false,
        "chess960"
        | "chess 960"
        | "960"
        | "fischerandom"
        | "fischer random"
        | "fischerrandom"
        | "fischer random chess"
        | "freestyle" => true,
        _ => {
            report.variant = Cow::Owned(variant.clone());
            let span = known.get(KnownTag::Variant).map(|t| t.span);
            report.findings.push(
                Finding::new(
                    Code::UnsupportedVariant,
                    span,
                    format!("variant \"{written}\" is not standard chess or Chess960; the game is not replayed"),
                )
                .help("pgnkit checks standard chess and Chess960 only"),
            );
            return None;
        }
    };
    let mode = if chess960 {
        report.variant = Cow::Borrowed("chess960");
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let Some(tag) = known.get(KnownTag::Fen) else {
        // The standard start, unless SetUp says the game starts from a FEN it lacks.
        return (known.value(KnownTag::SetUp) != Some("1")).then(Chess::default);
    };
    let fen = match Fen::from_ascii(tag.value.trim().as_bytes()) {
        Ok(f) => f,
        Err(e) => {
            let why = match e {
                ParseFenError::InvalidBoard => "the board part is not 8 ranks of 8 squares",
                ParseFenError::InvalidTurn => "the side to move is not 'w' or 'b'",
                ParseFenError::InvalidCastling => "the castling field is not valid",
                ParseFenError::InvalidEpSquare => "the en passant square is not valid",
                ParseFenError::InvalidHalfmoveClock => "the halfmove clock is not a number",
                ParseFenError::InvalidFullmoves => "the move number is not a positive number",
                _ => "it is not a FEN",
            };
            report.findings.push(
                Finding::new(Code::InvalidFen, Some(tag.span), format!("FEN \"{}\" cannot be read: {why}", tag.value))
                    .help("a FEN has six fields: board, side to move, castling, en passant, halfmove clock, move number"),
            );
            return None;
        }
    };
    if let Some(variant) = fen_of_a_variant(&fen) {
        report.variant = Cow::Borrowed(variant.name);
        report.findings.push(
            Finding::new(
                Code::UnsupportedVariant,
                Some(tag.span),
                format!(
                    "FEN \"{}\" has {}: it is a {} position, not standard chess or Chess960; \
                     the game is not replayed",
                    tag.value, variant.what, variant.title
                ),
            )
            .help(format!(
                "pgnkit checks standard chess and Chess960 only; if the game is standard chess, \
                 remove {} from the FEN",
                variant.what
            )),
        );
        return None;
    }
    if let Some(why) = counter_out_of_range(tag.value) {
        report.findings.push(
            Finding::new(
                Code::InvalidFen,
                Some(tag.span),
                format!("FEN \"{}\" cannot be read: {why}", tag.value),
            )
            .help(format!(
                "a move counter is at most {}; write the counters the game really had",
                u32::MAX
            )),
        );
        return None;
    }
    let kinds = match fen.clone().into_position::<Chess>(mode) {
        Ok(pos) => return Some(pos),
        Err(e) => e.kinds(),
    };
    // Shredder or X-FEN castling of a Chess960 start without the Variant tag.
    if !chess960 && kinds == PositionErrorKinds::INVALID_CASTLING_RIGHTS {
        if let Ok(pos) = fen.into_position::<Chess>(CastlingMode::Chess960) {
            report.variant = Cow::Borrowed("chess960");
            return Some(pos);
        }
    }
    invalid_position(report, tag.span, tag.value, kinds);
    None
}

/// A variant a FEN says its position is of, by fields standard chess has not.
pub(crate) struct FenVariant {
    /// As [`GameReport::variant`] names it.
    pub name: &'static str,
    pub title: &'static str,
    /// The fields that say so, for the message.
    pub what: &'static str,
}

/// The variant `fen` belongs to when it has fields of one: Crazyhouse's pockets (`[QQqq]`,
/// `/QQqq`) or promoted-piece marks (`Q~`), three-check's counters (`3+3`, `+2+0`). shakmaty
/// reads them, and a standard position made from it would silently drop them.
pub(crate) fn fen_of_a_variant(fen: &Fen) -> Option<FenVariant> {
    let setup = fen.as_setup();
    if setup.pockets.is_some() {
        return Some(FenVariant {
            name: "crazyhouse",
            title: "Crazyhouse",
            what: "Crazyhouse pockets ([QQqq] or /QQqq after the board)",
        });
    }
    if setup.promoted.any() {
        return Some(FenVariant {
            name: "crazyhouse",
            title: "Crazyhouse",
            what: "Crazyhouse promoted-piece marks (Q~)",
        });
    }
    if setup.remaining_checks.is_some() {
        return Some(FenVariant {
            name: "three-check",
            title: "Three-check",
            what: "three-check counters (3+3, +2+0)",
        });
    }
    None
}

/// Why a move counter of `fen` cannot be kept: one past `u32::MAX`, which shakmaty would
/// clamp to it without a word. The counters are the fields after the en passant square that
/// are digits alone (a three-check counter has a `+`).
fn counter_out_of_range(fen: &str) -> Option<String> {
    let fields = fen.split([' ', '_']).filter(|f| !f.is_empty()).skip(4);
    let counters = fields.filter(|f| f.bytes().all(|b| b.is_ascii_digit()));
    for (counter, name) in counters.zip(["the halfmove clock", "the move number"]) {
        if counter.parse::<u32>().is_err() {
            return Some(format!(
                "{name} {counter} is larger than {}, the most pgnkit can count",
                u32::MAX
            ));
        }
    }
    None
}

pub(super) fn invalid_position(
    report: &mut GameReport,
    span: Span,
    fen: &str,
    kinds: PositionErrorKinds,
) {
    let why: Vec<&str> = [
        (PositionErrorKinds::EMPTY_BOARD, "the board is empty"),
        (PositionErrorKinds::MISSING_KING, "a king is missing"),
        (
            PositionErrorKinds::TOO_MANY_KINGS,
            "a side has more than one king",
        ),
        (
            PositionErrorKinds::PAWNS_ON_BACKRANK,
            "a pawn stands on the first or last rank",
        ),
        (
            PositionErrorKinds::INVALID_CASTLING_RIGHTS,
            "the castling rights do not fit the kings and rooks",
        ),
        (
            PositionErrorKinds::INVALID_EP_SQUARE,
            "the en passant square does not fit the last pawn move",
        ),
        (
            PositionErrorKinds::OPPOSITE_CHECK,
            "the side not to move is in check",
        ),
        (
            PositionErrorKinds::IMPOSSIBLE_CHECK,
            "the check could not have arisen from a legal move",
        ),
        (
            PositionErrorKinds::TOO_MUCH_MATERIAL,
            "a side has more material than promotions allow",
        ),
        (
            PositionErrorKinds::VARIANT,
            "the position breaks a variant rule",
        ),
    ]
    .into_iter()
    .filter_map(|(kind, text)| kinds.contains(kind).then_some(text))
    .collect();
    report.findings.push(
        Finding::new(
            Code::InvalidFen,
            Some(span),
            format!("FEN \"{fen}\" is not a legal position: {}", why.join("; ")),
        )
        .help("correct the FEN; the game cannot be replayed from an impossible position"),
    );
}
