//! Writing a converted game in an encoding older software reads (`--output-encoding`):
//! Latin-1, GBK, Big5 or UTF-16. A character the encoding cannot hold is never replaced in
//! silence: it is found, with where it is in the game (a tag, or the movetext near a move), so
//! that the game is reported rather than changed.

use std::str::FromStr;

use encoding_rs::{EncoderResult, Encoding, BIG5, GBK};

/// The encoding a conversion writes (`--output-encoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputEncoding {
    /// UTF-8, pgnkit's own.
    #[default]
    Utf8,
    /// ISO-8859-1: the characters U+0000 to U+00FF, a byte each.
    Latin1,
    /// GBK, the simplified Chinese of older Windows software (GB18030's two-byte part).
    Gbk,
    /// Big5, the traditional Chinese of older software in Taiwan and Hong Kong.
    Big5,
    /// UTF-16, little-endian, with a byte order mark at the start of the output (what
    /// Windows software reads as "Unicode").
    Utf16,
    /// UTF-16, little-endian, without a byte order mark.
    Utf16Le,
    /// UTF-16, big-endian, without a byte order mark.
    Utf16Be,
}

impl OutputEncoding {
    /// Every encoding, with the name `--output-encoding` takes.
    pub const ALL: [(OutputEncoding, &'static str); 7] = [
        (OutputEncoding::Utf8, "utf-8"),
        (OutputEncoding::Latin1, "latin1"),
        (OutputEncoding::Gbk, "gbk"),
        (OutputEncoding::Big5, "big5"),
        (OutputEncoding::Utf16, "utf-16"),
        (OutputEncoding::Utf16Le, "utf-16le"),
        (OutputEncoding::Utf16Be, "utf-16be"),
    ];

    /// The name `--output-encoding` takes.
    pub fn name(self) -> &'static str {
        OutputEncoding::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .map_or("utf-8", |(_, n)| n)
    }

    /// What the output starts with: UTF-16's byte order mark.
    pub fn preamble(self) -> &'static [u8] {
        match self {
            OutputEncoding::Utf16 => &[0xff, 0xfe],
            _ => &[],
        }
    }
}

impl FromStr for OutputEncoding {
    type Err = String;

    /// # Errors
    ///
    /// A name that is none of [`OutputEncoding::ALL`]'s (case aside; `iso-8859-1` is Latin-1),
    /// with the names there are.
    fn from_str(s: &str) -> Result<OutputEncoding, String> {
        let s = s.to_ascii_lowercase();
        let s = match s.as_str() {
            "iso-8859-1" | "latin-1" => "latin1",
            "utf8" => "utf-8",
            other => other,
        };
        OutputEncoding::ALL
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(e, _)| *e)
            .ok_or_else(|| {
                let names: Vec<_> = OutputEncoding::ALL.iter().map(|(_, n)| *n).collect();
                format!("the output encodings are {}", names.join(", "))
            })
    }
}

/// A character of a game that the encoding cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unencodable {
    pub ch: char,
    /// Where it is: `tag White`, or `movetext near move 12`.
    pub place: String,
}

/// `text` (a game written as PGN) in `encoding`.
///
/// ```
/// use pgnkit::convert::encode::{encode, OutputEncoding};
///
/// assert_eq!(encode("[White \"Réti\"]\n", OutputEncoding::Latin1).unwrap(), b"[White \"R\xe9ti\"]\n");
/// let refused = encode("[White \"Réti\"]\n\n1.e4 {Őry} 1-0\n", OutputEncoding::Latin1).unwrap_err();
/// assert_eq!((refused[0].ch, refused[0].place.as_str()), ('Ő', "movetext near move 1"));
/// ```
///
/// # Errors
///
/// Each character the encoding cannot hold, with its place.
pub fn encode(text: &str, encoding: OutputEncoding) -> Result<Vec<u8>, Vec<Unencodable>> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 2);
    let mut bad = Vec::new();
    match encoding {
        OutputEncoding::Utf8 => out.extend_from_slice(text.as_bytes()),
        OutputEncoding::Latin1 => {
            for (at, ch) in text.char_indices() {
                match u8::try_from(u32::from(ch)) {
                    Ok(b) => out.push(b),
                    Err(_) => bad.push((at, ch)),
                }
            }
        }
        OutputEncoding::Gbk => encode_with(GBK, text, &mut out, &mut bad),
        OutputEncoding::Big5 => encode_with(BIG5, text, &mut out, &mut bad),
        OutputEncoding::Utf16 | OutputEncoding::Utf16Le => {
            out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        }
        OutputEncoding::Utf16Be => out.extend(text.encode_utf16().flat_map(u16::to_be_bytes)),
    }
    if bad.is_empty() {
        return Ok(out);
    }
    Err(bad
        .into_iter()
        .map(|(at, ch)| Unencodable {
            ch,
            place: place(text, at),
        })
        .collect())
}

/// Encodes with one of encoding_rs's encoders, noting each character it cannot map (and its
/// byte offset in `text`) instead of writing an HTML reference for it.
fn encode_with(
    encoding: &'static Encoding,
    text: &str,
    out: &mut Vec<u8>,
    bad: &mut Vec<(usize, char)>,
) {
    let mut encoder = encoding.new_encoder();
    let mut done = 0;
    loop {
        let (result, read) =
            encoder.encode_from_utf8_to_vec_without_replacement(&text[done..], out, true);
        done += read;
        match result {
            EncoderResult::InputEmpty => return,
            EncoderResult::OutputFull => out.reserve(text.len() - done + 16),
            EncoderResult::Unmappable(ch) => bad.push((done - ch.len_utf8(), ch)),
        }
    }
}

/// Where byte `at` of a game written as PGN is: in a tag pair's line, that tag; in the
/// movetext, near the last move number before it.
fn place(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    if let Some(tag) = line.strip_prefix('[') {
        let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
        return format!("tag {name}");
    }
    let movetext_start = text[..at].find("\n\n").map_or(0, |i| i + 2);
    let before = &text[movetext_start..at];
    let number = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .find_map(|w| {
            let digits = w.split('.').next()?;
            (w.contains('.') && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then_some(digits)
        });
    match number {
        Some(n) => format!("movetext near move {n}"),
        None => "movetext before the first move".to_owned(),
    }
}
