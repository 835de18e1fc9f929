//! What a conversion is asked to do, as typed ([`ConvertOptions`]): the notation and the
//! format, what of the movetext is kept, where the output and the rejected games go. The
//! command line, the Python package and `pgnkit select` each build one.

use std::path::PathBuf;
use std::str::FromStr;

use super::arrow::PlyColumns;
use super::columns::{GameColumns, MoveColumn, MoveColumns};
use super::encode::OutputEncoding;
use super::rewrite::Rewrite;
use super::{Collector, Keep};
use crate::notation::write::{CaptureSign, MateSign, Notation, ZhStyle};
use crate::notation::Lang;
use crate::rules::game::{CheckOptions, Checks};

/// The move notation a conversion writes (`--to`); [`ToNotation::help`] shows each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToNotation {
    #[default]
    San,
    Lan,
    Uci,
    Fan,
    Zh,
    ZhLong,
}

impl ToNotation {
    /// Every notation, in the order the command line lists them.
    pub const ALL: [ToNotation; 6] = [
        ToNotation::San,
        ToNotation::Lan,
        ToNotation::Uci,
        ToNotation::Fan,
        ToNotation::Zh,
        ToNotation::ZhLong,
    ];

    /// The name `--to` takes: `san`, `lan`, `uci`, `fan`, `zh`, `zh-long`.
    pub fn name(self) -> &'static str {
        match self {
            ToNotation::San => "san",
            ToNotation::Lan => "lan",
            ToNotation::Uci => "uci",
            ToNotation::Fan => "fan",
            ToNotation::Zh => "zh",
            ToNotation::ZhLong => "zh-long",
        }
    }

    /// What the notation is, with examples (the help of `--to`'s values).
    pub fn help(self) -> &'static str {
        match self {
            ToNotation::San => "Standard algebraic notation: Nf3 exd5 O-O e8=Q.",
            ToNotation::Lan => "Long algebraic, as python-chess's lan(): Ng1-f3 e4xd5 O-O e7-e8=Q.",
            ToNotation::Uci => "UCI: g1f3 e7e8q (e1h1 castling in Chess960).",
            ToNotation::Fan => "Figurines: ♘f3 ♗xf7+.",
            ToNotation::Zh => "Chinese short record: 马f3 马×e5 e8=后.",
            ToNotation::ZhLong => "Chinese full record: 马g1-f3 马f3×e5 e7-e8=后.",
        }
    }
}

impl FromStr for ToNotation {
    type Err = String;

    /// # Errors
    ///
    /// A name that is none of [`ToNotation::name`]'s, with the names there are.
    fn from_str(s: &str) -> Result<ToNotation, String> {
        ToNotation::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = ToNotation::ALL.iter().map(|t| t.name()).collect();
                format!("the notations are {}", names.join(", "))
            })
    }
}

/// The format a conversion writes (`--format`); [`Format::help`] describes each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Pgn,
    Book,
    Jsonl,
    Csv,
    Epd,
    Parquet,
}

impl Format {
    /// Every format, in the order the command line lists them.
    pub const ALL: [Format; 6] = [
        Format::Pgn,
        Format::Book,
        Format::Jsonl,
        Format::Csv,
        Format::Epd,
        Format::Parquet,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pgn => "pgn",
            Format::Book => "book",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Epd => "epd",
            Format::Parquet => "parquet",
        }
    }

    /// What the format is (the help of `--format`'s values).
    pub fn help(self) -> &'static str {
        match self {
            Format::Pgn => "PGN export layout.",
            Format::Book => "Chinese book layout: a header line and numbered moves.",
            Format::Jsonl => "One JSON object a game, every move in every notation.",
            Format::Csv => "One row a main-line ply.",
            Format::Epd => "One position a line.",
            Format::Parquet => {
                "Two Parquet files in the output folder: games.parquet and moves.parquet."
            }
        }
    }
}

