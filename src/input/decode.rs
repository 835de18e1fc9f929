//! Text encodings: detection per file (byte order marks, then UTF-8 validity, then the
//! decoding under which the file reads as PGN, then chardetng for legacy encodings such as
//! Windows-1252, GBK and Big5) and a decoding reader that turns any of them into UTF-8. Bytes
//! that do not decode are counted with their offsets and shown as U+FFFD, never dropped
//! silently.

use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use crate::pgn::cut::column_after;
use encoding_rs::{Decoder, DecoderResult, Encoding, BIG5, GB18030, GBK, UTF_8};

/// How much of a file is looked at to guess its encoding.
const SAMPLE: usize = 256 << 10;

/// Offsets (in the decompressed input) of byte sequences that did not decode, and the line
/// and column (in the decoded text) of the first.
#[derive(Clone, Debug, Default)]
pub struct Malformed(Arc<Mutex<MalformedSeen>>);

/// How many sequences did not decode, the offsets of the first few, and where the first is.
type MalformedSeen = (u64, Vec<u64>, Option<(u32, u32)>);

impl Malformed {
    fn record(&self, offset: u64, at: (u32, u32)) {
        if let Ok(mut m) = self.0.lock() {
            m.0 += 1;
            if m.1.len() < 10 {
                m.1.push(offset);
            }
            m.2.get_or_insert(at);
        }
    }

    /// How many sequences did not decode, and the offsets of the first few.
    pub fn get(&self) -> (u64, Vec<u64>) {
        self.0
            .lock()
            .map(|m| (m.0, m.1.clone()))
            .unwrap_or_default()
    }

    /// Line and column (1-based, in characters of the decoded text) of the first sequence
    /// that did not decode.
    pub fn first_at(&self) -> Option<(u32, u32)> {
        self.0.lock().ok().and_then(|m| m.2)
    }
}

/// What was decided about a stream's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    pub encoding: &'static Encoding,
    /// True when forced with `--encoding`, false when detected.
    pub forced: bool,
    /// The text is the stream's bytes as they are: UTF-8 without a byte order mark, read
    /// without decoding (nothing replaced, nothing removed).
    pub as_is: bool,
}

/// Looks up an encoding by a user-given name (`gbk`, `big5`, `latin1`, `windows-1252`,
/// `utf-16le`...).
pub fn by_name(name: &str) -> Option<&'static Encoding> {
    let name = name.trim().to_ascii_lowercase();
    let alias = match name.as_str() {
        "latin1" | "latin-1" => "iso-8859-1",
        "utf16le" => "utf-16le",
        "utf16be" => "utf-16be",
        "gb2312" | "cp936" => "gbk",
        "utf8" => "utf-8",
        other => other,
    };
    Encoding::for_label(alias.as_bytes())
}

/// Wraps `inner` so that it yields UTF-8: detects the encoding from the first bytes unless
/// `forced` is given.
///
/// # Errors
///
/// Errors reading the sample.
///
/// ```
/// use std::io::Read;
/// use pgnkit::input::decode::{by_name, decoded};
///
/// // 张伟 in GBK.
/// let gbk: &[u8] = b"[White \"\xd5\xc5\xce\xb0\"]\n";
/// let (mut text, detected, _) = decoded(Box::new(gbk), by_name("gbk"))?;
/// let mut s = String::new();
/// text.read_to_string(&mut s)?;
/// assert_eq!(s, "[White \"张伟\"]\n");
/// assert_eq!(detected.encoding.name(), "GBK");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn decoded(
    mut inner: Box<dyn Read + Send>,
    forced: Option<&'static Encoding>,
) -> io::Result<(Box<dyn Read + Send>, Detected, Malformed)> {
    let mut sample = Vec::with_capacity(SAMPLE.min(1 << 16));
    (&mut inner).take(SAMPLE as u64).read_to_end(&mut sample)?;
    let complete = sample.len() < SAMPLE;
    // `clean`: the sample holds nothing the encoding rejects.
    let (encoding, bom, clean) = match Encoding::for_bom(&sample) {
        Some((enc, len)) => (enc, len, false),
        None => match forced {
            Some(enc) => (enc, 0, true),
            None => {
                let (enc, clean) = guess(&sample, complete);
                (enc, 0, clean)
            }
        },
    };
    let as_is = encoding == UTF_8 && bom == 0 && clean;
    let detected = Detected {
        encoding,
        forced: forced.is_some() && bom == 0,
        as_is,
    };
    let malformed = Malformed::default();
    let rest = io::Cursor::new(sample).chain(inner);
    if as_is {
        // UTF-8 needs no decoding; the lexer copes with stray bytes and reports them. (A
        // sample with bad bytes goes through the decoder, which reports each at its offset.)
        return Ok((Box::new(rest), detected, malformed));
    }
    let reader = DecodingReader {
        inner: rest,
        // The BOM is removed by the decoder itself.
        decoder: encoding.new_decoder_with_bom_removal(),
        input: vec![0; 1 << 16],
        start: 0,
        end: 0,
        output: Vec::with_capacity(1 << 17),
        pos: 0,
        eof: false,
        done: false,
        consumed: 0,
        malformed: malformed.clone(),
        at: Some((1, 1)),
    };
    Ok((Box::new(reader), detected, malformed))
}

