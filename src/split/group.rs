//! Which file of `pgnkit split` each game goes to, and file names safe on every system for
//! any tag value.

use std::collections::{HashMap, HashSet};

/// How games are split into files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum By {
    /// `games-0001.pgn`, ...: this many games a file, in input order.
    Games(u64),
    /// `event-<slug>.pgn`: by the `Event` tag.
    Event,
    /// `eco-A.pgn` ... `eco-E.pgn`: by the letter of the `ECO` tag, or of the opening
    /// classified from the moves when the tag is missing or names none.
    EcoLetter,
    /// `eco-B90.pgn`: by the `ECO` code, tagged or classified as for [`By::EcoLetter`].
    Eco,
    /// `tag-<Name>-<slug>.pgn`: by the value of the tag of this name.
    Tag(String),
}

impl By {
    /// The mode of `--by`'s value: `games:N`, `event`, `eco`, `eco-letter` or `tag:NAME`.
    ///
    /// # Errors
    ///
    /// Any other text, or a number of games that is not a positive whole number.
    pub fn parse(text: &str) -> Result<By, String> {
        if let Some(n) = text.strip_prefix("games:") {
            return match n.parse::<u64>() {
                Ok(n) if n > 0 => Ok(By::Games(n)),
                _ => Err(format!(
                    "`{text}`: the number of games a file must be a whole number above 0, as in games:1000"
                )),
            };
        }
        if let Some(name) = text.strip_prefix("tag:") {
            if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) {
                return Err(format!(
                    "`{text}`: give a tag name without spaces after `tag:`, as in tag:Site"
                ));
            }
            return Ok(By::Tag(name.to_owned()));
        }
        match text {
            "event" => Ok(By::Event),
            "eco-letter" => Ok(By::EcoLetter),
            "eco" => Ok(By::Eco),
            _ => Err(format!(
                "`{text}` is no way to split: use games:N, event, eco, eco-letter or tag:NAME"
            )),
        }
    }

    /// The tag whose value names a game's file, if the mode goes by a tag.
    pub fn tag(&self) -> Option<&str> {
        match self {
            By::Games(_) => None,
            By::Event => Some("Event"),
            By::EcoLetter | By::Eco => Some("ECO"),
            By::Tag(name) => Some(name),
        }
    }
}

impl By {
    /// Whether a game whose tag (of [`By::tag`]) holds `value` goes to a file only once its
    /// opening is classified from its moves: the mode goes by ECO and the tag names no
    /// group of it.
    pub fn classifies(&self, value: Option<&str>) -> bool {
        match self {
            By::EcoLetter => eco_letter(value).is_none(),
            By::Eco => eco_code(value).is_none(),
            _ => false,
        }
    }
}

/// The letter of an ECO code, `A` to `E` in either case.
fn eco_letter(value: Option<&str>) -> Option<char> {
    value?
        .trim()
        .chars()
        .next()
        .map(|c| c.to_ascii_uppercase())
        .filter(|c| ('A'..='E').contains(c))
}

/// An ECO code, a letter `A` to `E` (either case) and two digits, in upper case.
fn eco_code(value: Option<&str>) -> Option<String> {
    let v = value?.trim();
    let b = v.as_bytes();
    let code = b.len() == 3
        && matches!(b[0].to_ascii_uppercase(), b'A'..=b'E')
        && b[1..].iter().all(u8::is_ascii_digit);
    code.then(|| v.to_ascii_uppercase())
}

/// Text made into part of a file name: ASCII letters, digits and `-` are kept, every run of
/// anything else (spaces, dots, slashes, other scripts, control bytes) becomes one `_`; `_`
/// and `-` are trimmed from the ends; at most 60 bytes; `_` if nothing is left. Such a name
/// is valid on every system, is never `.` or `..`, and never ends in a dot or a space.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c);
            if out.len() >= 60 {
                break;
            }
        } else {
            gap = true;
        }
    }
    let out = out.trim_matches(['_', '-']);
    if out.is_empty() {
        "_".to_owned()
    } else {
        out.to_owned()
    }
}

/// Gives each game its file's name, in input order. Distinct values whose slugs are the same
/// (`Open 2024` and `Open.2024`, or the same but for case, as systems that ignore case see
/// names) get distinct names: the first seen has the plain name, the next `-2`, `-3`...
#[derive(Debug)]
pub struct Grouper {
    by: By,
    games: u64,
    /// The name given to each value seen (`None`: the game has no such tag).
    names: HashMap<Option<String>, String>,
    /// Names given, in lower case.
    taken: HashSet<String>,
}