/// What a conversion does: the options of `pgnkit convert` as typed, each named after its
/// flag. [`Default`] is the command's defaults: SAN in PGN to standard output, everything kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Move notation to write.
    pub to: ToNotation,
    /// Output format.
    pub format: Format,
    /// Chinese moves in traditional characters (馬 車) instead of simplified (马 车).
    pub traditional: bool,
    /// Capture sign of Chinese moves (default `×`); given with another notation, refused.
    pub capture_sign: Option<CaptureSign>,
    /// Mate sign of Chinese moves (default `≠`); given with another notation, refused.
    pub mate_sign: Option<MateSign>,
    /// Piece letters of this language, for reading the input and for writing SAN or LAN.
    pub lang: Option<Lang>,
    /// Piece letters for reading the input only, instead of `lang`'s.
    pub input_lang: Option<Lang>,
    /// Piece letters for writing SAN or LAN only, instead of `lang`'s.
    pub output_lang: Option<Lang>,
    pub no_comments: bool,
    pub no_nags: bool,
    pub no_variations: bool,
    /// Replace an illegal move by the one legal move the writer most likely meant.
    pub repair: bool,
    /// Which rules the replay follows beyond legality ([`Checks::Legal`]: no repetition,
    /// move counters or dead positions; the outcome columns then know only checkmate and
    /// stalemate).
    pub checks: Checks,
    /// Rewrite the result where the rules decide it.
    pub fix_results: bool,
    /// The output file (`None` or `-`: standard output); with [`Format::Parquet`], the folder.
    pub output: Option<PathBuf>,
    /// With [`Format::Parquet`]: the position after each move in moves.parquet.
    pub fen: bool,
    /// `--no-fen`, what [`Format::Parquet`] does without `fen` (refused with another format).
    pub no_fen: bool,
    /// With [`Format::Parquet`]: each move as numbers in moves.parquet (squares, pieces,
    /// flags) and each game's outcome as numbers in games.parquet (`--numbers`).
    pub numbers: bool,
    /// With [`Format::Parquet`]: the position after each move as numbers in moves.parquet
    /// (board, turn, castling rights, en passant square, half-move clock) and the start
    /// position in games.parquet (`--boards`).
    pub boards: bool,
    /// With [`Format::Parquet`]: no `movetext` column in games.parquet, so no move is written
    /// again (`--no-movetext`).
    pub no_movetext: bool,
    /// With [`Format::Parquet`]: how the pages are compressed; zstd at level 1 when not given.
    pub parquet_compression: Option<super::parquet::PageCompression>,
    /// With [`Format::Parquet`]: the optional columns of moves.parquet, instead of the
    /// default ones (`--moves-columns`); `fen`, `numbers` and `boards` add theirs.
    pub moves_columns: Option<MoveColumns>,
    /// With [`Format::Csv`]: a UTF-8 byte order mark first.
    pub excel: bool,
    /// With [`Format::Csv`]: cells a spreadsheet would run as formulas kept as they are.
    pub raw_csv: bool,
    /// Where the games that are not converted go, byte for byte (`-`: standard output).
    pub rejects: Option<PathBuf>,
    /// Name each game's opening in ECO and Opening tags where it has none.
    pub add_eco: bool,
    /// With `add_eco`: replace the ECO and Opening tags a game has.
    pub eco_overwrite: bool,
    /// With `add_eco`: this opening table instead of the built-in one.
    pub eco_table: Option<PathBuf>,
    /// The largest game read, in MiB (`--max-game-size`): a game's moves and elements may take
    /// 8 times as much while it is converted.
    pub max_game_size: usize,
    /// No closing summary on standard error.
    pub quiet: bool,
    /// With [`Format::Parquet`]: a rejected game gets its row too, with its movetext as read
    /// and the plies replayed before its first error, and every row its errors and warnings
    /// ([`GameRecord::findings`](super::record::GameRecord::findings)) instead of their text on
    /// standard error (the Python package's tables).
    pub every_row: bool,
    /// With [`Format::Parquet`]: the rows feed the games table only, so no ply's SAN, UCI,
    /// clock or comment is kept for a moves table.
    pub games_only: bool,
    /// With [`Format::Parquet`]: the rows feed the moves table only, so a game's tags and
    /// final position, which only the games table shows, are not made.
    pub moves_only: bool,
    /// With [`Format::Pgn`]: a game that does not replay is written as far as it does, its
    /// error and the rest of its movetext in comments, instead of being rejected.
    pub keep_broken: bool,
    /// With [`Format::Pgn`] or [`Format::Book`]: the encoding written (a game with a
    /// character it cannot hold is rejected, an error for each).
    pub output_encoding: OutputEncoding,
    /// With [`Format::Pgn`]: the keeper's rewrites (plies cut, tags added or left out, FEN
    /// comments, the layout).
    pub rewrite: Rewrite,
    /// Only the games this `select` expression matches (`--where`): the others are neither
    /// written nor counted as rejected.
    pub where_expr: Option<String>,
}