/// The sample's encoding, and whether the sample is valid in it as far as this knows (true
/// only for valid UTF-8). UTF-8 when the sample is valid UTF-8 (allowing a sequence cut at the
/// sample's end), or valid but for a few bytes among many UTF-8 characters; else chardetng's
/// guess. Either gives way to GBK, GB18030 or Big5 when the sample reads as PGN only in that
/// one: Chinese piece names where moves stand. Engine and club files often have Latin names
/// and no other non-ASCII text, too little for chardetng, which then guesses a Latin encoding
/// and every Chinese move is lost.
fn guess(sample: &[u8], complete: bool) -> (&'static Encoding, bool) {
    match std::str::from_utf8(sample) {
        Ok(_) => return (UTF_8, true),
        Err(e) if !complete && e.error_len().is_none() => return (UTF_8, true),
        Err(_) => {}
    }
    let utf8 = Utf8Census::of(sample, complete);
    let fallback = if utf8.mostly_valid() {
        UTF_8
    } else {
        let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
        detector.feed(sample, complete);
        detector.guess(None, chardetng::Utf8Detection::Deny)
    };
    let mut best = (fallback, Reading::of(fallback, sample));
    for candidate in [UTF_8, GBK, BIG5] {
        if candidate == fallback {
            continue;
        }
        let reading = Reading::of(candidate, sample);
        if reading.moves > 0 && reading.score() > best.1.score() {
            best = (candidate, reading);
        }
    }
    // GBK and GB18030 decode alike; only GB18030 has four-byte sequences, which name it.
    if best.0 == GBK && has_gb18030_four_byte(sample) {
        return (GB18030, false);
    }
    (best.0, false)
}

/// How a sample reads as UTF-8: characters of more than one byte, and sequences that are not
/// UTF-8.
struct Utf8Census {
    multibyte: usize,
    invalid: usize,
}

impl Utf8Census {
    fn of(sample: &[u8], complete: bool) -> Utf8Census {
        let mut census = Utf8Census {
            multibyte: 0,
            invalid: 0,
        };
        let mut chunks = sample.utf8_chunks().peekable();
        while let Some(chunk) = chunks.next() {
            census.multibyte += chunk.valid().bytes().filter(|&b| b >= 0xC0).count();
            let cut_at_end = !complete && chunks.peek().is_none();
            if !chunk.invalid().is_empty() && !cut_at_end {
                census.invalid += 1;
            }
        }
        census
    }

    /// UTF-8 but for a few bytes. GBK or Big5 text read as UTF-8 has about one valid
    /// character for every four or more bad sequences, Windows-1252 text next to none; a UTF-8
    /// file with a stray byte has many times more good characters than bad ones.
    fn mostly_valid(&self) -> bool {
        self.multibyte > 0 && self.multibyte >= 2 * self.invalid
    }
}

