//! The tie-break systems of C.07 and their modifiers, as a list names them (`BH-C1,SB,DE`).

use std::fmt;
use std::str::FromStr;

/// A tie-break system of C.07, without its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum System {
    /// Direct encounter (C.07 6), applied again to the groups it leaves tied.
    De,
    /// Number of wins, played or not (C.07 7.1).
    Win,
    /// Number of games won over the board (C.07 7.2).
    Won,
    /// Number of games played with Black (C.07 7.3).
    Bpg,
    /// Number of games won with Black (C.07 7.4).
    Bwg,
    /// Sum of progressive scores (C.07 7.5).
    Ps,
    /// Buchholz (C.07 8.1).
    Bh,
    /// Average of opponents' Buchholz (C.07 8.2).
    Aob,
    /// Fore Buchholz (C.07 8.3).
    Fb,
    /// Sonneborn-Berger (C.07 9.1).
    Sb,
    /// Koya system (C.07 9.2).
    Ks,
    /// Average rating of opponents (C.07 10.1).
    Aro,
    /// Tournament performance rating (C.07 10.2).
    Tpr,
    /// Perfect tournament performance (C.07 10.3).
    Ptp,
    /// Average performance rating of opponents (C.07 10.4).
    Apro,
    /// Average perfect performance of opponents (C.07 10.5).
    Appo,
}

impl System {
    /// Every system, in the order of C.07's articles.
    pub const ALL: [System; 16] = [
        System::De,
        System::Win,
        System::Won,
        System::Bpg,
        System::Bwg,
        System::Ps,
        System::Bh,
        System::Aob,
        System::Fb,
        System::Sb,
        System::Ks,
        System::Aro,
        System::Tpr,
        System::Ptp,
        System::Apro,
        System::Appo,
    ];

    /// The C.07 acronym.
    pub fn acronym(self) -> &'static str {
        match self {
            System::De => "DE",
            System::Win => "WIN",
            System::Won => "WON",
            System::Bpg => "BPG",
            System::Bwg => "BWG",
            System::Ps => "PS",
            System::Bh => "BH",
            System::Aob => "AOB",
            System::Fb => "FB",
            System::Sb => "SB",
            System::Ks => "KS",
            System::Aro => "ARO",
            System::Tpr => "TPR",
            System::Ptp => "PTP",
            System::Apro => "APRO",
            System::Appo => "APPO",
        }
    }

    /// The C.07 name.
    pub fn name(self) -> &'static str {
        match self {
            System::De => "Direct Encounter",
            System::Win => "Number of Wins",
            System::Won => "Number of Games Won",
            System::Bpg => "Number of Games Played with Black",
            System::Bwg => "Number of Games Won with Black",
            System::Ps => "Sum of Progressive Scores",
            System::Bh => "Buchholz",
            System::Aob => "Average of Opponents' Buchholz",
            System::Fb => "Fore Buchholz",
            System::Sb => "Sonneborn-Berger",
            System::Ks => "Koya System",
            System::Aro => "Average Rating of Opponents",
            System::Tpr => "Tournament Performance Rating",
            System::Ptp => "Perfect Tournament Performance",
            System::Apro => "Average Performance Rating of Opponents",
            System::Appo => "Average Perfect Performance of Opponents",
        }
    }

    /// The C.07 article that defines it.
    pub fn article(self) -> &'static str {
        match self {
            System::De => "6",
            System::Win => "7.1",
            System::Won => "7.2",
            System::Bpg => "7.3",
            System::Bwg => "7.4",
            System::Ps => "7.5",
            System::Bh => "8.1",
            System::Aob => "8.2",
            System::Fb => "8.3",
            System::Sb => "9.1",
            System::Ks => "9.2",
            System::Aro => "10.1",
            System::Tpr => "10.2",
            System::Ptp => "10.3",
            System::Apro => "10.4",
            System::Appo => "10.5",
        }
    }

    /// Whether Cut-N and Median-N apply (C.07 14): to the sums over opponents, and
    /// to the average rating. Progressive scores take Cut only.
    pub(super) fn takes_cut(self) -> bool {
        matches!(
            self,
            System::Bh | System::Fb | System::Sb | System::Aro | System::Ps
        )
    }

    pub(super) fn takes_median(self) -> bool {
        matches!(self, System::Bh | System::Fb | System::Sb | System::Aro)
    }

    /// Whether a rating floor applies: the systems built on ratings.
    pub(super) fn takes_floor(self) -> bool {
        matches!(
            self,
            System::Aro | System::Tpr | System::Ptp | System::Apro | System::Appo
        )
    }
}

/// Which values of a sum or an average are left out (C.07 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Cut {
    /// Every value counts.
    #[default]
    None,
    /// Cut-N: the N least significant values are left out.
    Cut(u8),
    /// Median-N: the N least and the N most significant values are left out.
    Median(u8),
}

