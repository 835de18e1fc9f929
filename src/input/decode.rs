//! Text encodings: detection per file (byte order marks, then UTF-8 validity, then the
//! decoding under which the file reads as PGN, then chardetng for legacy encodings such as
//! Windows-1252, GBK and Big5) and a decoding reader that turns any of them into UTF-8. Bytes
//! that do not decode are counted with their offsets and shown as U+FFFD, never dropped
//! silently.

use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use crate::pgn::cut::column_after;
use encoding_rs::{
    Decoder, DecoderResult, Encoding, BIG5, GB18030, GBK, ISO_8859_15, ISO_8859_2, SHIFT_JIS,
    UTF_8, WINDOWS_1250, WINDOWS_1251, WINDOWS_1252,
};

/// How much of a file is looked at to guess its encoding.
const SAMPLE: usize = 256 << 10;

/// Byte sequences met while decoding: those that did not decode (shown as U+FFFD) and, in an
/// input that mixes UTF-8 with a legacy encoding, those that are not UTF-8 and were read in the
/// fallback encoding. Each with a count, the offsets (in the decompressed input) of the first
/// few, and the line and column (in the decoded text) of the first.
#[derive(Clone, Debug, Default)]
pub struct Malformed(Arc<Mutex<MalformedSeen>>);

#[derive(Debug, Default)]
struct MalformedSeen {
    bad: Seen,
    fell_back: Seen,
    /// Characters of more than one byte read as UTF-8 (only counted when there is a fallback).
    utf8: u64,
}

/// How many sequences of one kind, the offsets of the first few, and where the first is.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub count: u64,
    pub offsets: Vec<u64>,
    /// Line and column (1-based, in characters of the decoded text) of the first.
    pub at: Option<(u32, u32)>,
}

impl Seen {
    fn record(&mut self, offset: u64, at: Option<(u32, u32)>) {
        self.count += 1;
        if self.offsets.len() < 10 {
            self.offsets.push(offset);
        }
        if self.at.is_none() {
            self.at = at;
        }
    }
}

impl Malformed {
    fn with(&self, f: impl FnOnce(&mut MalformedSeen)) {
        if let Ok(mut m) = self.0.lock() {
            f(&mut m);
        }
    }

    /// How many sequences did not decode, and the offsets of the first few.
    pub fn get(&self) -> (u64, Vec<u64>) {
        self.0
            .lock()
            .map(|m| (m.bad.count, m.bad.offsets.clone()))
            .unwrap_or_default()
    }

    /// Line and column (1-based, in characters of the decoded text) of the first sequence
    /// that did not decode.
    pub fn first_at(&self) -> Option<(u32, u32)> {
        self.0.lock().ok().and_then(|m| m.bad.at)
    }

