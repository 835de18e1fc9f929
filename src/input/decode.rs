//! A `Read` adapter that decodes GBK/GB18030, Big5 or UTF-8 input to UTF-8 on the fly, so the
//! PGN reader (which works on UTF-8 bytes) can read Chinese files in legacy encodings. Bytes
//! that do not decode become U+FFFD and are counted, never silently dropped.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use encoding_rs::{Decoder, DecoderResult, Encoding};

/// An encoding pgnkit can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputEncoding {
    /// GBK, read as its superset GB18030 (mainland China).
    Gbk,
    /// Big5 (Taiwan, Hong Kong), with the HKSCS extensions the WHATWG standard includes.
    Big5,
    /// UTF-8, checked: malformed bytes are reported like in the other encodings.
    Utf8,
}

impl InputEncoding {
    fn encoding(self) -> &'static Encoding {
        match self {
            InputEncoding::Gbk => encoding_rs::GB18030,
            InputEncoding::Big5 => encoding_rs::BIG5,
            InputEncoding::Utf8 => encoding_rs::UTF_8,
        }
    }

    /// The name users know it by.
    pub fn name(self) -> &'static str {
        match self {
            InputEncoding::Gbk => "GBK",
            InputEncoding::Big5 => "Big5",
            InputEncoding::Utf8 => "UTF-8",
        }
    }
}

/// What the decoder met that it could not decode, shared with whoever reports it.
#[derive(Debug, Default)]
pub struct DecodeStats {
    /// Malformed byte sequences replaced by U+FFFD.
    pub malformed: Cell<u64>,
    /// Byte offset (in the encoded input) of the first one.
    pub first_offset: Cell<Option<u64>>,
}

const IN_BUF: usize = 1 << 16;
/// Room for the decoded bytes of a full input buffer plus one replacement character.
const OUT_BUF: usize = IN_BUF * 3 + 16;

/// Decodes `inner` from an [`InputEncoding`] to UTF-8. A byte order mark is removed.
pub struct DecodingReader<R> {
    inner: R,
    decoder: Decoder,
    input: Vec<u8>,
    in_start: usize,
    in_end: usize,
    output: Vec<u8>,
    out_start: usize,
    out_end: usize,
    /// Encoded bytes handed to the decoder so far.
    consumed: u64,
    eof: bool,
    done: bool,
    stats: Rc<DecodeStats>,
}

impl<R: Read> DecodingReader<R> {
    pub fn new(inner: R, encoding: InputEncoding) -> Self {
        DecodingReader {
            inner,
            decoder: encoding.encoding().new_decoder(),
            input: vec![0; IN_BUF],
            in_start: 0,
            in_end: 0,
            output: vec![0; OUT_BUF],
            out_start: 0,
            out_end: 0,
            consumed: 0,
            eof: false,
            done: false,
            stats: Rc::new(DecodeStats::default()),
        }
    }

    /// The counters of undecodable bytes, readable while and after the stream is read.
    pub fn stats(&self) -> Rc<DecodeStats> {
        Rc::clone(&self.stats)
    }

    fn decode_some(&mut self) -> io::Result<()> {
        if self.in_start == self.in_end && !self.eof {
            let n = loop {
                match self.inner.read(&mut self.input) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            self.in_start = 0;
            self.in_end = n;
            self.eof = n == 0;
        }
        let src = &self.input[self.in_start..self.in_end];
        let dst_len = OUT_BUF - 16;
        let (result, read, written) = self.decoder.decode_to_utf8_without_replacement(
            src,
            &mut self.output[..dst_len],
            self.eof,
        );
        self.in_start += read;
        self.consumed += read as u64;
        self.out_start = 0;
        self.out_end = written;
        match result {
            DecoderResult::InputEmpty => {
                if self.eof {
                    self.done = true;
                }
            }
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(bad, after) => {
                let offset = self
                    .consumed
                    .saturating_sub(u64::from(bad) + u64::from(after));
                self.stats.malformed.set(self.stats.malformed.get() + 1);
                if self.stats.first_offset.get().is_none() {
                    self.stats.first_offset.set(Some(offset));
                }
                let r = "\u{FFFD}".as_bytes();
                self.output[written..written + r.len()].copy_from_slice(r);
                self.out_end += r.len();
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for DecodingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_start == self.out_end {
            if self.done {
                return Ok(0);
            }
            self.decode_some()?;
        }
        let n = buf.len().min(self.out_end - self.out_start);
        buf[..n].copy_from_slice(&self.output[self.out_start..self.out_start + n]);
        self.out_start += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8], enc: InputEncoding) -> (String, u64, Option<u64>) {
        let mut r = DecodingReader::new(bytes, enc);
        let stats = r.stats();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        (s, stats.malformed.get(), stats.first_offset.get())
    }

    #[test]
    fn gbk_and_big5_decode() {
        // 马 in GBK is C2 ED; 馬 in Big5 is B0 A8.
        assert_eq!(decode(b"2.\xc2\xedf3", InputEncoding::Gbk).0, "2.马f3");
        assert_eq!(decode(b"2.\xb0\xa8f3", InputEncoding::Big5).0, "2.馬f3");
    }

    #[test]
    fn undecodable_bytes_are_counted_with_their_offset() {
        let (s, n, first) = decode(b"e4 \xff e5", InputEncoding::Utf8);
        assert_eq!(s, "e4 \u{FFFD} e5");
        assert_eq!((n, first), (1, Some(3)));
    }

    #[test]
    fn long_input_crosses_buffers() {
        let text = "1.e4 马f3 ".repeat(20_000);
        let (gbk, _, _) = encoding_rs::GBK.encode(&text);
        let (s, n, _) = decode(&gbk, InputEncoding::Gbk);
        assert_eq!((s, n), (text, 0));
    }

    #[test]
    fn bom_is_removed() {
        assert_eq!(decode(b"\xef\xbb\xbfe4", InputEncoding::Utf8).0, "e4");
    }
}
