//! The page headers of a Parquet column chunk, read without reading a page: what each page
//! says it decompresses to, so that a page too large is refused before the decoder allocates
//! for it. The `parquet` crate keeps its page header type to itself, so the few fields needed
//! are read here from the Thrift compact protocol the headers are written in.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

/// Structs nested deeper than this in a page header are damage, not a header: real headers
/// nest three deep (a header, its data page header, its statistics).
const MAX_DEPTH: u32 = 16;

/// What a page header says of its page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageSize {
    /// A dictionary page (its values are the cells of every data page that uses it).
    pub dictionary: bool,
    /// Bytes the page says it decompresses to: what the decoder allocates.
    pub uncompressed: i64,
    /// Bytes of the page in the file, after its header.
    pub compressed: i64,
    /// Values (rows, for a column that is not a list) the page holds.
    pub values: i64,
    /// In a chunk of the old `LZ4` codec, the page's bytes begin as an LZ4 frame does: that
    /// codec falls back to the frame layout when a page is not Hadoop's, and the frame decoder keeps decoding past
    /// what the page header says (see [`lz4_frame_bound`]).
    pub lz4_frame: bool,
}

/// The magic number an LZ4 frame starts with (little-endian 0x184D2204).
const LZ4_FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

/// The most an LZ4 page of `compressed` bytes can decode to: a sequence adds 255 bytes of a
/// match for each byte of its length, so no LZ4 data decodes to more than 255 times its size
/// (and a little).
pub fn lz4_frame_bound(compressed: i64) -> u64 {
    u64::try_from(compressed)
        .unwrap_or(0)
        .saturating_mul(255)
        .saturating_add(1 << 16)
}

/// The pages of the column chunk at `start..end` of `file`, in order. Reads only their
/// headers (and, for a chunk of the old LZ4 codec, `lz4`, each page's first 4 bytes, to see
/// whether it is an LZ4 frame): each page's bytes are passed over. Stops at the first page the chunk cannot
/// hold; the caller compares the pages' values with the rows.
///
/// # Errors
///
/// A header that is not a Thrift page header, or that runs past the chunk.
pub fn chunk_pages<R: Read + Seek>(
    file: R,
    start: u64,
    end: u64,
    lz4: bool,
) -> io::Result<Vec<PageSize>> {
    let mut reader = BufReader::with_capacity(8 << 10, file);
    reader.seek(SeekFrom::Start(start))?;
    let mut at = start;
    let mut pages = Vec::new();
    while at < end {
        let mut header = Header {
            inner: &mut reader,
            read: 0,
            left: end - at,
        };
        let mut page = header.page()?;
        let after = at
            .checked_add(header.read)
            .and_then(|a| a.checked_add(u64::try_from(page.compressed).ok()?))
            .filter(|&a| a <= end)
            .ok_or_else(|| bad("a page that runs past its column chunk"))?;
        if lz4 && page.compressed >= 4 {
            let mut magic = [0u8; 4];
            reader.read_exact(&mut magic)?;
            page.lz4_frame = magic == LZ4_FRAME_MAGIC;
        }
        pages.push(page);
        reader.seek(SeekFrom::Start(after))?;
        at = after;
    }
    Ok(pages)
}

fn bad(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("bad page header: {what}"),
    )
}

/// A header being read: no further than `left` bytes.
struct Header<'a, R> {
    inner: &'a mut R,
    read: u64,
    left: u64,
}

