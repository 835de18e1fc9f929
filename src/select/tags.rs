//! The tags an expression names that no game of a run has, and the name most likely meant: a
//! misspelled tag (`Whiteelo`) fails every test without a word, so the run says so at its end.
//!
//! Workers look at their games as they go ([`TagWatch::look`]); what each game found is
//! [merged](Nearest::merge) in input order; at the end, [`TagWatch::missing`] names the tags no
//! game had. A name some game had is not looked for again, so a run whose tags are all right
//! pays one flag check a name a game.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::pgn::Lexed;

/// The tag names of an expression, and whether some game of the run had each; shared by the
/// workers.
#[derive(Debug)]
pub struct TagWatch {
    names: Vec<String>,
    seen: Vec<AtomicBool>,
}

/// For each name of a [`TagWatch`] no game had so far: the closest tag name the games had, with
/// its distance (`None` when none was close enough).
#[derive(Debug, Default)]
pub struct Nearest(Vec<Option<(usize, String)>>);

impl Nearest {
    /// Keeps the closer of two candidates for each name (ties: the first name in byte order),
    /// so the result is the same whatever the order the games are merged in.
    pub fn merge(&mut self, other: Nearest) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), None);
        }
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            if let Some(t) = theirs {
                if mine.as_ref().is_none_or(|m| t < *m) {
                    *mine = Some(t);
                }
            }
        }
    }
}

impl TagWatch {
    /// Watches for `names` (the expression's tag names, each once).
    pub fn new(names: Vec<String>) -> TagWatch {
        let seen = names.iter().map(|_| AtomicBool::new(false)).collect();
        TagWatch { names, seen }
    }

    /// Marks the names this game has; for each name no game had so far, finds the closest tag
    /// name of this game.
    pub fn look(&self, lexed: &Lexed) -> Nearest {
        let mut nearest = Nearest::default();
        for (i, (name, seen)) in self.names.iter().zip(&self.seen).enumerate() {
            if seen.load(Ordering::Relaxed) {
                continue;
            }
            if lexed.tag(name).is_some() {
                seen.store(true, Ordering::Relaxed);
                continue;
            }
            let best = lexed
                .tags()
                .filter_map(|t| close(name, t.name).map(|d| (d, t.name)))
                .min();
            if let Some((d, found)) = best {
                nearest.0.resize(self.names.len(), None);
                nearest.0[i] = Some((d, found.to_owned()));
            }
        }
        nearest
    }

    /// The names no game of the run had, each with the closest name the games had, if any.
    pub fn missing<'a>(
        &'a self,
        nearest: &'a Nearest,
    ) -> impl Iterator<Item = (&'a str, Option<&'a str>)> {
        self.names
            .iter()
            .zip(&self.seen)
            .enumerate()
            .filter(|(_, (_, seen))| !seen.load(Ordering::Relaxed))
            .map(|(i, (name, _))| {
                let near = nearest.0.get(i).and_then(Option::as_ref);
                (name.as_str(), near.map(|(_, n)| n.as_str()))
            })
    }
}

/// The distance from `wanted` to `name` when `name` is close enough to be the one meant: edits
/// of one character (insert, delete, replace, swap two neighbours), case ignored, at most a
/// third of `wanted`'s length (at least one). Names whose lengths differ by more are not
/// compared at all, so a long name from the input costs nothing.
fn close(wanted: &str, name: &str) -> Option<usize> {
    let a: Vec<char> = wanted.chars().flat_map(char::to_lowercase).collect();
    let limit = (a.len() / 3).max(1);
    if name.chars().count().abs_diff(a.len()) > limit {
        return None;
    }
    let b: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    let d = edit_distance(&a, &b);
    (d <= limit).then_some(d)
}

/// Optimal string alignment distance: Levenshtein's, with a swap of two neighbours as one edit.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    // Three rows of the table: two back (for swaps), the last, and the one being filled.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    last[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_found_case_ignored() {
        for (wanted, name, want) in [
            ("Whiteelo", "WhiteElo", Some(0)),
            ("WhiteEol", "WhiteElo", Some(1)),
            ("Evnet", "Event", Some(1)),
            ("Evetn", "Event", Some(1)),
            ("Rond", "Round", Some(1)),
            ("WhitElo", "WhiteElo", Some(1)),
            ("Whiteelo", "BlackElo", None),
            ("ECO", "Event", None),
            ("Date", "Site", None),
            ("Eco", "ECO", Some(0)),
        ] {
            assert_eq!(close(wanted, name), want, "{wanted} {name}");
        }
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        let d = |a: &str, b: &str| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            edit_distance(&a, &b)
        };
        assert_eq!(d("", ""), 0);
        assert_eq!(d("abc", ""), 3);
        assert_eq!(d("", "ab"), 2);
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("ab", "ba"), 1);
        assert_eq!(d("abcd", "acbd"), 1);
    }

    #[test]
    fn merged_candidates_keep_the_closest() {
        let mut all = Nearest(vec![Some((1, "b".into())), None]);
        all.merge(Nearest(vec![Some((1, "a".into())), Some((2, "x".into()))]));
        all.merge(Nearest(vec![Some((2, "c".into()))]));
        all.merge(Nearest::default());
        assert_eq!(
            all.0,
            vec![Some((1, "a".to_owned())), Some((2, "x".to_owned()))]
        );
    }
}