/// What a sample looks like decoded one way.
struct Reading {
    /// Chinese piece names where moves stand (`马f3`, `車×e5`), and book-layout words
    /// (`白方`, `易位`).
    moves: usize,
    /// Sequences that did not decode.
    malformed: usize,
}

impl Reading {
    fn of(encoding: &'static Encoding, sample: &[u8]) -> Reading {
        let (text, _) = encoding.decode_without_bom_handling(sample);
        let mut reading = Reading {
            moves: 0,
            malformed: 0,
        };
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\u{FFFD}' {
                reading.malformed += 1;
            } else if c >= '\u{4E00}' && PIECES.contains(c) {
                let next = chars.peek().copied().unwrap_or(' ');
                if matches!(next, 'a'..='h' | '1'..='8' | 'ａ'..='ｈ' | '１'..='８' | '×' | 'x' | ':' | '：' | '-')
                {
                    reading.moves += 1;
                }
            }
        }
        reading.moves += BOOK_WORDS
            .iter()
            .map(|w| text.matches(w).count())
            .sum::<usize>();
        reading
    }

    fn score(&self) -> isize {
        self.moves as isize - self.malformed as isize
    }
}

/// Chinese piece names, simplified and traditional (`後` from careless conversion).
const PIECES: &str = "王后後车車象马馬兵";

/// Words of the book layout's header and moves.
const BOOK_WORDS: [&str; 4] = ["白方", "黑方", "易位", "入堡"];

