//! Criteria given other than as one `--where` expression, read into the language: the lines
//! of a `--where-file`, pgn-extract's tag files (`-t`, `--tag-file`) and the ranges of
//! matched games of `--selectonly` / `--skipmatching`.

use std::fmt;
use std::str::FromStr;

/// A problem in a criteria file: what is wrong, and on which line (from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for LineError {}

/// The expressions of a `--where-file`: one a line, with its line number (from 1); blank
/// lines and lines starting with `#` are left out. The file selects a game when any line
/// does.
pub fn where_lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, line)| (n + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .collect()
}

/// A string literal of the language holding `text` exactly.
pub fn quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// pgn-extract's tag file (`-t FILE`), as one expression of the language.
///
/// Each line is `Tag "value"` (the tag's value starts with `value`) or `Tag OP "value"` with
/// OP one of `< <= > >= = <>`; as pgn-extract reads them, lines of the same tag without an
/// operator are or-ed, its comparisons and-ed (a range; `TimeControl`'s or-ed), tags and-ed,
/// and `<>` holds for a game without the tag. `Player` is
/// `White` or `Black`, `Elo` is `WhiteElo` or `BlackElo`; `FEN` is a position the main line
/// reaches (its board and side to move), `FENPattern` a [pattern](super::pattern) (a label
/// after it names the test, for `--add-label-tag`), `FENPatternI` that pattern or the same
/// with the colours swapped; `EloDiff` the difference of the ratings (`elo_diff`). Lines
/// starting with `%` are comments.
///
/// # Errors
///
/// The first line that is none of these, with its number; or a file with no criterion.
pub fn tag_file(text: &str) -> Result<String, LineError> {
    // Groups by tag, in the order their tag first appears: the lines any of which will do
    // (values as prefixes, positions), and the comparisons all of which must hold (pgn-extract
    // ands them: `WhiteElo >= "800"` and `WhiteElo <= "899"` is a range).
    let mut groups: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let bad = |message: String| LineError {
            line: n + 1,
            message,
        };
        let (name, rest) = line.split_once(char::is_whitespace).ok_or_else(|| {
            bad(format!(
                "expected a tag name and a quoted value, as White \"Tal\": {line}"
            ))
        })?;
        if !name.starts_with(|c: char| c.is_ascii_alphabetic())
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(bad(format!("'{name}' is no tag name")));
        }
        let rest = rest.trim_start();
        let (op, rest) = match rest.find('"') {
            Some(i) => (rest[..i].trim(), &rest[i..]),
            None => return Err(bad(format!("the value of {name} is not quoted: {line}"))),
        };
        let value = rest[1..]
            .find('"')
            .map(|end| &rest[1..1 + end])
            .ok_or_else(|| bad(format!("the value of {name} has no closing quote")))?;
        let op = match op {
            "" => None,
            "<>" => Some("!="),
            "=" | "<" | "<=" | ">" | ">=" => Some(op),
            other => {
                return Err(bad(format!(
                    "unknown operator '{other}': a tag file takes < <= > >= = <>"
                )))
            }
        };
        let numeric =
            matches!(name, "Elo" | "EloDiff" | "TimeControl") || super::expr::numeric_tag(name);
        let ordered = matches!(op, Some("<" | "<=" | ">" | ">="));
        if numeric && ordered && value.trim().parse::<f64>().is_err() {
            let example = if name == "TimeControl" { "180" } else { "2500" };
            return Err(bad(format!(
                "{name} compares as a number, and \"{value}\" is none: write a number, as \
                 {name} {} \"{example}\"",
                op.unwrap_or_default()
            )));
        }
        let test = match (name, op) {
            ("FEN", None) => {
                let fields: Vec<&str> = value.split_whitespace().take(2).collect();
                format!("position = {}", quote(&fields.join(" ")))
            }
            ("FENPattern", None) => {
                let pattern = value.split_whitespace().next().unwrap_or_default();
                format!("pattern = {}{}", quote(pattern), label_of(rest, ""))
            }
            ("FENPatternI", None) => {
                // As written, or with the colours swapped (pgn-extract's FENPatternI).
                let pattern = value.split_whitespace().next().unwrap_or_default();
                let inverted = super::pattern::inverted(pattern);
                // The inverted pattern's label ends in I, as pgn-extract names it.
                let (label, label_i) = (label_of(rest, ""), label_of(rest, "I"));
                format!(
                    "pattern = {}{label} or pattern = {}{label_i}",
                    quote(pattern),
                    quote(&inverted)
                )
            }
            ("EloDiff", Some(op)) => format!("elo_diff {op} {}", quote(value)),
            ("EloDiff", None) => {
                return Err(bad(format!(
                    "EloDiff takes an operator, as EloDiff <= \"50\": {line}"
                )));
            }
            ("FEN" | "FENPattern" | "FENPatternI", Some(_)) => {
                return Err(bad(format!("{name} takes no operator")));
            }
            (_, None) => {
                let prefix = quote(&format!("^{}", regex::escape(value)));
                match name {
                    "Player" => format!("White matches {prefix} or Black matches {prefix}"),
                    "Elo" => format!("WhiteElo matches {prefix} or BlackElo matches {prefix}"),
                    tag => format!("{tag} matches {prefix}"),
                }
            }
            (_, Some(op)) => {
                let value = quote(value);
                match name {
                    "Player" => format!("White {op} {value} or Black {op} {value}"),
                    "Elo" => format!("WhiteElo {op} {value} or BlackElo {op} {value}"),
                    // A game without the tag is not equal to the value, as pgn-extract has it.
                    tag if op == "!=" => format!("not {tag} = {value}"),
                    tag => format!("{tag} {op} {value}"),
                }
            }
        };
        // TimeControl's comparisons are alternatives in pgn-extract, unlike the others'.
        let all_must_hold =
            op.is_some() && !matches!(name, "FEN" | "FENPattern" | "FENPatternI" | "TimeControl");
        let group = match name {
            "FEN" | "FENPattern" | "FENPatternI" => "FEN",
            name => name,
        };
        let at = match groups.iter().position(|(g, _, _)| g == group) {
            Some(at) => at,
            None => {
                groups.push((group.to_owned(), Vec::new(), Vec::new()));
                groups.len() - 1
            }
        };
        let (_, any, all) = &mut groups[at];
        if all_must_hold { all } else { any }.push(test);
    }
    if groups.is_empty() {
        return Err(LineError {
            line: 0,
            message: "no criterion in the file (lines such as White \"Tal\")".into(),
        });
    }
    let mut tests = Vec::new();
    for (_, any, all) in &groups {
        if !any.is_empty() {
            tests.push(format!("({})", any.join(" or ")));
        }
        tests.extend(all.iter().map(|t| format!("({t})")));
    }
    Ok(tests.join(" and "))
}