impl Grouper {
    pub fn new(by: By) -> Grouper {
        Grouper {
            by,
            games: 0,
            names: HashMap::new(),
            taken: HashSet::new(),
        }
    }

    /// The file name (without the folder) for the next game, whose tag `self.by` names has
    /// `value` (`None` when the game has no such tag, or it holds `?` or nothing).
    pub fn file_for(&mut self, value: Option<&str>) -> String {
        self.games += 1;
        let value = value.map(str::trim).filter(|v| !v.is_empty() && *v != "?");
        match &self.by {
            By::Games(n) => format!("games-{:04}.pgn", (self.games - 1) / n + 1),
            By::EcoLetter => match eco_letter(value) {
                Some(c) => format!("eco-{c}.pgn"),
                None => "eco-unknown.pgn".to_owned(),
            },
            By::Eco => match eco_code(value) {
                Some(code) => format!("eco-{code}.pgn"),
                None => "eco-unknown.pgn".to_owned(),
            },
            By::Event | By::Tag(_) => {
                let key = value.map(str::to_owned);
                if let Some(name) = self.names.get(&key) {
                    return name.clone();
                }
                let prefix = match &self.by {
                    By::Tag(tag) => format!("tag-{}-", slug(tag)),
                    _ => "event-".to_owned(),
                };
                let base = format!("{prefix}{}", value.map_or_else(|| "unknown".into(), slug));
                let mut name = format!("{base}.pgn");
                let mut n = 1;
                while self.taken.contains(&name.to_ascii_lowercase()) {
                    n += 1;
                    name = format!("{base}-{n}.pgn");
                }
                self.taken.insert(name.to_ascii_lowercase());
                self.names.insert(key, name.clone());
                name
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_for_any_text() {
        for (text, want) in [
            ("Tata Steel 2024", "Tata_Steel_2024"),
            ("../../etc/passwd", "etc_passwd"),
            ("CON", "CON"),
            ("a\0b\r\nc", "a_b_c"),
            ("  ..  ", "_"),
            ("全国象棋个人赛", "_"),
            ("Ch-URS 1985.", "Ch-URS_1985"),
            ("-x-", "x"),
        ] {
            assert_eq!(slug(text), want, "{text:?}");
        }
        assert_eq!(slug(&"a".repeat(500)).len(), 60);
    }

    #[test]
    fn clashing_slugs_get_distinct_names() {
        let mut g = Grouper::new(By::Event);
        assert_eq!(g.file_for(Some("Open 2024")), "event-Open_2024.pgn");
        assert_eq!(g.file_for(Some("Open.2024")), "event-Open_2024-2.pgn");
        assert_eq!(g.file_for(Some("open 2024")), "event-open_2024-3.pgn");
        assert_eq!(g.file_for(Some("Open 2024")), "event-Open_2024.pgn");
        assert_eq!(g.file_for(None), "event-unknown.pgn");
        assert_eq!(g.file_for(Some("?")), "event-unknown.pgn");
        assert_eq!(g.file_for(Some("Unknown")), "event-Unknown-2.pgn");
    }

    #[test]
    fn modes() {
        let mut g = Grouper::new(By::Games(2));
        let names: Vec<String> = (0..5).map(|_| g.file_for(None)).collect();
        assert_eq!(
            names,
            [
                "games-0001.pgn",
                "games-0001.pgn",
                "games-0002.pgn",
                "games-0002.pgn",
                "games-0003.pgn"
            ]
        );
        let mut g = Grouper::new(By::EcoLetter);
        assert_eq!(g.file_for(Some("b90")), "eco-B.pgn");
        assert_eq!(g.file_for(Some("Z00")), "eco-unknown.pgn");
        let mut g = Grouper::new(By::parse("eco").unwrap());
        assert_eq!(g.file_for(Some(" b90")), "eco-B90.pgn");
        for bad in ["B9", "B900", "F10", "?", ""] {
            assert_eq!(g.file_for(Some(bad)), "eco-unknown.pgn", "{bad}");
            assert!(By::Eco.classifies(Some(bad)), "{bad}");
        }
        assert!(!By::Eco.classifies(Some("e20")));
        assert!(By::EcoLetter.classifies(None));
        assert!(!By::EcoLetter.classifies(Some("C")));
        assert!(!By::Event.classifies(None));
        let mut g = Grouper::new(By::parse("tag:Site").unwrap());
        assert_eq!(
            g.file_for(Some("Wijk aan Zee")),
            "tag-Site-Wijk_aan_Zee.pgn"
        );
        assert!(By::parse("games:0").is_err());
        assert!(By::parse("colour").is_err());
    }
}