    /// The sequences that are not UTF-8 and were read in the fallback encoding, and how many
    /// characters were read as UTF-8 around them.
    pub fn fell_back(&self) -> (Seen, u64) {
        self.0
            .lock()
            .map(|m| (m.fell_back.clone(), m.utf8))
            .unwrap_or_default()
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
    /// Set when valid UTF-8 is read as UTF-8 and every sequence that is not UTF-8 in this
    /// single-byte encoding: merged databases mix UTF-8 and Latin-1 games.
    pub fallback: Option<&'static Encoding>,
    /// Set when the guess rests on little text: the encoding that came close, which
    /// `--encoding` would choose instead.
    pub unsure: Option<&'static Encoding>,
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
    let guessed = match Encoding::for_bom(&sample) {
        Some((encoding, bom)) => Guess::sure(encoding).with_bom(bom),
        None => match forced {
            Some(encoding) => Guess::sure(encoding),
            None => guess(&sample, complete),
        },
    };
    let detected = Detected {
        encoding: guessed.encoding,
        forced: forced.is_some() && guessed.bom == 0,
        as_is: guessed.as_is,
        fallback: guessed.fallback,
        unsure: guessed.unsure,
    };
    let malformed = Malformed::default();
    let rest = io::Cursor::new(sample).chain(inner);
    if detected.as_is {
        // UTF-8 needs no decoding; the lexer copes with stray bytes and reports them. (A
        // sample with bad bytes goes through the decoder, which reports each at its offset.)
        return Ok((Box::new(rest), detected, malformed));
    }
    // A mixed input is read by the UTF-8 decoder, its bad sequences by the fallback.
    let decoder = match guessed.fallback {
        Some(_) => UTF_8.new_decoder_without_bom_handling(),
        // The BOM is removed by the decoder itself.
        None => guessed.encoding.new_decoder_with_bom_removal(),
    };
    let reader = DecodingReader {
        inner: rest,
        decoder,
        fallback: guessed.fallback,
        input: vec![0; 1 << 16],
        start: 0,
        end: 0,
        recent: Vec::with_capacity(2 * RECENT),
        output: vec![0; OUTPUT + SLACK],
        filled: 0,
        pos: 0,
        eof: false,
        done: false,
        consumed: 0,
        malformed: malformed.clone(),
        at: Some((1, 1)),
    };
    Ok((Box::new(reader), detected, malformed))
}

/// What [`guess`] decided.
struct Guess {
    encoding: &'static Encoding,
    /// Length of the byte order mark.
    bom: usize,
    /// UTF-8 read as it is.
    as_is: bool,
    fallback: Option<&'static Encoding>,
    unsure: Option<&'static Encoding>,
}

impl Guess {
    fn sure(encoding: &'static Encoding) -> Guess {
        Guess {
            encoding,
            bom: 0,
            as_is: encoding == UTF_8,
            fallback: None,
            unsure: None,
        }
    }

