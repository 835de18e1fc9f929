//! Exact tie-break values: fractions in lowest terms, and a value of several levels (direct
//! encounter applied again).

use std::cmp::Ordering;
use std::fmt;

/// An exact tie-break value: a fraction in lowest terms with a positive denominator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: i64,
    den: i64,
}

impl Ratio {
    /// `num / den`; `den` must not be 0.
    pub fn new(num: i64, den: i64) -> Ratio {
        let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1) as i64;
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    /// A whole number.
    pub fn int(n: i64) -> Ratio {
        Ratio { num: n, den: 1 }
    }

    /// `self · k` (saturating: values are small; a sum that large is no tie-break).
    pub fn scaled(self, k: i64) -> Ratio {
        Ratio::new(self.num.saturating_mul(k), self.den)
    }

    /// The value as a float, for display and checks.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// `self + other`, `None` when it does not fit.
    pub(super) fn checked_add(self, other: Ratio) -> Option<Ratio> {
        let g = gcd(self.den.unsigned_abs(), other.den.unsigned_abs()) as i64;
        let den = (self.den / g).checked_mul(other.den)?;
        let num = self
            .num
            .checked_mul(other.den / g)?
            .checked_add(other.num.checked_mul(self.den / g)?)?;
        Some(Ratio::new(num, den))
    }

    /// Rounded to the nearest whole number, halves up (C.07 rounds averaged ratings so).
    pub(super) fn round(self) -> i64 {
        (2 * self.num + self.den).div_euclid(2 * self.den)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ord for Ratio {
    fn cmp(&self, other: &Ratio) -> Ordering {
        (i128::from(self.num) * i128::from(other.den))
            .cmp(&(i128::from(other.num) * i128::from(self.den)))
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Ratio) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Ratio {
    /// Exact when the value has at most four decimals (`2.75`, `4`), else to two decimals
    /// (`5.17`); trailing zeros dropped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scaled = i128::from(self.num) * 10_000;
        let den = i128::from(self.den);
        let (units, places) = if scaled % den == 0 {
            (scaled / den, 4)
        } else {
            let hundredths = i128::from(self.num) * 100;
            ((2 * hundredths + den).div_euclid(2 * den), 2)
        };
        let sign = if units < 0 { "-" } else { "" };
        let units = units.unsigned_abs();
        let scale = 10u128.pow(places);
        let (whole, frac) = (units / scale, units % scale);
        if frac == 0 {
            return write!(f, "{sign}{whole}");
        }
        let digits = format!("{frac:0width$}", width = places as usize);
        write!(f, "{sign}{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// A tie-break's value in a standings row, compared as C.07 ranks by it: nothing (the
/// system has no value for the participant), one number, or a sequence compared element by
/// element, written `1.5/0.5`: direct encounter applied again among those it left tied (the
/// points among all the tied, then among those still tied), and the team systems that go
/// board by board. A missing element (a direct encounter that could not place the player at
/// that step) is written `-` and ranks below any number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Value(pub(super) Vec<Option<Ratio>>);

impl Value {
    /// No value.
    pub fn none() -> Value {
        Value(Vec::new())
    }

    /// One number.
    pub fn of(value: Ratio) -> Value {
        Value(vec![Some(value)])
    }

    /// A sequence of numbers, compared element by element.
    pub fn seq(values: impl IntoIterator<Item = Ratio>) -> Value {
        Value(values.into_iter().map(Some).collect())
    }

    /// The elements, first the most significant.
    pub fn parts(&self) -> &[Option<Ratio>] {
        &self.0
    }

    /// The first element: the value of a one-number system.
    pub fn first(&self) -> Option<Ratio> {
        self.0.first().copied().flatten()
    }

    /// Whether there is no number at all.
    pub fn is_none(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// Every element times `k`.
    pub fn scaled(&self, k: i64) -> Value {
        Value(self.0.iter().map(|v| v.map(|v| v.scaled(k))).collect())
    }

    pub(super) fn push(&mut self, part: Option<Ratio>) {
        self.0.push(part);
    }
}

impl From<Option<Ratio>> for Value {
    fn from(value: Option<Ratio>) -> Value {
        Value(value.into_iter().map(Some).collect())
    }
}

impl fmt::Display for Value {
    /// Empty for no value; the elements joined by `/`, a missing one as `-`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return Ok(());
        }
        for (i, part) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            match part {
                Some(v) => v.fmt(f)?,
                None => f.write_str("-")?,
            }
        }
        Ok(())
    }
}
