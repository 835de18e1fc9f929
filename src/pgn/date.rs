//! The PGN `Date` tag: one date type, [`GameDate`], and one reader of its parts, for every
//! use of a date: the strict check of `validate`, the lenient reading of `stats`, `select`'s
//! comparisons and the Arrow `date32` columns of `convert`.
//!
//! [`parse`] reads a value as the standard writes it (`YYYY.MM.DD`, `??` for unknown parts)
//! and names what is wrong otherwise; the error still carries what a lenient reader can use
//! ([`DateProblem::readable`]), so `stats` can place `2024.3.17` in time while `validate`
//! reports it. [`GameDate::parse_whole`] reads the whole text as a date or nothing, as
//! `select` compares dates ([`GameDate::compare_known`]); [`GameDate::parse_complete`] (the
//! strict reading of the trimmed value) and [`GameDate::days_since_1970`] give a day that
//! exists, as a `date32` column holds it; [`GameDate::written_number`] the digits as written
//! (the standard's form without its ranges), as `dedup` compares dates. Three readings of the
//! text in all: the standard's form (with its ranges or without), the lenient remainder of a
//! value it refuses, and `select`'s.
//!
//! The readings differ on purpose, and each keeps what its command has always done:
//!
//! | value | `parse` (validate) | `GameDate::parse` (stats) | `parse_whole` (select) | `parse_complete` (date32) |
//! |---|---|---|---|---|
//! | `2024.??.05` | 2024 | 2024 | none | none |
//! | `2024.13.01` | out of range | 2024 | none | none |
//! | `2024.3.7`, ` 2024.03.07 ` | not YYYY.MM.DD | 2024.03.07 | 2024.03.07 | none, 2024.03.07 |
//! | `2024-03-07`, `2024/03/07` | not YYYY.MM.DD | none | 2024.03.07 | none |
//! | `2024.03`, `2024` | not YYYY.MM.DD | 2024.03, 2024 | 2024.03, 2024 | none |
//! | `2024.+3.17` | not digits | 2024.03.17 | none | none |
//! | `2024.03.17.9` | not YYYY.MM.DD | 2024.03.17 | none | none |
//! | `2023.02.29` | 2023.02.29 | 2023.02.29 | 2023.02.29 | none |

use std::cmp::Ordering;
use std::fmt;
use std::ops::RangeInclusive;

/// A PGN `Date` as far as it is known. Orders unknown months and days before known ones.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct GameDate {
    /// The year.
    pub year: u16,
    /// The month, 1–12, when known.
    pub month: Option<u8>,
    /// The day of the month, when known.
    pub day: Option<u8>,
}

impl GameDate {
    /// Reads a PGN `Date` value leniently (`2024.03.17`, `2024.??.??`, also `2024.3.17` or
    /// ` 2024.03 `); `None` when even the year is unknown or the value is not a date.
    ///
    /// ```
    /// use pgnkit::pgn::date::GameDate;
    ///
    /// let d = GameDate::parse("2024.3.??").unwrap();
    /// assert_eq!((d.year, d.month, d.day), (2024, Some(3), None));
    /// assert_eq!(d.to_string(), "2024.03.??");
    /// assert_eq!(GameDate::parse("????.??.??"), None);
    /// ```
    pub fn parse(date: &str) -> Option<GameDate> {
        parse(date).unwrap_or_else(|p| p.readable)
    }