impl Default for ConvertOptions {
    fn default() -> ConvertOptions {
        ConvertOptions {
            to: ToNotation::San,
            format: Format::Pgn,
            traditional: false,
            capture_sign: None,
            mate_sign: None,
            lang: None,
            input_lang: None,
            output_lang: None,
            no_comments: false,
            no_nags: false,
            no_variations: false,
            repair: false,
            checks: Checks::All,
            fix_results: false,
            output: None,
            fen: false,
            no_fen: false,
            numbers: false,
            boards: false,
            moves_columns: None,
            no_movetext: false,
            parquet_compression: None,
            excel: false,
            raw_csv: false,
            rejects: None,
            add_eco: false,
            eco_overwrite: false,
            eco_table: None,
            max_game_size: crate::input::DEFAULT_MAX_GAME_MIB,
            quiet: false,
            every_row: false,
            games_only: false,
            moves_only: false,
            keep_broken: false,
            output_encoding: OutputEncoding::Utf8,
            rewrite: Rewrite::default(),
            where_expr: None,
        }
    }
}

/// Plies reserved for a game's moves before its replay.
pub(super) const PLIES_RESERVED: usize = 256;

/// Bytes of a game's moves and elements allowed for each MiB of `max_game_size` (see
/// [`ConvertOptions::game_budget`]): 8 times the limit.
const BUDGET_PER_MIB: usize = 8 << 20;

impl ConvertOptions {
    /// The letters the input is read in: `input_lang`, else `lang`.
    pub(super) fn input_lang(&self) -> Option<Lang> {
        self.input_lang.or(self.lang)
    }

    pub(super) fn notation(&self) -> Notation {
        let style = ZhStyle {
            traditional: self.traditional,
            capture: self.capture_sign.unwrap_or_default(),
            mate: self.mate_sign.unwrap_or_default(),
        };
        let lang = self.output_lang.or(self.lang).filter(|l| *l != Lang::En);
        match (self.to, lang) {
            (ToNotation::San, Some(lang)) => Notation::Letters { lang, long: false },
            (ToNotation::Lan, Some(lang)) => Notation::Letters { lang, long: true },
            (ToNotation::San, None) => Notation::San,
            (ToNotation::Lan, None) => Notation::Lan,
            (ToNotation::Uci, _) => Notation::Uci(shakmaty::CastlingMode::Standard),
            (ToNotation::Fan, _) => Notation::Fan,
            (ToNotation::Zh, _) => Notation::Zh(style),
            (ToNotation::ZhLong, _) => Notation::ZhLong(style),
        }
    }

    /// How the games are replayed.
    pub(super) fn check_options(&self) -> CheckOptions {
        CheckOptions {
            lang: self.input_lang(),
            repair: self.repair,
            checks: self.checks,
            ..CheckOptions::default()
        }
    }

    /// What of the movetext is written.
    pub(super) fn keep(&self) -> Keep {
        Keep {
            no_comments: self.no_comments,
            no_nags: self.no_nags,
            no_variations: self.no_variations,
        }
    }

    /// What of each ply the Arrow rows keep: a count alone for the games table only.
    pub(super) fn ply_columns(&self) -> PlyColumns {
        if self.games_only {
            PlyColumns::count_only(self.game_columns())
        } else {
            PlyColumns::with_columns(self.table_moves_columns(), self.game_columns())
        }
    }

    /// Whether the Arrow rows need nothing of the moves but their count: a games table alone
    /// without its movetext (nor repairs to count, which the moves tell).
    pub(super) fn rows_need_no_moves(&self) -> bool {
        self.games_only && self.no_movetext && !self.repair
    }

