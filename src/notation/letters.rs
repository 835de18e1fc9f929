//! Other languages' piece letters (German `Sf3`, French `Cf3`, Russian `Кf3`, …): the letter
//! sets, and reading moves written with them.
//!
//! Letters are ambiguous between languages (`R` is a rook in English and a king in French, `B`
//! a bishop in English and a pawn in German), so a language is never guessed: it is used only
//! when the user names it (`--lang`). Writing with these letters lives in [`super::write`].

use std::fmt;
use std::str::FromStr;

use shakmaty::Role;

use super::{ascii, scan, MovePattern, ReadError, ReadMove};

/// A language whose piece letters pgnkit reads and writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English: K Q R B N (the letters of SAN).
    #[default]
    En,
    /// German: K D T L S, pawn B.
    De,
    /// French: R D T F C, pawn P.
    Fr,
    /// Spanish: R D T A C, pawn P.
    Es,
    /// Italian: R D T A C, pawn P.
    It,
    /// Dutch: K D T L P (the pawn, "pion", has no letter).
    Nl,
    /// Portuguese: R D T B C.
    Pt,
    /// Russian: Кр Ф Л С К, pawn п.
    Ru,
    /// Polish: K H W G S.
    Pl,
}

impl Lang {
    /// Every language, in the order `--help` lists them.
    pub const ALL: [Lang; 9] = [
        Lang::En,
        Lang::De,
        Lang::Fr,
        Lang::Es,
        Lang::It,
        Lang::Nl,
        Lang::Pt,
        Lang::Ru,
        Lang::Pl,
    ];

