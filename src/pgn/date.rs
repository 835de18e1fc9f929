//! The PGN `Date` tag: one parser for the strict check of `validate` and the lenient reading
//! of `stats`.
//!
//! [`parse`] reads a value as the standard writes it (`YYYY.MM.DD`, `??` for unknown parts)
//! and names what is wrong otherwise; the error still carries what a lenient reader can use
//! ([`DateProblem::readable`]), so `stats` can place `2024.3.17` in time while `validate`
//! reports it.

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
    let mut parts = text.split('.');
    let (Some(year), Some(month), Some(day), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(DateProblemKind::NotYmd);
    };
    let year = field(year, 4, 0..=9999)?;
    let month = field(month, 2, 1..=12)?;
    let day = field(day, 2, 1..=31)?;
    Ok(year.map(|year| {
        let month = month.map(|m| m as u8);
        GameDate {
            year,
            month,
            day: month.and(day.map(|d| d as u8)),
        }
    }))
}

/// One part of exactly `len` characters: all `?` (unknown), or digits giving a number in
/// `range`.
fn field(s: &str, len: usize, range: RangeInclusive<u16>) -> Result<Option<u16>, DateProblemKind> {
    if s.len() != len {
        return Err(DateProblemKind::NotYmd);
    }
    if s.bytes().all(|b| b == b'?') {
        return Ok(None);
    }
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DateProblemKind::NotDigits);
    }
    // At most four digits: the number fits.
    let v = s.bytes().fold(0u16, |v, b| v * 10 + u16::from(b - b'0'));
    if !range.contains(&v) {
        return Err(DateProblemKind::OutOfRange);
    }
    Ok(Some(v))
}

/// What is left to read in a value [`strict`] refused: the year, then any month and day that
/// parse as numbers in range, after trimming; extra parts are ignored.
fn lenient(text: &str) -> Option<GameDate> {
    let mut parts = text.trim().split('.');
    let year = parts.next()?;
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let part = |p: Option<&str>, max: u8| {
        p.and_then(|p| p.parse::<u8>().ok())
            .filter(|&n| (1..=max).contains(&n))
    };
    let month = part(parts.next(), 12);
    let day = month.and(part(parts.next(), 31));
    Some(GameDate {
        year: year.parse().ok()?,
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
}
