//! Interned names: every player, team, event and site name an accumulator has seen, kept once
//! and referred to by a small id.
//!
//! Per-game facts hold ids instead of strings, so they have a fixed size and cost no
//! allocation; a name is looked up by `&str` and copied only the first time it is seen. Ids
//! belong to one table: merging accumulators maps the other table's ids onto this one
//! ([`Names::absorb`]).

use std::collections::HashMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A name in a [`Names`] table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NameId(u32);

impl NameId {
    /// The position of the name in its table.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id at a position; `None` past the largest id a table can hold.
    pub(crate) fn from_index(index: usize) -> Option<NameId> {
        u32::try_from(index)
            .ok()
            .filter(|&i| i < Names::MAX_IDS)
            .map(NameId)
    }

    /// The raw id, for fixed-size records.
    pub(crate) fn raw(self) -> u32 {
        self.0
    }
}

/// Names, each stored once, in the order first seen.
#[derive(Debug, Clone, Default)]
pub struct Names {
    names: Vec<Box<str>>,
    index: HashMap<Box<str>, NameId>,
}

impl Names {
    /// Ids are below this, which leaves `u32::MAX` free as a marker in records.
    const MAX_IDS: u32 = u32::MAX - 1;

    /// An empty table.
    pub fn new() -> Names {
        Names::default()
    }

    /// The id of `name`, adding it on first sight.
    ///
    /// # Panics
    ///
    /// When the table already holds 2³² − 2 names (tens of gigabytes of distinct names:
    /// memory runs out long before).
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = NameId::from_index(self.names.len()).expect("fewer than 2^32 - 1 names");
        let owned: Box<str> = name.into();
        self.names.push(owned.clone());
        self.index.insert(owned, id);
        id
    }

    /// The id of `name`, if the table holds it.
    pub fn find(&self, name: &str) -> Option<NameId> {
        self.index.get(name).copied()
    }

    /// The name of `id`.
    ///
    /// # Panics
    ///
    /// When `id` is not from this table.
    pub fn get(&self, id: NameId) -> &str {
        &self.names[id.index()]
    }

    /// The number of names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Adds every name of `other` and returns, for each id of `other`, the id of the same
    /// name here.
    pub fn absorb(&mut self, other: &Names) -> Vec<NameId> {
        other.names.iter().map(|name| self.intern(name)).collect()
    }
}

impl Serialize for Names {
    /// A list of the names; ids are positions in it.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.names.iter())
    }
}

impl<'de> Deserialize<'de> for Names {
    /// Refuses a list that names one name twice (its ids would split one player in two).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Names, D::Error> {
        let list = Vec::<String>::deserialize(d)?;
        let mut names = Names::new();
        for name in list {
            let before = names.len();
            names.intern(&name);
            if names.len() == before {
                return Err(serde::de::Error::custom(format!(
                    "name {name:?} listed twice"
                )));
            }
        }
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_stored_once_and_kept_exactly() {
        let mut names = Names::new();
        let a = names.intern("王天一");
        let b = names.intern("Carlsen, M ");
        assert_eq!(names.intern("王天一"), a);
        assert_ne!(a, b);
        assert_eq!(names.get(b), "Carlsen, M ");
        assert_eq!(names.find("Carlsen, M"), None);
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn absorbing_maps_ids_by_name() {
        let mut mine = Names::new();
        mine.intern("A");
        mine.intern("B");
        let mut theirs = Names::new();
        let b = theirs.intern("B");
        let c = theirs.intern("C");
        let map = mine.absorb(&theirs);
        assert_eq!(mine.get(map[b.index()]), "B");
        assert_eq!(map[b.index()], mine.find("B").unwrap());
        assert_eq!(mine.get(map[c.index()]), "C");
        assert_eq!(mine.len(), 3);
    }

    #[test]
    fn a_list_with_a_name_twice_is_refused() {
        assert!(serde_json::from_str::<Names>(r#"["A","B","A"]"#).is_err());
        let names: Names = serde_json::from_str(r#"["A","B"]"#).unwrap();
        assert_eq!(names.find("B").map(NameId::index), Some(1));
    }
}
