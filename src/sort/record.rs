//! Records of a fixed number of bytes: how dedup's records are written to a run and read
//! back, field by field, little-endian. [`Fixed`] makes them a [`RunFormat`] of the sorter.

use std::io;
use std::marker::PhantomData;

use super::{RunBytes, RunFormat};

/// A record of a fixed number of bytes on disk, sorted by its `Ord` (which must tell any
/// two records apart, so that the order does not depend on how the runs fell).
pub trait Record: Ord + Copy {
    /// Its bytes on disk.
    const SIZE: usize;
    fn put(&self, out: &mut Put<'_>);
    fn get(bytes: &mut Get<'_>) -> Self;
}

/// Writes a record's fields, little-endian.
pub struct Put<'a>(&'a mut Vec<u8>);

impl Put<'_> {
    /// Writes after what `out` holds.
    pub fn new(out: &mut Vec<u8>) -> Put<'_> {
        Put(out)
    }
}

/// Reads a record's fields back.
pub struct Get<'a>(&'a [u8]);

impl Get<'_> {
    /// Reads from the start of `bytes`.
    pub fn new(bytes: &[u8]) -> Get<'_> {
        Get(bytes)
    }
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N.min(self.0.len()));
        self.0 = rest;
        let mut out = [0u8; N];
        out[..head.len()].copy_from_slice(head);
        out
    }
}

/// A value of a fixed number of bytes in a record: what [`Record`]s are made of, so that a
/// record's `put`, `get` and `SIZE` follow from its fields' (the `record!` macro of
/// `crate::dedup::finder` writes them).
pub trait Field: Sized {
    const SIZE: usize;
    fn put(&self, out: &mut Put<'_>);
    fn get(bytes: &mut Get<'_>) -> Self;
}

/// The integers, little-endian.
macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(&self, out: &mut Put<'_>) {
                out.0.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &mut Get<'_>) -> $t {
                <$t>::from_le_bytes(bytes.take())
            }
        }
    )*};
}
int_field!(u64, u32, u16, u8);

impl Field for bool {
    const SIZE: usize = 1;
    fn put(&self, out: &mut Put<'_>) {
        u8::from(*self).put(out);
    }
    fn get(bytes: &mut Get<'_>) -> bool {
        u8::get(bytes) != 0
    }
}

impl<T: Field + Copy + Default, const N: usize> Field for [T; N] {
    const SIZE: usize = T::SIZE * N;
    fn put(&self, out: &mut Put<'_>) {
        for v in self {
            v.put(out);
        }
    }
    fn get(bytes: &mut Get<'_>) -> [T; N] {
        let mut a = [T::default(); N];
        for v in &mut a {
            *v = T::get(bytes);
        }
        a
    }
}

/// A flag, then the value (or its default): a fixed size either way.
impl<T: Field + Copy + Default> Field for Option<T> {
    const SIZE: usize = 1 + T::SIZE;
    fn put(&self, out: &mut Put<'_>) {
        self.is_some().put(out);
        self.unwrap_or_default().put(out);
    }
    fn get(bytes: &mut Get<'_>) -> Option<T> {
        let has = bool::get(bytes);
        Some(T::get(bytes)).filter(|_| has)
    }
}

/// The [`RunFormat`] of a [`Record`]: its bytes as [`Record::put`] writes them, ordered by its
/// `Ord`.
pub(crate) struct Fixed<R>(PhantomData<R>);

impl<R> Default for Fixed<R> {
    fn default() -> Fixed<R> {
        Fixed(PhantomData)
    }
}

impl<R: Record> RunFormat for Fixed<R> {
    type Item<'a>
        = R
    where
        R: 'a;
    type Pending = R;
    type Reader = Option<R>;
    type Writer = ();
    const KIND: &'static str = "sorted";

    fn pending(&self, record: &R) -> R {
        *record
    }

    fn cmp(&self, a: R, b: R) -> std::cmp::Ordering {
        a.cmp(&b)
    }

    fn encode(&self, _: &mut (), record: R, out: &mut Vec<u8>) -> io::Result<()> {
        record.put(&mut Put(out));
        Ok(())
    }

    fn decode(&self, head: &mut Option<R>, bytes: &mut RunBytes<'_>) -> io::Result<()> {
        *head = Some(R::get(&mut Get(bytes.take(R::SIZE)?)));
        Ok(())
    }

    fn head(&self, head: &Option<R>) -> Option<R> {
        *head
    }
}