    fn with_bom(self, bom: usize) -> Guess {
        Guess {
            bom,
            as_is: false,
            ..self
        }
    }
}

/// The sample's encoding. UTF-8 when the sample is valid UTF-8 (allowing a sequence cut at
/// the sample's end). Otherwise the legacy encoding it reads best in ([`legacy`]); when that
/// is a [`LATIN`] encoding, or the sample is UTF-8 but for a few bytes among many UTF-8
/// characters, the input is read as UTF-8 wherever it is valid and in the Latin encoding
/// (Windows-1252 for a UTF-8 input) elsewhere, so that neither the UTF-8 nor the Latin-1
/// games of a merged database turn into mojibake.
fn guess(sample: &[u8], complete: bool) -> Guess {
    match std::str::from_utf8(sample) {
        Ok(_) => return Guess::sure(UTF_8),
        Err(e) if !complete && e.error_len().is_none() => return Guess::sure(UTF_8),
        Err(_) => {}
    }
    // GBK pairs with a lead of 0xC2–0xDF and a trail up to 0xBF are valid UTF-8 too: a
    // strong Chinese reading outweighs a few such characters.
    let mostly_utf8 = Utf8Census::of(sample, complete).mostly_valid()
        && !Hanzi::choose(sample).0.is_some_and(|c| c.1.strong());
    let (encoding, unsure) = legacy(sample, complete, mostly_utf8);
    if encoding == UTF_8 {
        return Guess {
            fallback: Some(WINDOWS_1252),
            ..Guess::sure(UTF_8).with_bom(0)
        };
    }
    Guess {
        encoding,
        bom: 0,
        as_is: false,
        fallback: LATIN.contains(&encoding).then_some(encoding),
        unsure,
    }
}

/// Latin encodings, whose text almost never holds a valid UTF-8 sequence (an accented capital
/// and then a symbol such as `É»`): inputs in them are read as UTF-8 wherever that is valid.
/// (Windows-1251's `Пётр` is: `Пё` is a two-byte UTF-8 sequence.)
const LATIN: [&Encoding; 4] = [WINDOWS_1252, ISO_8859_15, WINDOWS_1250, ISO_8859_2];

/// The legacy encoding the sample reads best in, and the one that came close when the
/// evidence is thin. Chinese piece names where moves stand decide first: engine and club
/// files often have Latin names and no other non-ASCII text, too little for chardetng, which
/// then guesses a Latin encoding and every Chinese move is lost. Then chardetng's guess, unless
/// it is a code page rarely met in PGN files (EUC-JP, EUC-KR, ISO-8859-5...) and the bytes
/// read as plausible Chinese in GBK or Big5 ([`Hanzi`]): a few player names are too little
/// text for chardetng, and one small GBK file in six went to one of those.
fn legacy(
    sample: &[u8],
    complete: bool,
    mostly_utf8: bool,
) -> (&'static Encoding, Option<&'static Encoding>) {
    let chardet = if mostly_utf8 {
        UTF_8
    } else {
        let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
        detector.feed(sample, complete);
        detector.guess(None, chardetng::Utf8Detection::Deny)
    };
    let mut best = (chardet, Reading::of(chardet, sample));
    for candidate in [UTF_8, GBK, BIG5] {
        if candidate == chardet {
            continue;
        }
        let reading = Reading::of(candidate, sample);
        if reading.moves > 0 && reading.score() > best.1.score() {
            best = (candidate, reading);
        }
    }
    // GBK and GB18030 decode alike; only GB18030 has four-byte sequences, which name it.
    let gb = |enc| {
        if enc == GBK && has_gb18030_four_byte(sample) {
            GB18030
        } else {
            enc
        }
    };
    if best.0 != chardet || best.1.moves > 0 || mostly_utf8 {
        return (gb(best.0), None);
    }
    let (chinese, other) = Hanzi::choose(sample);
    let Some(chinese) = chinese else {
        return (chardet, None);
    };
    let rare = ![GBK, GB18030, BIG5].contains(&chardet) && !COMMON_IN_PGN.contains(&chardet);
    if !rare && !chinese.1.strong() && ![GBK, GB18030, BIG5].contains(&chardet) {
        return (chardet, None);
    }
    let choice = gb(chinese.0);
    // Little text, or two readings alike, or chardetng overruled: say which `--encoding`
    // would read it the other way.
    let runner_up = other.map_or(chardet, |o| o.0);
    let thin = chinese.1.pairs < THIN;
    let close = other.is_some_and(|o| o.1.close_to(&chinese.1));
    let unsure = (thin || close || choice != chardet)
        .then_some(runner_up)
        .filter(|&r| r != choice);
    (choice, unsure)
}

/// chardetng's guesses that PGN files are really written in: they are not second-guessed
/// unless the Chinese reading is strong.
const COMMON_IN_PGN: [&Encoding; 5] = [
    WINDOWS_1252,
    WINDOWS_1251,
    WINDOWS_1250,
    ISO_8859_2,
    SHIFT_JIS,
];

/// Fewer two-byte characters than this make a guess that is said to be unsure.
const THIN: usize = 24;

/// How a sample's non-ASCII bytes read as Chinese in GBK or Big5: two-byte characters in the
/// encoding's range of common ideographs (GB2312 level 1, 0xB0A1–0xD7FE, the ~3,700 most
/// used simplified characters; Big5 0xA440–0xC67E, its 5,401 frequent traditional ones), other
/// characters, byte sequences the encoding rejects, and common Chinese surnames among the
/// characters (player names are most of the non-ASCII text of PGN files). Judged on the bytes,
/// so no decoding is needed.
#[derive(Clone, Copy, Debug, Default)]
struct Hanzi {
    pairs: usize,
    /// Characters in the encoding's ideograph ranges (GB2312 levels 1 and 2, 0xB0A1–0xF7FE;
    /// Big5's frequent and less frequent ones, 0xA440–0xC67E and 0xC940–0xF9D5).
    ideographs: usize,
    common: usize,
    bad: usize,
    surnames: usize,
    /// Common characters right next to an ASCII letter: Latin text (`Álvarez`) read as
    /// Chinese, seldom real Chinese, whose names stand between quotes and spaces.
    by_letters: usize,
}

impl Hanzi {
    fn of(encoding: &'static Encoding, sample: &[u8]) -> Hanzi {
        let big5 = encoding == BIG5;
        let mut h = Hanzi::default();
        let mut i = 0;
        // The byte before is an ASCII letter (not the trail of a pair).
        let mut after_letter = false;
        while i < sample.len() {
            let lead = sample[i];
            if lead < 0x80 {
                after_letter = lead.is_ascii_alphabetic();
                i += 1;
                continue;
            }
            let Some(&trail) = sample.get(i + 1) else {
                break;
            };
            // GB18030's four-byte sequences: a lead, a digit, a lead, a digit.
            if !big5 && trail.is_ascii_digit() {
                h.pairs += 1;
                i += 4;
                continue;
            }
            let valid_lead = (0x81..=0xFE).contains(&lead);
            let valid_trail = if big5 {
                matches!(trail, 0x40..=0x7E | 0xA1..=0xFE)
            } else {
                matches!(trail, 0x40..=0x7E | 0x80..=0xFE)
            };
            if !valid_lead || !valid_trail {
                h.bad += 1;
                i += 1;
                continue;
            }
            h.pairs += 1;
            let before_letter = std::mem::take(&mut after_letter);
            let (common, ideograph) = if big5 {
                (
                    (0xA4..=0xC5).contains(&lead) || (lead == 0xC6 && trail <= 0x7E),
                    (0xA4..=0xC6).contains(&lead) || (0xC9..=0xF9).contains(&lead),
                )
            } else {
                (
                    (0xB0..=0xD7).contains(&lead) && trail >= 0xA1,
                    (0xB0..=0xF7).contains(&lead) && trail >= 0xA1,
                )
            };
            if ideograph {
                h.ideographs += 1;
            }
            if common {
                h.common += 1;
                let after = sample.get(i + 2).copied();
                if before_letter || after.is_some_and(|b| b.is_ascii_alphabetic()) {
                    h.by_letters += 1;
                }
                // Every surname listed is a common character.
                let (text, _) = encoding.decode_without_bom_handling(&sample[i..i + 2]);
                if text.chars().next().is_some_and(|c| SURNAMES.contains(c)) {
                    h.surnames += 1;
                }
            }
            i += 2;
        }
        h
    }