    /// The two-letter code (`de`), as accepted by [`FromStr`].
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::It => "it",
            Lang::Nl => "nl",
            Lang::Pt => "pt",
            Lang::Ru => "ru",
            Lang::Pl => "pl",
        }
    }

    /// The letter written for a piece; empty for the pawn, which is never lettered in SAN.
    pub fn piece(self, role: Role) -> &'static str {
        let [k, q, r, b, n] = self.letters();
        match role {
            Role::King => k,
            Role::Queen => q,
            Role::Rook => r,
            Role::Bishop => b,
            Role::Knight => n,
            Role::Pawn => "",
        }
    }

    /// King, queen, rook, bishop, knight.
    fn letters(self) -> [&'static str; 5] {
        match self {
            Lang::En => ["K", "Q", "R", "B", "N"],
            Lang::De => ["K", "D", "T", "L", "S"],
            Lang::Fr => ["R", "D", "T", "F", "C"],
            Lang::Es | Lang::It => ["R", "D", "T", "A", "C"],
            Lang::Nl => ["K", "D", "T", "L", "P"],
            Lang::Pt => ["R", "D", "T", "B", "C"],
            Lang::Ru => ["Кр", "Ф", "Л", "С", "К"],
            Lang::Pl => ["K", "H", "W", "G", "S"],
        }
    }

    /// The pawn's letter where texts in this language write one (`Be4` in German).
    fn pawn(self) -> Option<&'static str> {
        match self {
            Lang::En | Lang::Fr | Lang::Es | Lang::It => Some("P"),
            Lang::De => Some("B"),
            Lang::Ru => Some("п"),
            Lang::Nl | Lang::Pt | Lang::Pl => None,
        }
    }

    /// The piece named at the start of `s` and the bytes its letter takes. Longer letters are
    /// tried first, so Russian `Кр` (king) wins over `К` (knight).
    pub(crate) fn piece_at(self, s: &str) -> Option<(Role, usize)> {
        let [k, q, r, b, n] = self.letters();
        let named = [
            (k, Role::King),
            (q, Role::Queen),
            (r, Role::Rook),
            (b, Role::Bishop),
            (n, Role::Knight),
        ];
        let mut best: Option<(Role, usize)> = None;
        let pawn = self.pawn().map(|p| (p, Role::Pawn));
        for (letter, role) in named.into_iter().chain(pawn) {
            if s.starts_with(letter) && best.is_none_or(|(_, len)| letter.len() > len) {
                best = Some((role, letter.len()));
            }
        }
        best
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A language code pgnkit does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLang(pub String);

impl fmt::Display for UnknownLang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown language '{}' (expected one of:", self.0)?;
        for lang in Lang::ALL {
            write!(f, " {lang}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownLang {}

impl FromStr for Lang {
    type Err = UnknownLang;

    fn from_str(s: &str) -> Result<Lang, UnknownLang> {
        Lang::ALL
            .into_iter()
            .find(|lang| lang.code().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownLang(s.to_owned()))
    }
}

/// Reads a move token written with `lang`'s piece letters. Moves that name no piece (pawn
/// moves, castling, null moves, UCI) read the same in every language and fall back to the
/// ASCII reader.
///
/// # Errors
///
/// [`ReadError`] when the token is not a move with these letters; English letters are not
/// accepted in their place (use [`super::read_token`] for English).
pub fn read(token: &[u8], lang: Lang, out: &mut Vec<ReadMove>) -> Result<(), ReadError> {
    out.clear();
    let err = match scan::read(token, lang, out) {
        Ok(()) => return Ok(()),
        Err(err) => err,
    };
    if err == ReadError::AnyMove {
        return Err(err);
    }
    match ascii::read(token) {
        Ok(m) if pieceless(&m.pattern) => {
            out.clear();
            out.push(m);
            Ok(())
        }
        _ => Err(err),
    }
}

fn pieceless(pattern: &MovePattern) -> bool {
    match pattern {
        MovePattern::Normal(n) => matches!(n.role, None | Some(Role::Pawn)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::{NormalPattern, Notes};

    fn role_of(token: &str, lang: Lang) -> Option<Role> {
        let mut out = Vec::new();
        read(token.as_bytes(), lang, &mut out).unwrap();
        assert_eq!(out.len(), 1, "{token}");
        match out[0].pattern {
            MovePattern::Normal(NormalPattern { role, .. }) => role,
            other => panic!("{token}: {other:?}"),
        }
    }

    #[test]
    fn codes_round_trip() {
        for lang in Lang::ALL {
            assert_eq!(lang.code().parse::<Lang>(), Ok(lang));
        }
        assert_eq!("DE".parse::<Lang>(), Ok(Lang::De));
        assert!("xx"
            .parse::<Lang>()
            .unwrap_err()
            .to_string()
            .contains("de fr"));
    }

    #[test]
    fn letters_mean_what_the_language_says() {
        let cases: &[(&str, Lang, Role)] = &[
            ("Sf3", Lang::De, Role::Knight),
            ("Be4", Lang::De, Role::Pawn),
            ("Lb5", Lang::De, Role::Bishop),
            ("Rf1", Lang::Fr, Role::King),
            ("Fb5", Lang::Fr, Role::Bishop),
            ("Axb5", Lang::Es, Role::Bishop),
            ("Cf3", Lang::It, Role::Knight),
            ("Pf3", Lang::Nl, Role::Knight),
            ("Bb5", Lang::Pt, Role::Bishop),
            ("Крe2", Lang::Ru, Role::King),
            ("Кf3", Lang::Ru, Role::Knight),
            ("Фd1-h5", Lang::Ru, Role::Queen),
            ("Hd8", Lang::Pl, Role::Queen),
            ("Wa1", Lang::Pl, Role::Rook),
            ("e4", Lang::Pl, Role::Pawn),
        ];
        for &(token, lang, role) in cases {
            assert_eq!(role_of(token, lang), Some(role), "{token} in {lang}");
        }
    }

    #[test]
    fn foreign_letters_are_noted_and_english_is_refused() {
        let mut out = Vec::new();
        read("Sf3".as_bytes(), Lang::De, &mut out).unwrap();
        assert!(out[0].notes.has(Notes::FOREIGN_LETTERS));
        assert!(read(b"Nf3", Lang::De, &mut out).is_err());
        // Language-neutral moves still read.
        read(b"O-O", Lang::Fr, &mut out).unwrap();
        read(b"e7e8q", Lang::Fr, &mut out).unwrap();
        read(b"e8=D", Lang::Fr, &mut out).unwrap();
        match out[0].pattern {
            MovePattern::Normal(n) => assert_eq!(n.promotion, Some(Role::Queen)),
            other => panic!("{other:?}"),
        }
    }
}
