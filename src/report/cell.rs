//! Spreadsheet safety of CSV cells: the one rule both `stats` and `convert --format csv` apply
//! to text taken from the input.

use std::borrow::Cow;

/// Text from the input with a leading `'` when a spreadsheet would run it as a formula: it
/// starts with `=`, `+`, `-` or `@` (`=SUM(A1)`, `+cmd|' /C calc'!A0`, `@A1`, `-2+3`), or
/// with a tab or a carriage return (which some programs drop before reading the rest).
///
/// What a spreadsheet only shows is left alone: a signed number (`-1`, `+0.35`, `-.5`) is
/// read as that number, and a sign alone (lichess's `Round "-"`) as text.
pub fn neutralise(text: &str) -> Cow<'_, str> {
    let runs = match text.as_bytes() {
        [b'=' | b'@' | b'\t' | b'\r', ..] => true,
        [b'+' | b'-'] => false,
        [b'+' | b'-', rest @ ..] => !is_plain_number(rest),
        _ => false,
    };
    if runs {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// Digits with at most one decimal point and at least one digit: a number a spreadsheet
/// reads as a number, whatever sign is put before it.
fn is_plain_number(s: &[u8]) -> bool {
    let digits = s.iter().filter(|b| b.is_ascii_digit()).count();
    let points = s.iter().filter(|&&b| b == b'.').count();
    digits > 0 && points <= 1 && digits + points == s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_numbers_and_signs_kept() {
        for (text, want) in [
            ("=SUM(A1:A3)", "'=SUM(A1:A3)"),
            ("=", "'="),
            ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("-2+3", "'-2+3"),
            ("-1.2.3", "'-1.2.3"),
            ("--", "'--"),
            ("- 1", "'- 1"),
            ("-.", "'-."),
            ("\t=1", "'\t=1"),
            ("\r1", "'\r1"),
            ("-1", "-1"),
            ("-5", "-5"),
            ("+0.35", "+0.35"),
            ("-.5", "-.5"),
            ("-", "-"),
            ("+", "+"),
            ("Carlsen, Magnus", "Carlsen, Magnus"),
            ("1-0", "1-0"),
            ("", ""),
        ] {
            assert_eq!(neutralise(text), want, "{text:?}");
        }
    }
}