/// Whether the sample has a GB18030 four-byte sequence (a lead byte, then a digit).
fn has_gb18030_four_byte(sample: &[u8]) -> bool {
    let mut i = 0;
    while i < sample.len() {
        match sample[i] {
            0x81..=0xFE => {
                if sample.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    return true;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    false
}

struct DecodingReader<R> {
    inner: R,
    decoder: Decoder,
    input: Vec<u8>,
    start: usize,
    end: usize,
    output: Vec<u8>,
    pos: usize,
    eof: bool,
    done: bool,
    /// Input bytes handed to the decoder so far.
    consumed: u64,
    malformed: Malformed,
    /// Line and column of the next byte of output, until the first sequence that does not
    /// decode (then `None`: only the first one's place is reported, and a clean file costs
    /// one count of its line breaks).
    at: Option<(u32, u32)>,
}

impl<R: Read> Read for DecodingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.output.len() {
            if self.done {
                return Ok(0);
            }
            self.output.clear();
            self.pos = 0;
            if self.start == self.end && !self.eof {
                let n = loop {
                    match self.inner.read(&mut self.input) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        other => break other?,
                    }
                };
                self.start = 0;
                self.end = n;
                self.eof = n == 0;
            }
            let capacity = self.output.capacity().max(1 << 17);
            self.output.resize(capacity, 0);
            let (result, read, written) = self.decoder.decode_to_utf8_without_replacement(
                &self.input[self.start..self.end],
                &mut self.output,
                self.eof,
            );
            self.output.truncate(written);
            if let Some((line, col)) = self.at.as_mut() {
                let text = &self.output[..];
                *line = line.saturating_add(crate::pgn::lexer::count_lines(text));
                *col = column_after(text, *col);
            }
            self.start += read;
            self.consumed += read as u64;
            match result {
                DecoderResult::InputEmpty => {
                    if self.eof {
                        self.done = true;
                    }
                }
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(bad, after) => {
                    let at = self.consumed - u64::from(after) - u64::from(bad);
                    self.malformed.record(at, self.at.take().unwrap_or((0, 0)));
                    self.output.extend_from_slice("\u{FFFD}".as_bytes());
                }
            }
        }
        let n = buf.len().min(self.output.len() - self.pos);
        buf[..n].copy_from_slice(&self.output[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8], forced: Option<&'static Encoding>) -> (String, &'static str, u64) {
        let (mut r, d, m) = decoded(Box::new(io::Cursor::new(bytes.to_vec())), forced).unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        (s, d.encoding.name(), m.get().0)
    }

    #[test]
    fn utf8_passes_through() {
        let (s, name, bad) = decode("[White \"Müller\"] 1. e4 *".as_bytes(), None);
        assert_eq!(
            (s.as_str(), name, bad),
            ("[White \"Müller\"] 1. e4 *", "UTF-8", 0)
        );
    }

    #[test]
    fn legacy_encodings_are_detected() {
        let text =
            "[White \"张三\"]\n[Black \"李四\"]\n1. e4 e5 2. 马f3 马c6 3. 象b5 a6 4. 象a4 马f6 *\n"
                .repeat(20);
        for enc in [encoding_rs::GBK, encoding_rs::BIG5] {
            let text = if enc == encoding_rs::BIG5 {
                text.replace('马', "馬").replace("张三", "張三")
            } else {
                text.clone()
            };
            let (bytes, _, _) = enc.encode(&text);
            let (s, name, bad) = decode(&bytes, None);
            assert_eq!(name, enc.name());
            assert_eq!(s, text);
            assert_eq!(bad, 0);
        }
        let latin = encoding_rs::WINDOWS_1252
            .encode("[White \"Müller, Jörg\"]\n[Black \"Gonçalves\"] 1. e4 *\n")
            .0;
        assert_eq!(decode(&latin, None).1, "windows-1252");
    }

    /// Chinese moves, Latin names: the piece names are the only non-ASCII text.
    const LATIN_NAMES: &str = "[White \"Chen, Wei\"]\n[Black \"Lin, Hao\"]\n\n\
        1.e4 e5 2.马f3 马c6 3.象b5 a6 4.象a4 马f6 5.0-0 象e7 6.车e1 b5 1-0\n\n";

    #[test]
    fn chinese_moves_decide_the_encoding() {
        let simplified = LATIN_NAMES.repeat(3);
        let traditional = simplified.replace('马', "馬").replace('车', "車");
        let figurine = format!("{simplified}{{♔ is safe}} *\n");
        for (text, enc, name) in [
            (&simplified, GBK, "GBK"),
            (&figurine, GB18030, "gb18030"),
            (&traditional, BIG5, "Big5"),
        ] {
            let (bytes, _, unmappable) = enc.encode(text);
            assert!(!unmappable, "{name}");
            let (s, detected, bad) = decode(&bytes, None);
            assert_eq!((detected, bad), (name, 0));
            assert_eq!(&s, text);
        }
    }

    #[test]
    fn utf8_with_a_stray_byte_stays_utf8() {
        let mut bytes = "[White \"Müller\"]\n[Black \"张三\"]\n\n1. e4 {"
            .as_bytes()
            .to_vec();
        let at = bytes.len() as u64;
        bytes.push(0xE9);
        bytes.extend("} e5 *\n".as_bytes());
        let (mut r, d, m) = decoded(Box::new(io::Cursor::new(bytes)), None).unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        assert_eq!(d.encoding, UTF_8);
        assert!(s.starts_with("[White \"Müller\"]\n[Black \"张三\"]"), "{s}");
        assert!(s.contains("{\u{FFFD}}"), "{s}");
        assert_eq!(m.get(), (1, vec![at]));
        // With no UTF-8 character at all, the byte is Windows-1252's `é`.
        assert_eq!(
            decode(b"[Event \"Gen\xe8ve\"] 1. e4 *", None).1,
            "windows-1252"
        );
    }

    #[test]
    fn utf16_with_bom() {
        let mut bytes = vec![0xFF, 0xFE];
        for u in "1. e4 e5 *".encode_utf16() {
            bytes.extend(u.to_le_bytes());
        }
        assert_eq!(decode(&bytes, None).0, "1. e4 e5 *");
    }

    #[test]
    fn bad_bytes_are_counted_with_offsets() {
        let mut bytes = encoding_rs::GBK
            .encode("[White \"张三\"] 1. e4 ")
            .0
            .into_owned();
        let at = bytes.len() as u64;
        bytes.extend([0x81, 0x20]);
        bytes.extend(b"e5 *");
        let (mut r, _, m) =
            decoded(Box::new(io::Cursor::new(bytes)), Some(encoding_rs::GBK)).unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        assert!(s.contains('\u{FFFD}'));
        assert_eq!(m.get(), (1, vec![at]));
    }
}
