//! Findings about the tag section and the lexer's problems: the Seven Tag Roster, repeated
//! tags, the Date, the Result and FEN/SetUp tags, and lexer problems turned into findings.

use std::collections::HashSet;

use crate::diag::{quote, Capped, Code, Finding};
use crate::pgn::{GameResult, KnownTag, KnownTags, LexProblem, LexProblemKind, Lexed};

pub(super) fn tag_findings(lexed: &Lexed, known: &KnownTags, out: &mut Capped) {
    // The book layout's header has the players and, when known, the date, place and event;
    // it has no place for a round, and its result is the result token (whose absence P007
    // reports). A book game misses only a player.
    let in_layout = |k: KnownTag| !lexed.book || matches!(k, KnownTag::White | KnownTag::Black);
    let missing: Vec<&str> = KnownTag::ROSTER
        .into_iter()
        .filter(|&k| known.get(k).is_none() && in_layout(k))
        .map(KnownTag::name)
        .collect();
    if let Some(first) = lexed.tags().next().filter(|_| !missing.is_empty()) {
        out.push(
            Finding::new(
                Code::MissingRosterTag,
                Some(first.span),
                format!(
                    "missing Seven Tag Roster tag{}: {}",
                    if missing.len() == 1 { "" } else { "s" },
                    missing.join(", ")
                ),
            )
            .help("add them; use \"?\" for an unknown value"),
        );
    }
    // A name seen before is looked for only when a cheap fingerprint (length, first and last
    // byte, one of 256 bits) has been seen before: most games have no two tags alike, and a
    // game of the usual twenty or thirty tags then meets a false alarm or two, each a short
    // scan. Past 64 tags the names go into a set, so that a game of a hundred thousand tags
    // costs a pass, not their square.
    let mut seen = [0u64; 4];
    let mut names: Option<HashSet<&[u8]>> = None;
    let mut repeats = Vec::new();
    for (i, name) in lexed.tag_names().enumerate() {
        if let Some(names) = names.as_mut() {
            if !names.insert(name) {
                repeats.push(i);
            }
            continue;
        }
        let (first, last) = (name.first().copied(), name.last().copied());
        let print = name.len() * 61
            + usize::from(first.unwrap_or(0)) * 7
            + usize::from(last.unwrap_or(0)) * 31;
        let (word, bit) = ((print >> 6) % 4, 1u64 << (print % 64));
        let maybe = seen[word] & bit != 0;
        seen[word] |= bit;
        if maybe && i >= 64 {
            let mut set: HashSet<&[u8]> = lexed.tag_names().take(i).collect();
            if !set.insert(name) {
                repeats.push(i);
            }
            names = Some(set);
        } else if maybe && lexed.tag_names().take(i).any(|u| u == name) {
            repeats.push(i);
        }
    }
    let mut repeats = repeats.into_iter().peekable();
    for (i, t) in lexed.tags().enumerate() {
        if repeats.peek().is_none() {
            break;
        }
        if repeats.next_if_eq(&i).is_some() {
            out.push(
                Finding::new(
                    Code::DuplicateTag,
                    Some(t.span),
                    format!("tag {} appears more than once", quote(t.name)),
                )
                .help("keep one of them; pgnkit uses the first"),
            );
        }
    }
    if let Some(t) = known.get(KnownTag::Date) {
        if let Err(why) = crate::pgn::date::parse(t.value) {
            out.push(
                Finding::new(
                    Code::MalformedDate,
                    Some(t.span),
                    format!("Date \"{}\" {}", quote(t.value), why.kind),
                )
                .help("write YYYY.MM.DD, with ?? for unknown parts (2025.05.??)"),
            );
        }
    }
    if let Some(t) = known.get(KnownTag::Result) {
        if GameResult::of_tag(t.value).is_none() {
            let mut f = Finding::new(
                Code::UnknownResultTag,
                Some(t.span),
                format!("Result \"{}\" is not a PGN result", quote(t.value)),
            );
            f = match GameResult::parse(t.value.as_bytes()) {
                Some((r, _)) => f.help(format!("write [Result \"{}\"]", r.as_str())),
                None => f.help("use 1-0, 0-1, 1/2-1/2 or *"),
            };
            out.push(f);
        }
    }
    match (known.get(KnownTag::Fen), known.get(KnownTag::SetUp)) {
        (Some(f), None) => out.push(
            Finding::new(
                Code::FenWithoutSetUp,
                Some(f.span),
                "FEN tag without SetUp \"1\"",
            )
            .help("add [SetUp \"1\"] before the FEN tag"),
        ),
        (Some(f), Some(s)) if s.value != "1" => out.push(
            Finding::new(
                Code::FenWithoutSetUp,
                Some(f.span),
                format!("FEN tag with SetUp \"{}\"", s.value),
            )
            .help("set [SetUp \"1\"]"),
        ),
        (None, Some(s)) if s.value == "1" => out.push(
            Finding::new(
                Code::SetUpWithoutFen,
                Some(s.span),
                "SetUp \"1\" but no FEN tag: the starting position is unknown",
            )
            .help("add the FEN tag, or remove SetUp to start from the standard position"),
        ),
        _ => {}
    }
}

