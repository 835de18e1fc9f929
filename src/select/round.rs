//! Rounds as PGN writes them (`5`, `5.2`, `3.1.4`): parts separated by `.`, compared part by
//! part.
//!
//! The rule: each part is a whole number and compares as one (`5.10` comes after `5.9`, `05`
//! equals `5`); the first part that differs decides; a round that runs out of parts first
//! comes first (`5` before `5.1`). So `5.2`, `5.20` and `5.200` are three rounds, where a
//! decimal reading would make them one. A value with a part that is not digits (`?`, `-`,
//! `5.x`) is no round: every comparison with one is false, as with a missing tag.

use std::cmp::Ordering;

/// A round whose every part is digits, kept as written (leading zeros dropped) so that a
/// part of any length compares without overflow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    parts: Vec<String>,
}

impl Round {
    /// Reads `N`, `N.N`, `N.N.N`...; `None` when a part is empty or not all digits.
    pub fn parse(text: &str) -> Option<Round> {
        parts(text)
            .map(|p| p.map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(|parts| Round { parts })
    }

    /// The order of the round `text` (a tag's value) against this one; `None` when `text` is
    /// no round. Reads `text` in place: no allocation a game.
    pub fn compare_with(&self, text: &str) -> Option<Ordering> {
        let mut theirs = parts(text);
        let mut ours = self.parts.iter();
        let mut ordering = Ordering::Equal;
        loop {
            match (theirs.next(), ours.next()) {
                (None, None) => return Some(ordering),
                // A part that is no number makes the whole value no round, wherever it is.
                (Some(None), _) => return None,
                (Some(Some(a)), Some(b)) => {
                    if ordering == Ordering::Equal {
                        ordering = compare_part(a, b);
                    }
                }
                (Some(Some(_)), None) => {
                    if ordering == Ordering::Equal {
                        ordering = Ordering::Greater;
                    }
                }
                (None, Some(_)) => {
                    return Some(if ordering == Ordering::Equal {
                        Ordering::Less
                    } else {
                        ordering
                    })
                }
            }
        }
    }
}

/// The parts of `text`, each its digits without leading zeros (`0` stays `0`), or `None` for a
/// part that is no number.
fn parts(text: &str) -> impl Iterator<Item = Option<&str>> {
    text.trim().split('.').map(|p| {
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())).then(|| {
            let trimmed = p.trim_start_matches('0');
            if trimmed.is_empty() {
                "0"
            } else {
                trimmed
            }
        })
    })
}

/// Two parts without leading zeros: the longer is the larger, then digit by digit.
fn compare_part(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Round {
        Round::parse(s).unwrap_or_else(|| panic!("{s} is a round"))
    }

    #[test]
    fn reads_rounds_of_digit_parts_only() {
        for good in [
            "5",
            "5.2",
            "05.020",
            "3.1.4",
            " 7 ",
            "123456789012345678901234567890",
        ] {
            assert!(Round::parse(good).is_some(), "{good}");
        }
        for bad in ["", "?", "-", "5.", ".5", "5..2", "5.x", "5,2", "-1", "1e3"] {
            assert_eq!(Round::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn parts_compare_as_whole_numbers_one_by_one() {
        use Ordering::*;
        for (value, round, want) in [
            ("5.2", "5.2", Some(Equal)),
            ("5.20", "5.2", Some(Greater)),
            ("5.200", "5.2", Some(Greater)),
            ("5.02", "5.2", Some(Equal)),
            ("5.10", "5.9", Some(Greater)),
            ("5.9", "5.10", Some(Less)),
            ("12", "5.9", Some(Greater)),
            ("5", "5.1", Some(Less)),
            ("5.1", "5", Some(Greater)),
            ("4.9.9", "5", Some(Less)),
            ("6", "5.1", Some(Greater)),
            ("3.0", "3", Some(Greater)),
            ("99999999999999999999", "5", Some(Greater)),
            ("?", "5", None),
            ("-", "5", None),
            ("5.x", "5", None),
            ("4.x", "5", None),
            ("", "5", None),
        ] {
            assert_eq!(r(round).compare_with(value), want, "{value} vs {round}");
        }
    }
}
