//! A tree as Parquet: the columns of [`RowOut`] typed (counts `UInt64`, average ratings
//! `Float64`, texts `Utf8`, empty cells null), zstd-compressed, as convert writes its files;
//! and read back, for `tree --fen` and `tree merge`.

use std::fs::File;
use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{Float64Builder, StringBuilder, UInt16Builder, UInt64Builder};
use arrow_array::{
    Array, ArrayRef, Float64Array, RecordBatch, StringArray, UInt16Array, UInt64Array,
};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::errors::ParquetError;

use super::rows::{RowOut, COLUMNS};
use crate::convert::parquet::{properties, PageCompression};

/// Rows built before they are handed to the writer as one batch.
const BATCH_ROWS: usize = 8_192;
/// Rows a row group holds at most.
const GROUP_ROWS: usize = 131_072;

/// The type of each of [`COLUMNS`].
fn data_type(column: &str) -> DataType {
    match column {
        "mover_elo" | "opponent_elo" => DataType::Float64,
        "key" | "epd" | "uci" | "san" | "first_date" | "last_date" | "example_file" | "speed" => {
            DataType::Utf8
        }
        "rating_band" => DataType::UInt16,
        _ => DataType::UInt64,
    }
}

/// The schema of a tree file.
pub fn schema() -> SchemaRef {
    let nullable = |c: &str| {
        matches!(
            c,
            "mover_elo" | "opponent_elo" | "first_date" | "last_date" | "speed" | "rating_band"
        )
    };
    Arc::new(Schema::new(
        COLUMNS
            .iter()
            .map(|c| Field::new(*c, data_type(c), nullable(c)))
            .collect::<Vec<_>>(),
    ))
}

/// The columns being built.
#[derive(Default)]
struct Columns {
    key: StringBuilder,
    epd: StringBuilder,
    uci: StringBuilder,
    san: StringBuilder,
    games: UInt64Builder,
    white_wins: UInt64Builder,
    draws: UInt64Builder,
    black_wins: UInt64Builder,
    mover_elo: Float64Builder,
    mover_rated: UInt64Builder,
    opponent_elo: Float64Builder,
    opponent_rated: UInt64Builder,
    first_date: StringBuilder,
    last_date: StringBuilder,
    example_file: StringBuilder,
    example_game: UInt64Builder,
    speed: StringBuilder,
    rating_band: UInt16Builder,
    len: usize,
}

impl Columns {
    fn append(&mut self, r: &RowOut) {
        self.key.append_value(&r.key);
        self.epd.append_value(&r.epd);
        self.uci.append_value(&r.uci);
        self.san.append_value(&r.san);
        self.games.append_value(r.games);
        self.white_wins.append_value(r.white_wins);
        self.draws.append_value(r.draws);
        self.black_wins.append_value(r.black_wins);
        self.mover_elo.append_option(r.mover_elo);
        self.mover_rated.append_value(r.mover_rated);
        self.opponent_elo.append_option(r.opponent_elo);
        self.opponent_rated.append_value(r.opponent_rated);
        self.first_date.append_option(r.first_date.as_deref());
        self.last_date.append_option(r.last_date.as_deref());
        self.example_file.append_value(&r.example_file);
        self.example_game.append_value(r.example_game);
        self.speed.append_option(r.speed.as_deref());
        self.rating_band.append_option(r.rating_band);
        self.len += 1;
    }

    fn finish(&mut self, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
        self.len = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.key.finish()),
            Arc::new(self.epd.finish()),
            Arc::new(self.uci.finish()),
            Arc::new(self.san.finish()),
            Arc::new(self.games.finish()),
            Arc::new(self.white_wins.finish()),
            Arc::new(self.draws.finish()),
            Arc::new(self.black_wins.finish()),
            Arc::new(self.mover_elo.finish()),
            Arc::new(self.mover_rated.finish()),
            Arc::new(self.opponent_elo.finish()),
            Arc::new(self.opponent_rated.finish()),
            Arc::new(self.first_date.finish()),
            Arc::new(self.last_date.finish()),
            Arc::new(self.example_file.finish()),
            Arc::new(self.example_game.finish()),
            Arc::new(self.speed.finish()),
            Arc::new(self.rating_band.finish()),
        ];
        RecordBatch::try_new(Arc::clone(schema), columns)
    }
}

/// Writes a tree as Parquet, a batch of rows at a time.
pub struct TreeParquet<W: Write + Send> {
    writer: ArrowWriter<W>,
    schema: SchemaRef,
    columns: Columns,
}

fn arrow_error(e: ArrowError) -> ParquetError {
    ParquetError::External(Box::new(e))
}