    /// Reads the whole of `text` as a date, or nothing: `YYYY`, `YYYY.MM` or `YYYY.MM.DD`
    /// (after trimming), parts separated by `.`, `-` or `/`, a month or day of one or two
    /// digits, or `??` (any number of `?`) after the year. `None` for anything else (a month
    /// or day out of range, a known day in an unknown month, more parts), and for an unknown
    /// year. How `select` reads a date, in a query and in the tag it compares.
    ///
    /// ```
    /// use pgnkit::pgn::date::GameDate;
    ///
    /// let d = GameDate::parse_whole("2024-03").unwrap();
    /// assert_eq!((d.year, d.month, d.day), (2024, Some(3), None));
    /// assert_eq!(GameDate::parse_whole("2024.13.01"), None);
    /// ```
    pub fn parse_whole(text: &str) -> Option<GameDate> {
        let mut parts = text.trim().split(['.', '-', '/']).map(Part);
        let year = parts.next()?.digits(4..=4)?;
        let mut next = |max: u32| -> Option<Option<u8>> {
            match parts.next() {
                Some(p) if !p.unknown() => {
                    let n = p.digits(1..=2)?;
                    (1..=max).contains(&n).then_some(Some(n as u8))
                }
                _ => Some(None),
            }
        };
        let month = next(12)?;
        let day = next(31)?;
        if parts.next().is_some() || (month.is_none() && day.is_some()) {
            return None;
        }
        Some(GameDate {
            year: year as u16,
            month,
            day,
        })
    }

    /// Reads a complete date that exists, `YYYY.MM.DD` after trimming (`2023.02.29` is
    /// none): what a `date32` column holds. The standard's reading ([`parse`]) of the
    /// trimmed value, when it knows every part and the day is in its month.
    pub fn parse_complete(text: &str) -> Option<GameDate> {
        parse(text.trim())
            .ok()
            .flatten()
            .filter(|date| date.days_since_1970().is_some())
    }

    /// A date written `YYYY.MM.DD` in digits (after trimming), as the number `yyyymmdd`,
    /// whether or not such a day exists; `None` for anything else and for `0000.00.00`. How
    /// `dedup` compares dates: two copies of a game with the same wrong date are still the
    /// same date, and a date written otherwise is no date to compare.
    ///
    /// ```
    /// use pgnkit::pgn::date::GameDate;
    ///
    /// assert_eq!(GameDate::written_number("2024.03.17"), Some(20_240_317));
    /// assert_eq!(GameDate::written_number("2024.13.45"), Some(20_241_345));
    /// assert_eq!(GameDate::written_number("2024.3.17"), None);
    /// assert_eq!(GameDate::written_number("2024.??.??"), None);
    /// ```
    pub fn written_number(text: &str) -> Option<u32> {
        let [Some(y), Some(m), Some(d)] = written(text.trim(), false).ok()? else {
            return None;
        };
        let n = u32::from(y) * 10_000 + u32::from(m) * 100 + u32::from(d);
        (n > 0).then_some(n)
    }

    /// Days since 1970-01-01 of a complete date that exists; `None` otherwise.
    ///
    /// ```
    /// use pgnkit::pgn::date::GameDate;
    ///
    /// let days = |s| GameDate::parse_complete(s).and_then(GameDate::days_since_1970);
    /// assert_eq!(days("1970.01.02"), Some(1));
    /// assert_eq!(days("2023.02.29"), None);
    /// ```
    pub fn days_since_1970(self) -> Option<i32> {
        let (y, m, d) = (
            i64::from(self.year),
            i64::from(self.month?),
            i64::from(self.day?),
        );
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let days_in_month = match m {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        if d < 1 || d > days_in_month {
            return None;
        }
        // Howard Hinnant's days_from_civil.
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        i32::try_from(era * 146_097 + doe - 719_468).ok()
    }

    /// The order of two dates by the parts both know: they compare part by part from the
    /// year, and the first part unknown on either side ends the comparison, the dates
    /// counting as equal up to there. So `2024.??.??` is equal to every day of 2024: in
    /// `select`, `Date >= 2024.03.01` and `Date <= 2024.03.01` both hold for it, and
    /// `Date > 2024.03.01` does not. Unlike `Ord`, which puts unknown parts first.
    pub fn compare_known(&self, other: &GameDate) -> Ordering {
        self.year
            .cmp(&other.year)
            .then_with(|| match (self.month, other.month) {
                (Some(a), Some(b)) => a.cmp(&b).then_with(|| match (self.day, other.day) {
                    (Some(a), Some(b)) => a.cmp(&b),
                    _ => Ordering::Equal,
                }),
                _ => Ordering::Equal,
            })
    }
}

/// One part of a date as written, between separators: the one reading of a part that every
/// reading of a date shares.
#[derive(Clone, Copy)]
struct Part<'a>(&'a str);