/// The label after a `FENPattern` line's quoted pattern (pgn-extract's, for its
/// `--addlabeltag`), with `suffix` after it, as the language's `label "..."`; empty when there
/// is none. `rest` starts at the pattern's opening quote.
fn label_of(rest: &str, suffix: &str) -> String {
    let after = rest[1..].find('"').map_or("", |end| &rest[end + 2..]);
    match after.trim() {
        "" => String::new(),
        label => format!(" label {}", quote(&format!("{label}{suffix}"))),
    }
}

/// pgn-extract's material file (`-y FILE` with `either` false, `-z FILE` with it true), as
/// one expression: each line a [balance](super::material::Balance), any of them; lines
/// starting with `%` are comments.
///
/// # Errors
///
/// A file with no balance.
pub fn material_file(text: &str, either: bool) -> Result<String, LineError> {
    let field = if either { "balance" } else { "white_balance" };
    let tests: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('%'))
        .map(|l| format!("{field} = {}", quote(l)))
        .collect();
    if tests.is_empty() {
        return Err(LineError {
            line: 0,
            message: "no balance in the file (lines such as R2P+ R=P*)".into(),
        });
    }
    Ok(tests.join(" or "))
}

/// Which matched games `--selectonly` / `--skipmatching` name: pgn-extract's ranges, `1:10,15`
/// (the first ten matches and the fifteenth), counted from 1 in the order the games are
/// written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchRanges(Vec<(u64, u64)>);

