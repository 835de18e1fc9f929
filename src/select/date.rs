//! Dates as PGN writes them (`2024.01.31`, `2024.??.??`), compared with unknown parts allowed.
//!
//! The rule: two dates compare part by part from the year; the first part unknown on either
//! side ends the comparison and the dates count as equal up to there. So `2024.??.??` is
//! equal to every day of 2024 (`Date >= 2024.03.01` and `Date <= 2024.03.01` both hold for
//! it, `Date > 2024.03.01` does not). A date whose year is unknown is no date: every
//! comparison with it is false, as with a missing tag.

use std::cmp::Ordering;

/// A date with each part known or not (`None` for `??`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialDate {
    pub year: u16,
    pub month: Option<u8>,
    pub day: Option<u8>,
}

impl PartialDate {
    /// Reads `YYYY`, `YYYY.MM` or `YYYY.MM.DD`, parts separated by `.`, `-` or `/`, any part
    /// after the year `??` (or `?`). `None` for anything else, and for an unknown year.
    pub fn parse(text: &str) -> Option<PartialDate> {
        let mut parts = text.trim().split(['.', '-', '/']);
        let year = parts.next()?;
        if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let year = year.parse().ok()?;
        let mut part = |max: u8| -> Option<Option<u8>> {
            match parts.next() {
                None => Some(None),
                Some(p) if !p.is_empty() && p.bytes().all(|b| b == b'?') => Some(None),
                Some(p) if (1..=2).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) => {
                    let n: u8 = p.parse().ok()?;
                    (1..=max).contains(&n).then_some(Some(n))
                }
                Some(_) => None,
            }
        };
        let month = part(12)?;
        let day = part(31)?;
        if parts.next().is_some() || (month.is_none() && day.is_some()) {
            return None;
        }
        Some(PartialDate { year, month, day })
    }

    /// The order of two dates by the parts both know (see the module's rule).
    pub fn compare(&self, other: &PartialDate) -> Ordering {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> PartialDate {
        PartialDate::parse(s).unwrap_or_else(|| panic!("{s} is a date"))
    }

    #[test]
    fn reads_dates_with_unknown_parts() {
        assert_eq!(
            d("2024.01.31"),
            PartialDate {
                year: 2024,
                month: Some(1),
                day: Some(31)
            }
        );
        assert_eq!(d("2024.??.??").month, None);
        assert_eq!(d("2024-03").day, None);
        for bad in [
            "????.??.??",
            "24.01.01",
            "2024.13.01",
            "2024.??.05",
            "2024.1.1.1",
            "x",
        ] {
            assert_eq!(PartialDate::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn unknown_parts_end_the_comparison() {
        assert_eq!(d("2024.??.??").compare(&d("2024.03.01")), Ordering::Equal);
        assert_eq!(d("2024.03.??").compare(&d("2024.02.28")), Ordering::Greater);
        assert_eq!(d("2023.12.31").compare(&d("2024.??.??")), Ordering::Less);
        assert_eq!(d("2024.03.02").compare(&d("2024.03.01")), Ordering::Greater);
    }
}