impl Part<'_> {
    /// `??`: one `?` or more.
    fn unknown(self) -> bool {
        !self.0.is_empty() && self.0.bytes().all(|b| b == b'?')
    }

    /// The number of a part of ASCII digits only, as many as `len` allows (at most four, so
    /// the number fits); `None` otherwise.
    fn digits(self, len: RangeInclusive<usize>) -> Option<u32> {
        let b = self.0.as_bytes();
        (len.contains(&b.len()) && *len.end() <= 4 && b.iter().all(u8::is_ascii_digit))
            .then(|| b.iter().fold(0, |v, &d| v * 10 + u32::from(d - b'0')))
    }

    /// A lenient number: digits (any count), with a `+` before them allowed (as Rust reads
    /// an unsigned number), below 256.
    fn loose_number(self) -> Option<u8> {
        self.0.parse().ok()
    }
}

impl fmt::Display for GameDate {
    /// PGN style: `2024.03.17`, unknown parts as `??`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        for part in [self.month, self.day] {
            match part {
                Some(n) => write!(f, ".{n:02}")?,
                None => f.write_str(".??")?,
            }
        }
        Ok(())
    }
}

/// What is wrong with a `Date` value, in the order [`parse`] looks: the form, then the year,
/// month and day one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateProblemKind {
    /// Not three dotted parts of 4, 2 and 2 characters.
    NotYmd,
    /// A part is neither all digits nor all `?`.
    NotDigits,
    /// A month outside 1–12 or a day outside 1–31.
    OutOfRange,
}

impl fmt::Display for DateProblemKind {
    /// Reads after the value: `Date "2024.3.17" is not in YYYY.MM.DD form`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DateProblemKind::NotYmd => "is not in YYYY.MM.DD form",
            DateProblemKind::NotDigits => "has characters other than digits and '?'",
            DateProblemKind::OutOfRange => "has a month or day out of range",
        })
    }
}

/// A `Date` value that is not written as the standard says, with what can still be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateProblem {
    /// The first thing wrong.
    pub kind: DateProblemKind,
    /// What a lenient reader takes from the value: the four-digit year after trimming, then a
    /// month written as any number 1–12, then (after a month) a day 1–31; `None` without a
    /// year.
    pub readable: Option<GameDate>,
}

/// Reads a `Date` value written as `YYYY.MM.DD` with `??` (or `????`) for unknown parts.
/// `Ok(None)` when the year is unknown; a month or day is kept only with what comes before
/// it (`2024.??.17` reads as `2024.??.??`), as [`GameDate`] orders dates.
///
/// # Errors
///
/// A [`DateProblem`] naming the first thing wrong; its `readable` field holds what a lenient
/// reader can still use.
///
/// ```
/// use pgnkit::pgn::date::{parse, DateProblemKind, GameDate};
///
/// let d = parse("2024.03.??").unwrap().unwrap();
/// assert_eq!((d.year, d.month, d.day), (2024, Some(3), None));
/// assert_eq!(parse("????.??.??"), Ok(None));
///
/// let p = parse("2024.3.17").unwrap_err();
/// assert_eq!(p.kind, DateProblemKind::NotYmd);
/// assert_eq!(p.kind.to_string(), "is not in YYYY.MM.DD form");
/// assert_eq!(p.readable, Some(GameDate { year: 2024, month: Some(3), day: Some(17) }));
/// ```
pub fn parse(text: &str) -> Result<Option<GameDate>, DateProblem> {
    strict(text).map_err(|kind| DateProblem {
        kind,
        readable: lenient(text),
    })
}

fn strict(text: &str) -> Result<Option<GameDate>, DateProblemKind> {
    let [year, month, day] = written(text, true)?;
    Ok(year.map(|year| {
        let month = month.map(|m| m as u8);
        GameDate {
            year,
            month,
            day: month.and(day.map(|d| d as u8)),
        }
    }))
}