impl<R: BufRead> Header<'_, R> {
    fn byte(&mut self) -> io::Result<u8> {
        if self.left == 0 {
            return Err(bad("it runs past its column chunk"));
        }
        let mut b = [0u8];
        self.inner.read_exact(&mut b)?;
        self.read += 1;
        self.left -= 1;
        Ok(b[0])
    }

    /// Passes over `n` bytes without keeping them.
    fn skip(&mut self, n: u64) -> io::Result<()> {
        if n > self.left {
            return Err(bad("it runs past its column chunk"));
        }
        let copied = io::copy(&mut (&mut *self.inner).take(n), &mut io::sink())?;
        if copied != n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.read += n;
        self.left -= n;
        Ok(())
    }

    fn varint(&mut self) -> io::Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(bad("a varint of more than ten bytes"))
    }

    /// A zigzag integer (i16, i32 and i64 are all written so).
    fn int(&mut self) -> io::Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// The next field of a struct: its id and type, `None` at the struct's end.
    fn field(&mut self, last: &mut i16) -> io::Result<Option<(i16, u8)>> {
        let b = self.byte()?;
        if b == 0 {
            return Ok(None);
        }
        let delta = i16::from(b >> 4);
        *last = if delta == 0 {
            i16::try_from(self.int()?).map_err(|_| bad("a field id out of range"))?
        } else {
            last.saturating_add(delta)
        };
        Ok(Some((*last, b & 0x0f)))
    }

    /// Passes over a value of compact type `kind`.
    fn skip_value(&mut self, kind: u8, depth: u32) -> io::Result<()> {
        if depth > MAX_DEPTH {
            return Err(bad("structs nested too deep"));
        }
        match kind {
            // Booleans are in the field's type.
            1 | 2 => Ok(()),
            3 => self.skip(1),
            4..=6 => self.varint().map(drop),
            7 => self.skip(8),
            8 => {
                let n = self.varint()?;
                self.skip(n)
            }
            9 | 10 => {
                let b = self.byte()?;
                let n = match b >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                let element = b & 0x0f;
                for _ in 0..n {
                    // A boolean element is a byte of its own.
                    if matches!(element, 1 | 2) {
                        self.skip(1)?;
                    } else {
                        self.skip_value(element, depth + 1)?;
                    }
                }
                Ok(())
            }
            11 => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                let kinds = self.byte()?;
                for _ in 0..n {
                    self.skip_value(kinds >> 4, depth + 1)?;
                    self.skip_value(kinds & 0x0f, depth + 1)?;
                }
                Ok(())
            }
            12 => self.skip_struct(depth + 1),
            _ => Err(bad("an unknown field type")),
        }
    }

    fn skip_struct(&mut self, depth: u32) -> io::Result<()> {
        let mut last = 0;
        while let Some((_, kind)) = self.field(&mut last)? {
            self.skip_value(kind, depth)?;
        }
        Ok(())
    }

    /// A data page header (v1 or v2) or a dictionary page header: its count of values
    /// (field 1), and for v2 its rows (field 3).
    fn counts(&mut self) -> io::Result<(i64, Option<i64>)> {
        let (mut values, mut rows) = (0, None);
        let mut last = 0;
        while let Some((id, kind)) = self.field(&mut last)? {
            match (id, kind) {
                (1, 5) => values = self.int()?,
                (3, 5) => rows = Some(self.int()?),
                _ => self.skip_value(kind, 2)?,
            }
        }
        Ok((values, rows))
    }

    /// A `PageHeader`: type (1), uncompressed (2) and compressed (3) sizes, and the counts of
    /// its data page (5), dictionary page (7) or data page v2 (8) header.
    fn page(&mut self) -> io::Result<PageSize> {
        let mut page = PageSize::default();
        let mut last = 0;
        let mut sizes = 0;
        while let Some((id, kind)) = self.field(&mut last)? {
            match (id, kind) {
                (1, 5) => page.dictionary = self.int()? == 2,
                (2, 5) => {
                    page.uncompressed = self.int()?;
                    sizes += 1;
                }
                (3, 5) => {
                    page.compressed = self.int()?;
                    sizes += 1;
                }
                (5 | 7, 12) => page.values = self.counts()?.0,
                (8, 12) => {
                    let (values, rows) = self.counts()?;
                    page.values = rows.unwrap_or(values);
                }
                _ => self.skip_value(kind, 1)?,
            }
        }
        if sizes < 2 || page.uncompressed < 0 || page.compressed < 0 {
            return Err(bad("no page sizes"));
        }
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A file of one column chunk written by the `parquet` crate, and that chunk's range.
    fn chunk_of(values: &[&str], page_rows: usize, dictionary: bool) -> (Vec<u8>, u64, u64) {
        use arrow_array::{ArrayRef, RecordBatch, StringArray};
        use parquet::arrow::ArrowWriter;
        use parquet::basic::Compression;
        use parquet::file::properties::WriterProperties;
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use std::sync::Arc;

        let array: ArrayRef = Arc::new(StringArray::from_iter_values(values.iter().copied()));
        let batch = RecordBatch::try_from_iter([("movetext", array)]).unwrap();
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(dictionary)
            .set_data_page_row_count_limit(page_rows)
            .set_write_batch_size(1)
            .build();
        let mut bytes = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut bytes, batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let path = std::env::temp_dir().join(format!(
            "pgnkit-pages-{}-{page_rows}-{dictionary}.parquet",
            std::process::id()
        ));
        std::fs::write(&path, &bytes).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let _ = std::fs::remove_file(&path);
        let (start, len) = reader.metadata().row_group(0).column(0).byte_range();
        (bytes, start, start + len)
    }

    #[test]
    fn the_pages_of_a_chunk_say_their_sizes_and_rows() {
        let big = "1. e4 e5 ".repeat(1000);
        let values = ["1. e4 *", &big, "1. d4 *", "1. c4 *"];
        let (bytes, start, end) = chunk_of(&values, 1, false);
        let pages = chunk_pages(Cursor::new(&bytes), start, end, false).unwrap();
        assert_eq!(pages.iter().map(|p| p.values).sum::<i64>(), 4, "{pages:?}");
        assert!(pages.iter().all(|p| !p.dictionary));
        // The page of the long value says it decompresses to at least that value.
        let largest = pages.iter().map(|p| p.uncompressed).max().unwrap();
        assert!(largest >= big.len() as i64, "{pages:?}");
        assert!(pages.iter().any(|p| p.compressed < p.uncompressed / 10));

        let (bytes, start, end) = chunk_of(&values, 2, true);
        let pages = chunk_pages(Cursor::new(&bytes), start, end, false).unwrap();
        assert!(pages[0].dictionary, "{pages:?}");
        assert!(pages[0].uncompressed >= big.len() as i64);
        assert_eq!(pages[1..].iter().map(|p| p.values).sum::<i64>(), 4);
    }

    #[test]
    fn damaged_headers_are_errors_not_panics() {
        let (bytes, start, end) = chunk_of(&["1. e4 *", "1. d4 *"], 1, false);
        for cut in 0..(end - start) as usize {
            let mut damaged = bytes.clone();
            damaged[start as usize + cut] ^= 0xff;
            // Any answer but a panic: most are errors.
            let _ = chunk_pages(Cursor::new(&damaged), start, end, true);
        }
        // Nested too deep: a struct field in a struct field, 100 deep.
        let mut deep = vec![0x1c; 100];
        deep.extend([0; 100]);
        let len = deep.len() as u64;
        assert!(chunk_pages(Cursor::new(deep), 0, len, false).is_err());
    }
}