    /// Plausible Chinese: nothing rejected, at least three characters in four ideographs and
    /// half of them common (names use rarer characters too: 怡 is in GB2312's level 2).
    fn plausible(&self) -> bool {
        self.pairs > 0
            && self.bad == 0
            && 4 * self.ideographs >= 3 * self.pairs
            && 2 * self.common >= self.pairs
    }

    /// Plausible, and not Latin letters read as Chinese.
    fn strong(&self) -> bool {
        self.plausible() && self.by_letters == 0
    }

    /// Ranks two plausible readings: more common characters, then more surnames.
    fn rank(&self) -> (usize, usize) {
        (self.common, self.surnames)
    }

    /// Whether the two readings are too alike to choose between with confidence.
    fn close_to(&self, other: &Hanzi) -> bool {
        self.common == other.common && self.surnames.abs_diff(other.surnames) < 2
    }

    /// The plausible Chinese readings, best first: GBK wins a tie (mainland files are the
    /// many).
    fn choose(sample: &[u8]) -> (Option<Chinese>, Option<Chinese>) {
        let gbk = (GBK, Hanzi::of(GBK, sample));
        let big5 = (BIG5, Hanzi::of(BIG5, sample));
        match (gbk.1.plausible(), big5.1.plausible()) {
            (true, true) if big5.1.rank() > gbk.1.rank() => (Some(big5), Some(gbk)),
            (true, true) => (Some(gbk), Some(big5)),
            (true, false) => (Some(gbk), None),
            (false, true) => (Some(big5), None),
            (false, false) => (None, None),
        }
    }
}

/// An encoding that reads a sample as Chinese, and how.
type Chinese = (&'static Encoding, Hanzi);

/// The hundred most common Chinese surnames, simplified and traditional.
const SURNAMES: &str = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董\
    袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷\
    侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤\
    張劉陳楊黃趙吳孫馬羅鄭謝許韓馮鄧蕭袁蔣葉蘇呂盧鍾譚陸賈韋鄒閆龍賀顧龔萬錢嚴湯";

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

/// Bytes of decoded text a [`DecodingReader`] holds for its reader.
const OUTPUT: usize = 1 << 17;

/// Room past [`OUTPUT`] for what stands for one bad sequence (U+FFFD, or up to four bytes read
/// in the fallback: up to twelve bytes of UTF-8).
const SLACK: usize = 16;

/// Input bytes kept from before the current buffer: a bad sequence may begin in an earlier one.
const RECENT: usize = 8;

struct DecodingReader<R> {
    inner: R,
    decoder: Decoder,
    /// The single-byte encoding that reads what is not UTF-8 (the decoder is then UTF-8's).
    fallback: Option<&'static Encoding>,
    input: Vec<u8>,
    start: usize,
    end: usize,
    /// The last input bytes handed to the decoder.
    recent: Vec<u8>,
    output: Vec<u8>,
    /// Bytes of `output` that hold text, and how many of them were read already.
    filled: usize,
    pos: usize,
    eof: bool,
    done: bool,
    /// Input bytes handed to the decoder so far.
    consumed: u64,
    malformed: Malformed,
    /// Line and column of the next byte of output, until the first sequence that does not
    /// decode and the first read by the fallback are placed (then `None`: a clean file costs
    /// one count of its line breaks).
    at: Option<(u32, u32)>,
}

impl<R: Read> DecodingReader<R> {
    /// Decodes into `output` until it is full, the input ends, or the input has to wait.
    fn fill(&mut self) -> io::Result<()> {
        self.filled = 0;
        self.pos = 0;
        while !self.done && self.filled < OUTPUT {
            if self.start == self.end && !self.eof {
                if self.filled > 0 {
                    // Give what there is before waiting on the input.
                    return Ok(());
                }
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
            let from = self.start;
            let (result, read, written) = self.decoder.decode_to_utf8_without_replacement(
                &self.input[from..self.end],
                &mut self.output[self.filled..OUTPUT],
                self.eof,
            );
            let text_start = self.filled;
            self.filled += written;
            self.start += read;
            self.consumed += read as u64;
            if self.fallback.is_some() {
                let multibyte = self.output[text_start..self.filled]
                    .iter()
                    .filter(|&&b| b >= 0xC0)
                    .count() as u64;
                if multibyte > 0 {
                    self.malformed.with(|m| m.utf8 += multibyte);
                }
            }
            self.track(text_start);
            // The last bytes handed over: a bad sequence (at most four bytes) ends `after`
            // (at most three) bytes before their end.
            self.recent
                .extend_from_slice(&self.input[from + read.saturating_sub(RECENT)..from + read]);
            let excess = self.recent.len().saturating_sub(RECENT);
            self.recent.drain(..excess);
            match result {
                DecoderResult::InputEmpty => self.done = self.eof,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(bad, after) => {
                    let (bad, after) = (usize::from(bad), usize::from(after));
                    let offset = self.consumed - (after + bad) as u64;
                    let end = self.recent.len().saturating_sub(after);
                    let bytes = &self.recent[end.saturating_sub(bad)..end];
                    let text = self
                        .fallback
                        .map(|f| f.decode_without_bom_handling(bytes).0.into_owned());
                    let at = self.at;
                    let text_start = self.filled;
                    match text {
                        Some(text) if !text.contains('\u{FFFD}') => {
                            self.malformed.with(|m| m.fell_back.record(offset, at));
                            self.put(text.as_bytes());
                        }
                        _ => {
                            self.malformed.with(|m| m.bad.record(offset, at));
                            self.put("\u{FFFD}".as_bytes());
                        }
                    }
                    self.track(text_start);
                    self.stop_tracking();
                }
            }
        }
        Ok(())
    }

    /// Puts text that stands for a bad sequence after the decoded text (into the slack).
    fn put(&mut self, text: &[u8]) {
        let n = text.len().min(self.output.len() - self.filled);
        self.output[self.filled..self.filled + n].copy_from_slice(&text[..n]);
        self.filled += n;
    }

    /// Moves the line and column on past the text from `from` to `filled`.
    fn track(&mut self, from: usize) {
        if let Some((line, col)) = self.at.as_mut() {
            let text = &self.output[from..self.filled];
            *line = line.saturating_add(crate::pgn::lexer::count_lines(text));
            *col = column_after(text, *col);
        }
    }

    /// Stops counting lines once every kind of bad sequence has its first place.
    fn stop_tracking(&mut self) {
        let mut placed = false;
        self.malformed.with(|m| {
            placed = m.bad.at.is_some() && (self.fallback.is_none() || m.fell_back.at.is_some());
        });
        if placed {
            self.at = None;
        }
    }
}

impl<R: Read> Read for DecodingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.filled {
            if self.done {
                return Ok(0);
            }
            self.fill()?;
        }
        let n = buf.len().min(self.filled - self.pos);
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
        assert_eq!((d.encoding, d.fallback), (UTF_8, Some(WINDOWS_1252)));
        // The stray byte is Windows-1252's `é`, the rest stays UTF-8.
        assert_eq!(
            s,
            "[White \"Müller\"]\n[Black \"张三\"]\n\n1. e4 {é} e5 *\n"
        );
        assert_eq!(m.get(), (0, vec![]));
        let (seen, utf8) = m.fell_back();
        assert_eq!(
            (seen.count, seen.offsets, seen.at),
            (1, vec![at], Some((4, 8)))
        );
        assert_eq!(utf8, 3);
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

#[cfg(test)]
mod names {
    //! Regression (issue 39): a small GBK file whose only non-ASCII text is two player names
    //! was read as EUC-JP, EUC-KR or ISO-8859-5 about one time in six. Many short names in
    //! each encoding PGN files are written in, each in a tiny PGN of its own.

    use super::*;

    const SIMPLIFIED_SURNAMES: &str = "李倪邓彭柳陈王张刘杨黄赵吴周徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁许傅沈曾吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文卜居";
    const TRADITIONAL_SURNAMES: &str = "李倪鄧彭柳陳王張劉楊黃趙吳周徐孫胡朱高林何郭馬羅梁宋鄭謝韓唐馮于董蕭程曹袁許傅沈曾呂蘇盧蔣蔡賈丁魏薛葉閻余潘杜戴夏鍾汪田任姜范方石姚譚廖鄒熊金陸郝孔白崔康毛邱秦江史顧侯邵孟龍萬段雷錢湯尹黎易常武喬賀賴龔文卜居";
    const SIMPLIFIED_GIVEN: &str = "超华力立艺梦伟芳娜秀敏静丽强磊军洋勇艳杰娟涛明超霞平刚桂英华建国志红玉兰文辉鹏飞宇浩然子轩欣怡晨阳亮斌春雪梅海波俊峰";
    const TRADITIONAL_GIVEN: &str = "超華力立藝夢偉芳娜秀敏靜麗強磊軍洋勇豔傑娟濤明超霞平剛桂英華建國志紅玉蘭文輝鵬飛宇浩然子軒欣怡晨陽亮斌春雪梅海波俊峰";

    /// A tiny PGN: three games between the two players.
    fn pgn(white: &str, black: &str) -> String {
        let mut s = String::new();
        for (round, result) in [(1, "1-0"), (2, "1/2-1/2"), (3, "0-1")] {
            s += &format!(
                "[Event \"Club\"]\n[Site \"?\"]\n[Date \"2024.03.0{round}\"]\n[Round \"{round}\"]\n\
                 [White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n\
                 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 {result}\n\n"
            );
        }
        s
    }

    /// Names of two or three characters, drawn (by a fixed sequence) from the lists.
    fn names(surnames: &str, given: &str, n: usize) -> Vec<String> {
        let surnames: Vec<char> = surnames.chars().collect();
        let given: Vec<char> = given.chars().collect();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        (0..n)
            .map(|_| {
                let mut name = String::from(surnames[next(surnames.len())]);
                for _ in 0..1 + next(2) {
                    name.push(given[next(given.len())]);
                }
                name
            })
            .collect()
    }

    /// The files of `names`, two names a file, that are not read in `enc`, as `names -> read`.
    fn misread(enc: &'static Encoding, names: &[String]) -> Vec<String> {
        let mut wrong = Vec::new();
        for (i, white) in names.iter().enumerate().step_by(2) {
            let pair = [white, &names[(i + 1) % names.len()]];
            let text = pgn(pair[0], pair[1]);
            let (bytes, _, unmappable) = enc.encode(&text);
            assert!(!unmappable, "{pair:?} in {}", enc.name());
            let (mut r, d, _) =
                decoded(Box::new(io::Cursor::new(bytes.into_owned())), None).expect("decode");
            let mut s = String::new();
            r.read_to_string(&mut s).expect("read");
            if s != text {
                wrong.push(format!(
                    "{pair:?} -> {} ({:?})",
                    d.encoding.name(),
                    d.unsure.map(|e| e.name())
                ));
            }
        }
        wrong
    }

    #[test]
    fn short_chinese_names_are_read_in_their_encoding() {
        let issue = ["李超", "倪华", "邓力", "彭立", "柳艺", "陈梦"].map(String::from);
        assert_eq!(misread(GBK, &issue), Vec::<String>::new());
        let simplified = names(SIMPLIFIED_SURNAMES, SIMPLIFIED_GIVEN, 1000);
        let wrong = misread(GBK, &simplified);
        assert!(
            wrong.is_empty(),
            "{} of 500 GBK files misread: {wrong:#?}",
            wrong.len()
        );
        let traditional = names(TRADITIONAL_SURNAMES, TRADITIONAL_GIVEN, 1000);
        let wrong = misread(BIG5, &traditional);
        assert!(
            wrong.is_empty(),
            "{} of 500 Big5 files misread: {wrong:#?}",
            wrong.len()
        );
    }

    /// Pairs of every surname with a first name, as `Surname, First`.
    fn western(surnames: &[&str], first: &[&str]) -> Vec<String> {
        surnames
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{s}, {}", first[i % first.len()]))
            .collect()
    }

    #[test]
    fn short_latin_cyrillic_and_japanese_names_are_read_in_their_encoding() {
        let latin = western(
            &[
                "Müller",
                "Gonçalves",
                "Álvarez",
                "Sørensen",
                "Ørnstein",
                "Hübner",
                "Jäger",
                "Björk",
                "Nuñez",
                "Pérez",
                "Fernández",
                "Ibáñez",
                "Šmid",
                "Andrés",
                "Löwe",
                "Ólafsson",
                "Größer",
                "Françoise",
                "Åkesson",
                "Sánchez",
            ],
            &[
                "Jörg", "José", "Zoë", "Ángel", "Günther", "Éric", "Inés", "Maël",
            ],
        );
        let latin: Vec<String> = latin.into_iter().filter(|n| !n.contains('Š')).collect();
        assert_eq!(misread(WINDOWS_1252, &latin), Vec::<String>::new());
        let cyrillic = western(
            &[
                "Карпов",
                "Каспаров",
                "Иванчук",
                "Крамник",
                "Свидлер",
                "Грищук",
                "Непомнящий",
                "Гончаренко",
                "Костенюк",
                "Ткачёв",
                "Шипов",
                "Юдина",
                "Эльянов",
                "Ли",
                "Ян",
                "Ву",
                "Жуков",
                "Щербаков",
            ],
            &[
                "Анатолий",
                "Гарри",
                "Василий",
                "Пётр",
                "Ян",
                "Ирина",
                "Юлия",
                "Олег",
            ],
        );
        assert_eq!(misread(WINDOWS_1251, &cyrillic), Vec::<String>::new());
        let japanese = [
            "羽生善治",
            "渡辺明",
            "藤井聡太",
            "佐藤天彦",
            "豊島将之",
            "永瀬拓矢",
            "中村太地",
            "森内俊之",
            "谷川浩司",
            "小林健二",
            "山田花子",
            "鈴木一郎",
            "高橋みなみ",
            "田中さくら",
        ]
        .map(String::from);
        assert_eq!(misread(SHIFT_JIS, &japanese), Vec::<String>::new());
    }
}