impl MatchRanges {
    /// Whether the `n`th match (from 1) is in a range.
    pub fn contains(&self, n: u64) -> bool {
        self.0.iter().any(|&(low, high)| (low..=high).contains(&n))
    }
}

impl FromStr for MatchRanges {
    type Err = String;

    fn from_str(s: &str) -> Result<MatchRanges, String> {
        let number = |n: &str| -> Result<u64, String> {
            match n.trim().parse::<u64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!(
                    "'{n}' is no match number: matches count from 1 (ranges as 1:10,15)"
                )),
            }
        };
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for part in s.split(',') {
            let (low, high) = match part.split_once(':') {
                Some((low, high)) => (number(low)?, number(high)?),
                None => (number(part)?, number(part)?),
            };
            if low > high {
                return Err(format!("the range {part} ends before it starts"));
            }
            if ranges.last().is_some_and(|&(_, end)| low <= end) {
                return Err(format!(
                    "the ranges must go up without overlapping, as 1:10,15: {part} does not"
                ));
            }
            ranges.push((low, high));
        }
        Ok(MatchRanges(ranges))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_files_group_by_tag() {
        let text = "% Tal's games of 1960 and 1962 as White\nWhite \"Tal\"\nDate \"1960\"\n\
                    Date \"1962\"\nElo >= \"2500\"\nResult <> \"1-0\"\n";
        assert_eq!(
            tag_file(text).expect("reads"),
            "(White matches \"^Tal\") and (Date matches \"^1960\" or Date matches \"^1962\") \
             and (WhiteElo >= \"2500\" or BlackElo >= \"2500\") and (not Result = \"1-0\")"
        );
        assert_eq!(
            tag_file("White \"a.b\\\"\n").expect("reads"),
            "(White matches \"^a\\\\.b\\\\\\\\\")"
        );
        assert_eq!(
            tag_file("FENPattern \"8/*/*/*/*/*/*/*\" empty eighth\n").expect("reads"),
            "(pattern = \"8/*/*/*/*/*/*/*\" label \"empty eighth\")"
        );
        assert_eq!(
            tag_file("FENPatternI \"8/*/*/*/*/*/*/*\" e\n").expect("reads"),
            "(pattern = \"8/*/*/*/*/*/*/*\" label \"e\" or pattern = \"*/*/*/*/*/*/*/8\" \
             label \"eI\")"
        );
        for (text, line) in [
            ("White Tal", 1),
            ("\n\nWhite ~ \"x\"", 3),
            ("% only", 0),
            ("White \"A\"\nWhiteElo <= \"x\"", 2),
            ("Elo > \"2,500\"", 1),
            ("EloDiff \"50\"", 1),
            ("TimeControl >= \"40/\"", 1),
        ] {
            assert_eq!(tag_file(text).expect_err(text).line, line, "{text}");
        }
    }

    #[test]
    fn ranges_read_as_pgn_extract_writes_them() {
        let r: MatchRanges = "1:3,10".parse().expect("reads");
        assert_eq!(
            (1..=11).filter(|&n| r.contains(n)).collect::<Vec<_>>(),
            [1, 2, 3, 10]
        );
        for bad in ["0", "3:1", "5,2", "1:5,5", "x", ""] {
            assert!(bad.parse::<MatchRanges>().is_err(), "{bad}");
        }
    }
}
