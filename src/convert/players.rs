//! Tags from a table of players (`--player-tags`, pgn-extract's `--addelotags` and
//! `--addfideidtags`): a CSV or TSV file whose rows give, for a player's name or FIDE id, the
//! values of tags such as `Elo`, `FideId` or `Title`, written as `WhiteElo`, `BlackFideId`...
//! for the side the player had.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::pgn::Lexed;

/// A table of players to read (`--player-tags FILE`, or one of pgn-extract's files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSource {
    pub path: PathBuf,
    /// pgn-extract's layout: no header, a name then a tab then this tag's value
    /// (`Elo` for `--addelotags`, `FideId` for `--addfideidtags`). `None`: a header row names
    /// the key column first (`name` or `fide_id`), then the tags.
    pub tag: Option<String>,
}

/// How a row finds its player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// The `White` or `Black` tag, whole.
    Name,
    /// The `WhiteFideId` or `BlackFideId` tag.
    FideId,
}

/// The tags of each player of the tables read, by name and by FIDE id.
///
/// ```
/// use pgnkit::convert::players::{PlayerSource, PlayerTags};
/// use pgnkit::pgn::{lex_game, Lexed};
///
/// let table = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/convert/keeper/players.csv");
/// let source = PlayerSource { path: table.into(), tag: None };
/// let players = PlayerTags::read(&[source])?;
/// let mut lexed = Lexed::default();
/// lex_game(b"[White \"Birling, Ruth\"]\n[Black \"Nobody\"]\n\n1. e4 *\n", true, 1, &mut lexed);
/// let set = players.tags_for(&lexed);
/// assert_eq!(set[0], ("WhiteElo".to_string(), "1880".to_string()));
/// assert_eq!(set.len(), 3); // WhiteElo, WhiteFideId, WhiteTitle
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct PlayerTags {
    by_name: HashMap<String, Vec<(String, String)>>,
    by_fide_id: HashMap<String, Vec<(String, String)>>,
}

impl PlayerTags {
    /// Reads the tables; a later row (or table) for the same player and tag wins.
    ///
    /// # Errors
    ///
    /// A file that cannot be read, a header whose first column is neither `name` nor
    /// `fide_id`, a row that is not CSV or TSV.
    pub fn read(sources: &[PlayerSource]) -> anyhow::Result<PlayerTags> {
        let mut tags = PlayerTags::default();
        for source in sources {
            tags.read_one(source)
                .with_context(|| format!("cannot read the players in {}", source.path.display()))?;
        }
        Ok(tags)
    }

    fn read_one(&mut self, source: &PlayerSource) -> anyhow::Result<()> {
        let bytes = std::fs::read(&source.path)?;
        let text = String::from_utf8_lossy(&bytes);
        let first = text.lines().next().unwrap_or("");
        let tab = source.tag.is_some() || first.contains('\t') || is_tsv(&source.path);
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(if tab { b'\t' } else { b',' })
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let mut rows = reader.records();
        let (key, names) = match &source.tag {
            Some(tag) => (Key::Name, vec![tag.clone()]),
            None => {
                let Some(header) = rows.next().transpose()? else {
                    return Ok(());
                };
                let key = match header.get(0).map(str::to_ascii_lowercase).as_deref() {
                    Some("name" | "player") => Key::Name,
                    Some("fide_id" | "fideid" | "fide id") => Key::FideId,
                    other => bail!(
                        "the first column of the header is {:?}: it must be `name` (the \
                         players' White and Black tags) or `fide_id` (their WhiteFideId and \
                         BlackFideId tags)",
                        other.unwrap_or("")
                    ),
                };
                (key, header.iter().skip(1).map(str::to_owned).collect())
            }
        };
        let map = match key {
            Key::Name => &mut self.by_name,
            Key::FideId => &mut self.by_fide_id,
        };
        for row in rows {
            let row = row?;
            let Some(player) = row.get(0).filter(|p| !p.is_empty()) else {
                continue;
            };
            let entry = map.entry(player.to_owned()).or_default();
            for (tag, value) in names.iter().zip(row.iter().skip(1)) {
                if value.is_empty() || tag.is_empty() {
                    continue;
                }
                entry.retain(|(t, _)| t != tag);
                entry.push((tag.clone(), value.to_owned()));
            }
        }
        Ok(())
    }

    /// The tags to set for a game's players: `(WhiteElo, 2750)`..., White's first. A game's
    /// player is found by name (its `White` or `Black` tag), then by FIDE id (its
    /// `WhiteFideId` or `BlackFideId`), the id's tags winning.
    pub fn tags_for(&self, lexed: &Lexed) -> Vec<(String, String)> {
        let mut set: Vec<(String, String)> = Vec::new();
        for side in ["White", "Black"] {
            let by_name = lexed.tag(side).and_then(|n| self.by_name.get(n.trim()));
            let id = lexed.tag(&format!("{side}FideId"));
            let by_id = id.and_then(|i| self.by_fide_id.get(i.trim()));
            for (suffix, value) in by_name.into_iter().chain(by_id).flatten() {
                let name = format!("{side}{suffix}");
                set.retain(|(n, _)| *n != name);
                set.push((name, value.clone()));
            }
        }
        set
    }
}

fn is_tsv(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv") || e.eq_ignore_ascii_case("tab"))
}