    /// Whether the Arrow rows need of the moves only what the main line's moves give (see
    /// [`Collector::main_line_only`]), with the notes that come with them and the tokens
    /// written as canonical SAN, and no repairs to count: no FEN a ply in a moves table, and
    /// the movetext, if any, in SAN (written from the main line and its notes, or from every
    /// move told when the game has more).
    pub(super) fn rows_need_main_line_only(&self) -> bool {
        let fen = !self.games_only && self.table_moves_columns().has(MoveColumn::Fen);
        !self.rows_need_no_moves() && !fen && self.movetext_at_once()
    }

    /// Whether the movetext, if written, can be written from the main line told at once: in
    /// SAN, with no repairs to tell of.
    fn movetext_at_once(&self) -> bool {
        !self.repair && (self.no_movetext || self.notation() == Notation::San)
    }

    /// The optional columns of the moves table: `moves_columns` (or the default ones), with
    /// those `fen`, `numbers` and `boards` add.
    pub fn table_moves_columns(&self) -> MoveColumns {
        let mut columns = self.moves_columns.unwrap_or(MoveColumns::DEFAULT);
        if self.fen {
            columns = columns.with(MoveColumn::Fen);
        }
        if self.numbers {
            columns = columns.union(MoveColumns::NUMBERS);
        }
        if self.boards {
            columns = columns.union(MoveColumns::POSITION);
        }
        columns
    }

    /// The optional columns of the games table: the outcome as numbers with `numbers`, the
    /// start position with `boards`.
    pub fn game_columns(&self) -> GameColumns {
        GameColumns {
            movetext: !self.no_movetext,
            numbers: self.numbers,
            boards: self.boards,
        }
    }

    /// A collector for a game of these options, with room for its moves: every notation and
    /// position a move for the JSON and CSV records and EPD; the Parquet tables take what
    /// their columns show.
    pub(super) fn collector(&self) -> Collector {
        let records = matches!(self.format, Format::Jsonl | Format::Csv | Format::Epd);
        let positions = records || self.rewrite.needs_positions();
        let mut collector = Collector::new(self.notation(), positions);
        if self.format == Format::Parquet {
            self.set_up_for_rows(&mut collector);
        }
        // PGN and the book layout are their tags and their movetext.
        let text = matches!(self.format, Format::Pgn | Format::Book);
        collector.main_line_only |= text && !self.rewrite.is_active() && self.movetext_at_once();
        // Room for a game's moves at once: growing a ply at a time costs more.
        collector.reserve(PLIES_RESERVED);
        collector.set_budget(self.game_budget());
        collector
    }

    /// Sets `collector` up for the tables' rows: the columns a ply keeps, and how much of the
    /// moves the rows need told ([`Collector::needs_nothing`], [`Collector::main_line_only`]).
    pub(super) fn set_up_for_rows(&self, collector: &mut Collector) {
        collector.columns = Some(Box::new(self.ply_columns()));
        collector.write_moves = !self.no_movetext;
        collector.needs_nothing = self.rows_need_no_moves();
        collector.main_line_only = self.rows_need_main_line_only();
    }

    /// Bytes a game's moves and elements may take while it is converted: a few times
    /// `max_game_size`, so that the memory a game takes is bounded by the limit on its size
    /// in every output format.
    pub(super) fn game_budget(&self) -> usize {
        self.max_game_size.saturating_mul(BUDGET_PER_MIB)
    }

