//! The `diagnostics` column of the games tables: each game's errors and warnings as a list of
//! structs, so that a bad game is a row that says what is wrong with it, where, and the fix.
//! The fields are those of `validate()` but the game's own (file, game, players).

use std::sync::Arc;

use arrow_array::builder::{StringBuilder, UInt32Builder};
use arrow_array::{ArrayRef, ListArray, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields};

use pgnkit::convert::record::RowFinding;

/// The struct's fields, in order.
fn fields() -> Fields {
    Fields::from(vec![
        Field::new("line", DataType::UInt32, true),
        Field::new("column", DataType::UInt32, true),
        Field::new("move", DataType::UInt32, true),
        Field::new("side", DataType::Utf8, true),
        Field::new("severity", DataType::Utf8, false),
        Field::new("code", DataType::Utf8, false),
        Field::new("token", DataType::Utf8, true),
        Field::new("message", DataType::Utf8, false),
        Field::new("help", DataType::Utf8, true),
        Field::new("fen", DataType::Utf8, true),
    ])
}

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Struct(fields()), false))
}

/// The column's field.
pub fn field() -> Field {
    Field::new("diagnostics", DataType::List(item()), false)
}

/// The column being built, a game at a time.
#[derive(Default)]
pub struct DiagnosticsBuilder {
    line: UInt32Builder,
    column: UInt32Builder,
    mv: UInt32Builder,
    side: StringBuilder,
    severity: StringBuilder,
    code: StringBuilder,
    token: StringBuilder,
    message: StringBuilder,
    help: StringBuilder,
    fen: StringBuilder,
    /// Where each game's list starts, and the end of the last.
    offsets: Vec<i32>,
    items: i32,
}

impl DiagnosticsBuilder {
    /// Appends one game's findings. `place` turns a finding's line and column into those the
    /// caller reports (`None`: the finding is about no place the caller's user wrote).
    pub fn append(
        &mut self,
        findings: &[RowFinding],
        place: impl Fn(u32, u32) -> Option<(u32, u32)>,
    ) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        for f in findings {
            let at = place(f.line, f.column);
            self.line.append_option(at.map(|a| a.0));
            self.column.append_option(at.map(|a| a.1));
            self.mv.append_option(f.ply.map(|p| p.number));
            self.side.append_option(f.ply.map(|p| p.side()));
            self.severity.append_value(f.severity);
            self.code.append_value(f.code);
            self.token.append_option(f.token.as_deref());
            self.message.append_value(&f.message);
            self.help.append_option(f.help.as_deref());
            self.fen.append_option(f.fen.as_deref());
            self.items = self.items.saturating_add(1);
        }
        self.offsets.push(self.items);
    }

    /// The column of the games appended so far; the builder starts again empty.
    pub fn finish(&mut self) -> ArrayRef {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.line.finish()),
            Arc::new(self.column.finish()),
            Arc::new(self.mv.finish()),
            Arc::new(self.side.finish()),
            Arc::new(self.severity.finish()),
            Arc::new(self.code.finish()),
            Arc::new(self.token.finish()),
            Arc::new(self.message.finish()),
            Arc::new(self.help.finish()),
            Arc::new(self.fen.finish()),
        ];
        let values = StructArray::new(fields(), columns, None);
        let mut offsets = std::mem::take(&mut self.offsets);
        if offsets.is_empty() {
            offsets.push(0);
        }
        self.items = 0;
        Arc::new(ListArray::new(
            item(),
            OffsetBuffer::new(offsets.into()),
            Arc::new(values),
            None,
        ))
    }
}