/// The year, month and day of a value written `YYYY.MM.DD`, each all `?` (`None`) or digits,
/// with a month 1–12 and a day 1–31 when `in_range`; otherwise the first thing wrong, part by
/// part from the year. The one reading of the standard's form: `validate`'s check, the
/// `date32` columns ([`GameDate::parse_complete`]) and `dedup`'s key, which takes a month 13
/// as written ([`GameDate::written_number`]).
fn written(text: &str, in_range: bool) -> Result<[Option<u16>; 3], DateProblemKind> {
    let b = text.as_bytes();
    // Nearly every value has its two periods where the form puts them and no other: its
    // parts are then where they stand, found without a search.
    let (year, month, day) = if b.len() == 10
        && b[4] == b'.'
        && b[7] == b'.'
        && b.iter().filter(|&&c| c == b'.').count() == 2
    {
        (Part(&text[..4]), Part(&text[5..7]), Part(&text[8..]))
    } else {
        let mut parts = text.split('.').map(Part);
        let (Some(year), Some(month), Some(day), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(DateProblemKind::NotYmd);
        };
        (year, month, day)
    };
    let (months, days) = if in_range {
        (1..=12, 1..=31)
    } else {
        (0..=99, 0..=99)
    };
    Ok([
        field(year, 4, 0..=9999)?,
        field(month, 2, months)?,
        field(day, 2, days)?,
    ])
}

/// One part of exactly `len` characters: all `?` (unknown), or digits giving a number in
/// `range`.
fn field(p: Part, len: usize, range: RangeInclusive<u16>) -> Result<Option<u16>, DateProblemKind> {
    if p.0.len() != len {
        return Err(DateProblemKind::NotYmd);
    }
    if p.unknown() {
        return Ok(None);
    }
    let v = p.digits(len..=len).ok_or(DateProblemKind::NotDigits)? as u16;
    if !range.contains(&v) {
        return Err(DateProblemKind::OutOfRange);
    }
    Ok(Some(v))
}