    /// Refuses an option that would change nothing with the others given: ignored, it would
    /// let the user believe it did something.
    ///
    /// # Errors
    ///
    /// The first such option, with why it does not apply and what to do.
    pub(super) fn refuse_options_that_do_not_apply(&self) -> anyhow::Result<()> {
        let chinese = matches!(self.to, ToNotation::Zh | ToNotation::ZhLong);
        let zh_options = [
            ("--traditional", self.traditional),
            ("--capture-sign", self.capture_sign.is_some()),
            ("--mate-sign", self.mate_sign.is_some()),
        ];
        for (option, given) in zh_options {
            if given && !chinese {
                anyhow::bail!(
                    "{option} applies to Chinese moves only, and --to {} writes none; add --to \
                     zh or --to zh-long (JSON lines and CSV always give zh and zh_long in the \
                     default style)",
                    self.to.name()
                );
            }
        }
        if self.eco_overwrite && !self.add_eco {
            anyhow::bail!(
                "--eco-overwrite applies with --add-eco only (it replaces the tags --add-eco \
                 writes); add --add-eco"
            );
        }
        if self.eco_table.is_some() && !self.add_eco {
            anyhow::bail!("--eco-table applies with --add-eco only; add --add-eco");
        }
        if self.add_eco && matches!(self.format, Format::Epd | Format::Book) {
            anyhow::bail!(
                "--add-eco writes tags, and --format {} has none; use --format pgn, jsonl, csv \
                 or parquet",
                self.format.name()
            );
        }
        self.refuse_rewrites_that_do_not_apply()?;
        let columns = "it chooses the columns of its tables";
        let table_options = [
            ("--numbers", self.numbers, columns),
            ("--boards", self.boards, columns),
            ("--moves-columns", self.moves_columns.is_some(), columns),
            ("--no-movetext", self.no_movetext, columns),
            (
                "--parquet-compression",
                self.parquet_compression.is_some(),
                "it compresses the Parquet pages; the other formats are written as plain text",
            ),
        ];
        for (option, given, why) in table_options {
            if given && self.format != Format::Parquet {
                anyhow::bail!(
                    "{option} applies to --format parquet only ({why}); drop it, or add \
                     --format parquet"
                );
            }
        }
        if (self.fen || self.no_fen) && self.format != Format::Parquet {
            anyhow::bail!(
                "{} applies to --format parquet only (--fen adds the fen column to \
                 moves.parquet; the other formats give each move's position already); drop it, \
                 or add --format parquet",
                if self.fen { "--fen" } else { "--no-fen" }
            );
        }
        let (format, rows) = match self.format {
            Format::Csv => ("csv", "one row a main-line ply"),
            Format::Epd => ("epd", "one line a main-line position"),
            Format::Pgn | Format::Book | Format::Jsonl | Format::Parquet => return Ok(()),
        };
        let dropped = [
            ("--no-variations", self.no_variations, "variations"),
            (
                "--no-comments",
                self.no_comments && self.format == Format::Epd,
                "comments",
            ),
            (
                "--no-nags",
                self.no_nags && self.format == Format::Epd,
                "annotation glyphs",
            ),
            ("--fix-results", self.fix_results, "results"),
        ];
        for (option, given, what) in dropped {
            if given {
                anyhow::bail!(
                    "{option} changes nothing with --format {format}: it writes no {what} \
                     ({rows}); drop {option}"
                );
            }
        }
        Ok(())
    }

    /// Refuses the keeper's rewrites ([`Rewrite`]) where they cannot apply: they rewrite PGN.
    fn refuse_rewrites_that_do_not_apply(&self) -> anyhow::Result<()> {
        let r = &self.rewrite;
        if r.start_ply.is_some() && r.drop_ply.is_some() {
            anyhow::bail!(
                "--start-ply and --drop-ply both say where the game starts; give one of them"
            );
        }
        if self.output_encoding != OutputEncoding::Utf8
            && !matches!(self.format, Format::Pgn | Format::Book)
        {
            anyhow::bail!(
                "--output-encoding writes PGN or the book layout for software that reads \
                 nothing else, and --format {} is written in UTF-8 only; drop it, or use \
                 --format pgn or book",
                self.format.name()
            );
        }
        if let (Some(start), Some(limit)) = (r.start_ply, r.ply_limit) {
            if start > limit {
                anyhow::bail!(
                    "--start-ply {start} is after --ply-limit {limit}: no move would be \
                     written; give a start at or before the limit"
                );
            }
        }
        if self.keep_broken && self.format != Format::Pgn {
            anyhow::bail!(
                "--keep-broken writes the moves it cannot replay in PGN comments, and --format \
                 {} is not PGN; drop it, or use --format pgn",
                self.format.name()
            );
        }
        if r.is_active() && self.format != Format::Pgn {
            anyhow::bail!(
                "the keeper's options (--start-ply, --drop-ply, --ply-limit, --add-tags, the FEN \
                 comments, the tags kept, --layout, --line-width, the move numbers, the players' \
                 tags) rewrite \
                 PGN, and --format {} is not PGN; drop them, or use --format pgn",
                self.format.name()
            );
        }
        Ok(())
    }
}
