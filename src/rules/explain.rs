//! Explanations shown in findings: a move as its writer would have written it, why no
//! legal move fits a pattern, and the FEN of the position a finding is about.

use shakmaty::{san::San, Chess, EnPassantMode, Move, Position};

use crate::notation::write::Notation;
use crate::notation::{self, CaptureClaim, CheckClaim, MovePattern, Notes, ReadMove};
use crate::rules::matcher::long_form;

pub(super) use crate::notation::fen::fen;

pub(super) fn san(pos: &Chess, mv: &Move) -> String {
    San::from_move(pos, *mv).to_string()
}

/// A legal move as the writer of `token` would have written it, with SAN in parentheses when
/// that differs: `Bc4xf7+ (Bxf7+)`, `象c4×f7+ (Bxf7+)`, and with the piece letters of `lang`
/// (`--lang de`: `Lb5 (Bb5)`), the language the score is read in.
pub(super) fn shown_move(
    pos: &Chess,
    m: &ReadMove,
    token: &str,
    mv: &Move,
    lang: Option<notation::Lang>,
) -> String {
    let long = matches!(m.pattern,
        MovePattern::Normal(n) if n.from_file.is_some() && n.from_rank.is_some());
    let sign = suffix(pos, mv);
    let s = san(pos, mv) + sign;
    let written = if m.notes.has(Notes::CHINESE) {
        let style = notation::write::ZhStyle {
            traditional: ["馬", "車"].iter().any(|c| token.contains(c)),
            ..Default::default()
        };
        Some(if long {
            Notation::ZhLong(style)
        } else {
            Notation::Zh(style)
        })
    } else {
        lang.filter(|&l| l != notation::Lang::En)
            .map(|lang| Notation::Letters { lang, long })
    };
    let shown = match written {
        Some(written) => {
            let mut out = String::new();
            let check = match sign {
                "#" => CheckClaim::Mate,
                "+" => CheckClaim::Check,
                _ => CheckClaim::None,
            };
            notation::write::write(pos, *mv, check, written, &mut out);
            out
        }
        None if long => long_form(mv) + sign,
        None => s.clone(),
    };
    if shown == s {
        s
    } else {
        format!("{shown} ({s})")
    }
}

/// `+` or `#` for the move played in `pos`.
pub(super) fn suffix(pos: &Chess, mv: &Move) -> &'static str {
    let mut after = pos.clone();
    after.play_unchecked(*mv);
    if after.is_checkmate() {
        "#"
    } else if after.is_check() {
        "+"
    } else {
        ""
    }
}

/// Why no legal move fits the pattern, in words.
pub(super) fn explain_illegal(pos: &Chess, m: &ReadMove) -> String {
    use shakmaty::{Role, Square};
    match m.pattern {
        MovePattern::Castle(side) => {
            let name = if side == shakmaty::CastlingSide::KingSide {
                "short"
            } else {
                "long"
            };
            if !pos.castles().has(pos.turn(), side) {
                format!("{name} castling is no longer allowed (king or rook has moved)")
            } else if pos.is_check() {
                "the king is in check".into()
            } else {
                format!("{name} castling is blocked or passes through an attacked square")
            }
        }
        MovePattern::CastleAnySide => "no castling move is legal".into(),
        MovePattern::Null => "null move".into(),
        MovePattern::Normal(n) => {
            let role_name = |r: Role| match r {
                Role::Pawn => "pawn",
                Role::Knight => "knight",
                Role::Bishop => "bishop",
                Role::Rook => "rook",
                Role::Queen => "queen",
                Role::King => "king",
            };
            if let (Some(f), Some(r)) = (n.from_file, n.from_rank) {
                let from = Square::from_coords(f, r);
                match pos.board().piece_at(from) {
                    None => return format!("there is no piece on {from}"),
                    Some(p) if p.color != pos.turn() => {
                        return format!("the piece on {from} belongs to the opponent")
                    }
                    Some(p) if n.role.is_some_and(|r| r != p.role) => {
                        return format!(
                            "there is no {} on {from} (a {} stands there)",
                            role_name(n.role.unwrap_or(p.role)),
                            role_name(p.role)
                        )
                    }
                    _ => {}
                }
            }
            let role = n.role.unwrap_or(Role::Pawn);
            if n.role.is_some() && (pos.board().by_piece(role.of(pos.turn()))).is_empty() {
                let side = pos.turn().fold_wb("White", "Black");
                return format!("{side} has no {}", role_name(role));
            }
            if let Some(rank) = n.to_rank {
                let to = Square::from_coords(n.to_file, rank);
                if pos.us().contains(to) {
                    return format!("{to} is occupied by a piece of the side to move");
                }
                if m.capture == CaptureClaim::Capture
                    && !pos.them().contains(to)
                    && pos.ep_square(EnPassantMode::Legal) != Some(to)
                {
                    return format!("there is nothing to capture on {to}");
                }
                if pos.is_check() {
                    return format!(
                        "no {} can go to {to} while the king is in check",
                        role_name(role)
                    );
                }
                return format!("no {} can go to {to}", role_name(role));
            }
            "no legal move fits".into()
        }
    }
}