/// What is left to read in a value [`strict`] refused: the year, then any month and day that
/// parse as numbers in range, after trimming; extra parts are ignored.
fn lenient(text: &str) -> Option<GameDate> {
    let mut parts = text.trim().split('.').map(Part);
    let year = parts.next()?.digits(4..=4)?;
    let part = |p: Option<Part>, max: u8| {
        p.and_then(Part::loose_number)
            .filter(|&n| (1..=max).contains(&n))
    };
    let month = part(parts.next(), 12);
    let day = month.and(part(parts.next(), 31));
    Some(GameDate {
        year: year as u16,
        month,
        day,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(year: u16, month: Option<u8>, day: Option<u8>) -> Option<GameDate> {
        Some(GameDate { year, month, day })
    }

    #[test]
    fn standard_values_read_as_written() {
        assert_eq!(parse("2024.03.17"), Ok(date(2024, Some(3), Some(17))));
        assert_eq!(parse("2024.03.??"), Ok(date(2024, Some(3), None)));
        assert_eq!(parse("2024.??.??"), Ok(date(2024, None, None)));
        assert_eq!(parse("0000.01.31"), Ok(date(0, Some(1), Some(31))));
        assert_eq!(parse("????.??.??"), Ok(None));
        // Known parts under an unknown one are not kept: dates order by year, month, day.
        assert_eq!(parse("2024.??.17"), Ok(date(2024, None, None)));
        assert_eq!(parse("????.03.17"), Ok(None));
    }

    #[test]
    fn problems_are_named_in_order() {
        use DateProblemKind::*;
        let kind = |s| parse(s).unwrap_err().kind;
        for (text, want) in [
            ("2024.03", NotYmd),
            ("2024.03.17.1", NotYmd),
            ("", NotYmd),
            ("2024.3.17", NotYmd),
            (" 2024.03.17", NotYmd),
            ("20x4.03.17", NotDigits),
            ("2024.?3.17", NotDigits),
            ("2024.+3.17", NotDigits),
            ("2024.13.17", OutOfRange),
            ("2024.00.17", OutOfRange),
            ("2024.03.32", OutOfRange),
            ("2024.03.00", OutOfRange),
            // The month is looked at before the day.
            ("2024.13.1", OutOfRange),
            ("2024.1.xx", NotYmd),
        ] {
            assert_eq!(kind(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_refused_value_keeps_what_a_lenient_reader_takes() {
        let readable = |s| parse(s).unwrap_err().readable;
        assert_eq!(readable(" 2024.03.17 "), date(2024, Some(3), Some(17)));
        assert_eq!(readable("2024.3.7"), date(2024, Some(3), Some(7)));
        assert_eq!(readable("2024.+3.17"), date(2024, Some(3), Some(17)));
        assert_eq!(readable("2024.03"), date(2024, Some(3), None));
        assert_eq!(readable("2024"), date(2024, None, None));
        assert_eq!(readable("2024.13.05"), date(2024, None, None));
        assert_eq!(readable("2024.03.32"), date(2024, Some(3), None));
        assert_eq!(readable("2024.03.17.9"), date(2024, Some(3), Some(17)));
        assert_eq!(readable("24.03.17"), None);
        assert_eq!(readable("20x4.03.17"), None);
        assert_eq!(readable(""), None);
    }

    #[test]
    fn the_lenient_reading_agrees_with_a_valid_value() {
        for text in [
            "2024.03.17",
            "2024.03.??",
            "2024.??.??",
            "2024.??.17",
            "????.??.??",
        ] {
            let strict = parse(text).unwrap();
            assert_eq!(strict, lenient(text), "{text:?}");
            assert_eq!(GameDate::parse(text), strict, "{text:?}");
        }
    }

    fn whole(s: &str) -> GameDate {
        GameDate::parse_whole(s).unwrap_or_else(|| panic!("{s} is a date"))
    }

    #[test]
    fn a_whole_date_reads_with_unknown_parts() {
        assert_eq!(whole("2024.01.31"), date(2024, Some(1), Some(31)).unwrap());
        assert_eq!(whole("2024.??.??").month, None);
        assert_eq!(whole("2024-03").day, None);
        for bad in [
            "????.??.??",
            "24.01.01",
            "2024.13.01",
            "2024.??.05",
            "2024.1.1.1",
            "x",
        ] {
            assert_eq!(GameDate::parse_whole(bad), None, "{bad}");
        }
    }

    #[test]
    fn unknown_parts_end_the_comparison() {
        use std::cmp::Ordering;
        let cmp = |a: &str, b: &str| whole(a).compare_known(&whole(b));
        assert_eq!(cmp("2024.??.??", "2024.03.01"), Ordering::Equal);
        assert_eq!(cmp("2024.03.??", "2024.02.28"), Ordering::Greater);
        assert_eq!(cmp("2023.12.31", "2024.??.??"), Ordering::Less);
        assert_eq!(cmp("2024.03.02", "2024.03.01"), Ordering::Greater);
    }

    /// The odd values each reading met before they shared one reader of parts, and what
    /// each gives: the table of the module's documentation.
    #[test]
    fn each_reading_keeps_its_answer_on_odd_values() {
        let shown = |d: Option<GameDate>| d.map_or("none".to_owned(), |d| d.to_string());
        let strict = |s: &str| match parse(s) {
            Ok(d) => shown(d),
            Err(p) => format!("{:?}", p.kind),
        };
        // Value; validate, stats, select, date32.
        #[rustfmt::skip]
        let cases = [
            ("????.??.??", "none", "none", "none", "none"),
            ("2024.??.??", "2024.??.??", "2024.??.??", "2024.??.??", "none"),
            ("2024.?.?", "NotYmd", "2024.??.??", "2024.??.??", "none"),
            ("2024.??.05", "2024.??.??", "2024.??.??", "none", "none"),
            ("2024.13.01", "OutOfRange", "2024.??.??", "none", "none"),
            ("2024.00.01", "OutOfRange", "2024.??.??", "none", "none"),
            ("2024.02.30", "2024.02.30", "2024.02.30", "2024.02.30", "none"),
            ("2024.3.7", "NotYmd", "2024.03.07", "2024.03.07", "none"),
            (" 2024.03.07 ", "NotYmd", "2024.03.07", "2024.03.07", "2024.03.07"),
            ("2024-03-07", "NotYmd", "none", "2024.03.07", "none"),
            ("2024/03/07", "NotYmd", "none", "2024.03.07", "none"),
            ("2024.03", "NotYmd", "2024.03.??", "2024.03.??", "none"),
            ("2024", "NotYmd", "2024.??.??", "2024.??.??", "none"),
            ("2024.+3.17", "NotDigits", "2024.03.17", "none", "none"),
            ("2024.03.17.9", "NotYmd", "2024.03.17", "none", "none"),
            ("2024.003.17", "NotYmd", "2024.03.17", "none", "none"),
        ];
        for (text, validate, stats, select, date32) in cases {
            assert_eq!(strict(text), validate, "validate {text:?}");
            assert_eq!(shown(GameDate::parse(text)), stats, "stats {text:?}");
            assert_eq!(
                shown(GameDate::parse_whole(text)),
                select,
                "select {text:?}"
            );
            assert_eq!(
                shown(GameDate::parse_complete(text)),
                date32,
                "date32 {text:?}"
            );
        }
    }

    /// The digits of a date written `YYYY.MM.DD` (after trimming), whatever their values.
    fn digits_as_written(text: &str) -> Option<(u32, u32, u32)> {
        let parts: Vec<&str> = text.trim().split('.').collect();
        let [y, m, d] = parts[..] else {
            return None;
        };
        let number = |p: &str, len: usize| {
            (p.len() == len && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().unwrap())
        };
        Some((number(y, 4)?, number(m, 2)?, number(d, 2)?))
    }

    #[test]
    fn a_complete_date_is_a_written_date_that_exists() {
        // `parse_complete` is the standard's reading of the trimmed value: the same as
        // reading the digits as written and keeping the days that exist; `written_number`
        // keeps them all.
        let years = ["2024", "0000", "????", "24", "20x4", "+024"];
        let months = ["03", "3", "13", "00", "??", "+3", "02", "003", ""];
        let days = ["17", "29", "31", "00", "??", "7", "32", "+7", ""];
        let mut all = Vec::new();
        for y in years {
            for m in months {
                all.extend(days.map(|d| (y, m, d)));
            }
        }
        for (y, m, d) in all {
            for text in [
                format!("{y}.{m}.{d}"),
                format!(" {y}.{m}.{d}\t"),
                format!("{y}.{m}"),
            ] {
                let written = digits_as_written(&text).and_then(|(y, m, d)| {
                    let date = GameDate {
                        year: y as u16,
                        month: Some(u8::try_from(m).ok().filter(|m| (1..=12).contains(m))?),
                        day: Some(u8::try_from(d).ok()?),
                    };
                    date.days_since_1970().map(|_| date)
                });
                assert_eq!(GameDate::parse_complete(&text), written, "{text:?}");
                let number = digits_as_written(&text)
                    .map(|(y, m, d)| y * 10_000 + m * 100 + d)
                    .filter(|&n| n > 0);
                assert_eq!(GameDate::written_number(&text), number, "{text:?}");
            }
        }
    }

    #[test]
    fn complete_dates_count_days_from_1970() {
        let days = |s| GameDate::parse_complete(s).and_then(GameDate::days_since_1970);
        assert_eq!(days("1970.01.01"), Some(0));
        assert_eq!(days("1969.12.31"), Some(-1));
        assert_eq!(days("2000.03.01"), Some(11_017));
        assert_eq!(days("2024.02.29"), Some(19_782));
        assert_eq!(days("1900.02.29"), None);
        assert_eq!(days("0000.01.01"), Some(-719_528));
        // Not a complete date: no day.
        assert_eq!(date(2024, Some(3), None).unwrap().days_since_1970(), None);
    }
}