pub(super) fn lex_findings(problems: &[LexProblem], out: &mut Capped) {
    for p in problems {
        let span = Some(p.span);
        let f = match p.kind {
            LexProblemKind::UnterminatedTag => Finding::new(Code::UnterminatedTag, span, "the tag pair is not closed on its line")
                .help("close it on its line: [Name \"value\"]"),
            LexProblemKind::MalformedTag => Finding::new(Code::MalformedTag, span, "this is not a tag pair")
                .help("write tags as [Name \"value\"]"),
            LexProblemKind::UnescapedQuote => Finding::new(Code::UnescapedQuote, span, "a quote inside the tag value is not escaped")
                .help("write \\\" for a quote inside a value"),
            LexProblemKind::InvalidUtf8Tag => Finding::new(Code::InvalidUtf8Tag, span, "the tag value is not valid UTF-8; bad bytes are shown as \\xNN")
                .help("convert the file to UTF-8 (or give its encoding)"),
            LexProblemKind::UnterminatedComment => Finding::new(Code::UnterminatedComment, span, "the comment opened here is never closed")
                .help("add the missing '}'"),
            LexProblemKind::UnterminatedVariation => Finding::new(Code::UnterminatedVariation, span, "a variation is still open at the end of the game")
                .help("add the missing ')'"),
            LexProblemKind::UnmatchedVariationEnd => Finding::new(Code::UnmatchedVariationEnd, span, "')' closes no variation")
                .help("remove it or add the missing '('"),
            LexProblemKind::ResultInVariation => Finding::new(Code::ResultInVariation, span, "a result token inside a variation")
                .help("results belong at the end of the main line; remove it or close the variation first"),
            LexProblemKind::MissingResult => Finding::new(Code::MissingResult, span, "the game ends without a result token")
                .help("end the movetext with 1-0, 0-1, 1/2-1/2 or *"),
            LexProblemKind::NonStandardResult => Finding::new(Code::NonStandardResult, span, "the result is not written 1-0, 0-1, 1/2-1/2 or *")
                .help("use the PGN spelling"),
            LexProblemKind::BadNag => Finding::new(Code::BadNag, span, "not an annotation glyph ($0 to $255, !, ?, !!, ??, !?, ?!)")
                .help("fix or remove the annotation"),
            LexProblemKind::TagInMovetext => Finding::new(Code::TagInMovetext, span, "'[' inside the movetext")
                .help("tag pairs go before the moves; put commentary in { braces }"),
            LexProblemKind::GameTooLarge => Finding::new(Code::GameTooLarge, span, "the game is larger than the size limit and was skipped")
                .help("raise --max-game-size if the game is genuine"),
            LexProblemKind::DashedEvaluation => Finding::new(Code::DashedEvaluation, span, "read as the evaluation $18 (White is winning) or $19 (Black is winning); it may also be a check sign and a null move")
                .help("write $18 or $19, or '+ --' for a check and a null move"),
            LexProblemKind::CellGoesOn => Finding::new(Code::ParquetCellHoldsMore, span, "the movetext cell goes on after this result: a row is one game, and what follows (another game's tags or moves) was not read")
                .help("give each game a row of its own"),
            LexProblemKind::TagsInCell => Finding::new(Code::ParquetCellHoldsMore, span, "the movetext cell holds tag pairs: they are not taken as the row's tags")
                .help("put the tags in columns of their own (Event, White, ...) and only the moves in the movetext"),
            LexProblemKind::EmptyRecord => Finding::new(Code::ParquetRowWithoutGame, span, "the row has no tags and no moves: it holds no game")
                .help("give the row its game's moves (and its tags in columns), or leave the row out of the file"),
            LexProblemKind::ForumWrapper => Finding::new(Code::ForumWrapper, span, "the game is wrapped in a forum's [pgn] ... [/pgn]; the game inside was read")
                .help("remove the [pgn] and [/pgn] lines"),
        };
        out.push(f);
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::Code;
    use crate::pgn::{lex_game, Lexed, Movetext};
    use crate::rules::game::{check_game, CheckOptions};
    use crate::rules::visit::NoVisitor;

    /// The tags T004 names in a game of these tag names, in order.
    fn duplicates(names: &[String]) -> Vec<String> {
        let mut pgn = String::new();
        for n in names {
            pgn.push_str(&format!("[{n} \"x\"]\n"));
        }
        pgn.push_str("\n1. e4 *\n");
        let mut lexed = Lexed::default();
        lex_game(pgn.as_bytes(), true, 1, &mut lexed);
        let report = check_game(
            pgn.as_bytes(),
            &lexed,
            Movetext::Tokens,
            &CheckOptions::default(),
            &mut NoVisitor,
        );
        report
            .findings
            .iter()
            .filter(|f| f.code == Code::DuplicateTag)
            .map(|f| f.message.clone())
            .collect()
    }

    #[test]
    fn duplicate_tags_are_found_at_every_count_and_place() {
        // Names of one length and one first and last byte share a fingerprint: the scans
        // behind the fingerprint decide. Counts on both sides of the set's threshold.
        for count in [2usize, 15, 16, 17, 30, 63, 64, 65, 100] {
            let names: Vec<String> = (0..count).map(|i| format!("T{i:03}x")).collect();
            assert!(duplicates(&names).is_empty(), "{count} tags, none repeated");
            for (from, to) in [
                (0, 1),
                (0, count - 1),
                (count / 2, count - 1),
                (1, count / 2),
            ] {
                if from >= to {
                    continue;
                }
                let mut names = names.clone();
                names[to] = names[from].clone();
                let want = vec![format!("tag {} appears more than once", names[from])];
                assert_eq!(
                    duplicates(&names),
                    want,
                    "{count} tags, {from} again at {to}"
                );
            }
        }
    }
}