impl<W: Write + Send> TreeParquet<W> {
    /// # Errors
    ///
    /// Errors of the writer.
    pub fn new(out: W) -> Result<TreeParquet<W>, ParquetError> {
        // Nearly every position is another.
        let props = properties(PageCompression::default(), GROUP_ROWS, &["epd"]);
        let schema = schema();
        Ok(TreeParquet {
            writer: ArrowWriter::try_new(out, Arc::clone(&schema), Some(props))?,
            schema,
            columns: Columns::default(),
        })
    }

    /// # Errors
    ///
    /// Errors of the writer.
    pub fn push(&mut self, row: &RowOut) -> Result<(), ParquetError> {
        self.columns.append(row);
        if self.columns.len >= BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<(), ParquetError> {
        if self.columns.len == 0 {
            return Ok(());
        }
        let batch = self.columns.finish(&self.schema).map_err(arrow_error)?;
        self.writer.write(&batch)
    }

    /// Writes what is buffered and the footer, and gives the output back.
    ///
    /// # Errors
    ///
    /// Errors of the writer.
    pub fn finish(mut self) -> Result<W, ParquetError> {
        self.flush_batch()?;
        self.writer.into_inner()
    }
}

/// The rows of a tree's Parquet file, in order, a batch at a time.
pub struct ParquetRows {
    reader: parquet::arrow::arrow_reader::ParquetRecordBatchReader,
    batch: std::vec::IntoIter<RowOut>,
}

impl ParquetRows {
    /// # Errors
    ///
    /// A file that is not Parquet.
    pub fn new(file: File) -> anyhow::Result<ParquetRows> {
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)?
            .with_batch_size(BATCH_ROWS)
            .build()?;
        Ok(ParquetRows {
            reader,
            batch: Vec::new().into_iter(),
        })
    }

    /// The next row; `None` at the end.
    ///
    /// # Errors
    ///
    /// A file that cannot be read, lacks a column of a tree or holds one of another type.
    pub fn next_row(&mut self) -> anyhow::Result<Option<RowOut>> {
        loop {
            if let Some(row) = self.batch.next() {
                return Ok(Some(row));
            }
            match self.reader.next() {
                None => return Ok(None),
                Some(batch) => self.batch = rows_of(&batch?)?.into_iter(),
            }
        }
    }
}

/// The rows of one batch.
fn rows_of(batch: &RecordBatch) -> anyhow::Result<Vec<RowOut>> {
    let text = |name: &str| column::<StringArray>(batch, name);
    let count = |name: &str| column::<UInt64Array>(batch, name);
    let average = |name: &str| column::<Float64Array>(batch, name);
    let (key, epd, uci, san) = (text("key")?, text("epd")?, text("uci")?, text("san")?);
    let (games, white_wins, draws, black_wins) = (
        count("games")?,
        count("white_wins")?,
        count("draws")?,
        count("black_wins")?,
    );
    let (mover_elo, mover_rated) = (average("mover_elo")?, count("mover_rated")?);
    let (opponent_elo, opponent_rated) = (average("opponent_elo")?, count("opponent_rated")?);
    let (first_date, last_date) = (text("first_date")?, text("last_date")?);
    let (example_file, example_game) = (text("example_file")?, count("example_game")?);
    let (speed, rating_band) = (text("speed")?, column::<UInt16Array>(batch, "rating_band")?);
    let opt_text = |a: &StringArray, i: usize| a.is_valid(i).then(|| a.value(i).to_owned());
    let opt_f64 = |a: &Float64Array, i: usize| a.is_valid(i).then(|| a.value(i));
    Ok((0..batch.num_rows())
        .map(|i| RowOut {
            key: key.value(i).to_owned(),
            epd: epd.value(i).to_owned(),
            uci: uci.value(i).to_owned(),
            san: san.value(i).to_owned(),
            games: games.value(i),
            white_wins: white_wins.value(i),
            draws: draws.value(i),
            black_wins: black_wins.value(i),
            mover_elo: opt_f64(mover_elo, i),
            mover_rated: mover_rated.value(i),
            opponent_elo: opt_f64(opponent_elo, i),
            opponent_rated: opponent_rated.value(i),
            first_date: opt_text(first_date, i),
            last_date: opt_text(last_date, i),
            example_file: example_file.value(i).to_owned(),
            example_game: example_game.value(i),
            speed: opt_text(speed, i),
            rating_band: rating_band.is_valid(i).then(|| rating_band.value(i)),
        })
        .collect())
}

/// The column `name` of `batch`, of type `A`.
fn column<'b, A: Array + 'static>(batch: &'b RecordBatch, name: &str) -> anyhow::Result<&'b A> {
    batch
        .column_by_name(name)
        .ok_or_else(|| anyhow::anyhow!("no column `{name}`: not a tree written by pgnkit tree"))?
        .as_any()
        .downcast_ref::<A>()
        .ok_or_else(|| anyhow::anyhow!("the column `{name}` is not of a tree's type"))
}