/// One tie-break as an organiser's list names it: a system and its modifiers, written
/// `BH-C1`, `BH-M1`, `ARO-C1`, `KS`, `KS-60`, `ARO-F1400`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TieBreak {
    /// The system.
    pub system: System,
    /// Cut-N or Median-N, where the system takes one.
    pub cut: Cut,
    /// Rating floor: opponents without a rating, or rated below it, count at this rating.
    pub floor: Option<u32>,
    /// Koya: opponents with at least this percentage of the maximum possible score count.
    pub koya_limit: u32,
}

/// The Koya limit of C.07 9.2: half the maximum possible score.
pub const KOYA_LIMIT: u32 = 50;

impl TieBreak {
    /// The system with no modifier.
    pub fn plain(system: System) -> TieBreak {
        TieBreak {
            system,
            cut: Cut::None,
            floor: None,
            koya_limit: KOYA_LIMIT,
        }
    }

    /// Reads a comma-separated list (`DE,SB,WIN`, `ARO-C1, BH-C1, BH, DE`).
    ///
    /// # Errors
    ///
    /// When a name is not a tie-break or a modifier does not fit its system; the message
    /// lists the names and modifiers that exist.
    pub fn parse_list(list: &str) -> Result<Vec<TieBreak>, TieBreakError> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::parse)
            .collect()
    }
}

impl fmt::Display for TieBreak {
    /// The acronym as a column is named: the system, then `-C1`/`-M1`, then `-F<rating>`;
    /// Koya with its limit when it is not 50 %.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.system.acronym())?;
        if self.system == System::Ks && self.koya_limit != KOYA_LIMIT {
            write!(f, "-{}", self.koya_limit)?;
        }
        match self.cut {
            Cut::None => {}
            Cut::Cut(n) => write!(f, "-C{n}")?,
            Cut::Median(n) => write!(f, "-M{n}")?,
        }
        if let Some(floor) = self.floor {
            write!(f, "-F{floor}")?;
        }
        Ok(())
    }
}

/// An ordered list of tie-breaks, read from `DE,SB,WIN` (what `--tiebreaks` takes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TieBreakList(pub Vec<TieBreak>);

impl FromStr for TieBreakList {
    type Err = TieBreakError;

    fn from_str(list: &str) -> Result<TieBreakList, TieBreakError> {
        TieBreak::parse_list(list).map(TieBreakList)
    }
}

/// A tie-break name that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TieBreakError {
    name: String,
    problem: String,
}

impl fmt::Display for TieBreakError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = System::ALL.iter().map(|s| s.acronym()).collect();
        write!(
            f,
            "tie-break `{}`: {}; known tie-breaks are {}, with modifiers -C1, -C2 (Cut: BH, FB, \
             SB, ARO, PS), -M1, -M2 (Median: BH, FB, SB, ARO), -F<rating> (rating floor: ARO, \
             TPR, PTP, APRO, APPO) and KS-<percent> (Koya limit), e.g. BH-C1 or ARO-C1",
            self.name,
            self.problem,
            known.join(", ")
        )
    }
}

impl std::error::Error for TieBreakError {}

impl FromStr for TieBreak {
    type Err = TieBreakError;

    fn from_str(name: &str) -> Result<TieBreak, TieBreakError> {
        let error = |problem: String| TieBreakError {
            name: name.to_owned(),
            problem,
        };
        let mut parts = name.split('-');
        let base = parts.next().unwrap_or_default();
        let system = System::ALL
            .iter()
            .copied()
            .find(|s| s.acronym().eq_ignore_ascii_case(base))
            .ok_or_else(|| error(format!("unknown system `{base}`")))?;
        let mut tb = TieBreak::plain(system);
        for modifier in parts {
            let upper = modifier.to_ascii_uppercase();
            let number = |digits: &str| -> Option<u32> {
                (!digits.is_empty()
                    && digits.len() <= 5
                    && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse().ok())
                .flatten()
            };
            match upper.as_bytes().first() {
                Some(b'C' | b'M') if tb.cut == Cut::None => {
                    let n = match &upper[1..] {
                        "1" => 1,
                        "2" => 2,
                        _ => return Err(error(format!("unknown modifier `{modifier}`"))),
                    };
                    let median = upper.starts_with('M');
                    if median && !system.takes_median() || !median && !system.takes_cut() {
                        return Err(error(format!(
                            "{} takes no {} modifier",
                            system.acronym(),
                            if median { "Median" } else { "Cut" }
                        )));
                    }
                    tb.cut = if median { Cut::Median(n) } else { Cut::Cut(n) };
                }
                Some(b'F') if tb.floor.is_none() => {
                    if !system.takes_floor() {
                        return Err(error(format!("{} takes no rating floor", system.acronym())));
                    }
                    tb.floor = Some(
                        number(&upper[1..])
                            .ok_or_else(|| error(format!("`{modifier}` is not F<rating>")))?,
                    );
                }
                Some(b'0'..=b'9') if system == System::Ks && tb.koya_limit == KOYA_LIMIT => {
                    tb.koya_limit = number(&upper)
                        .filter(|p| (1..=100).contains(p))
                        .ok_or_else(|| error("the Koya limit is a percentage, 1 to 100".into()))?;
                }
                _ => return Err(error(format!("unknown modifier `{modifier}`"))),
            }
        }
        Ok(tb)
    }
}
