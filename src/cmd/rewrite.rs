//! `pgnkit convert`'s rewrites of PGN for database keepers, with pgn-extract's spellings as
//! aliases: a group of `convert`'s arguments, kept apart so that `convert.rs` stays short.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::convert::players::PlayerSource;
use crate::convert::{AddTag, FenAt, MoveNumbers, PgnLayout, Rewrite};

/// The keeper's rewrites of PGN (docs/convert.md, "Rewriting games"): the options spelled as
/// pgn-extract's are aliases.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Rewriting PGN")]
pub struct RewriteArgs {
    /// Start each game at its main-line ply N (1 is its first move): the plies before are
    /// dropped, and the position N is played from is written as a FEN tag with SetUp "1".
    #[arg(long, value_name = "N", conflicts_with = "drop_ply")]
    pub start_ply: Option<u32>,

    /// pgn-extract's --startply starts matching positions at ply N, which select's
    /// --start-ply does: refused here with the commands to use (docs/pgn-extract.md).
    #[arg(long, hide = true, value_name = "N")]
    pub startply: Option<u32>,

    /// Drop the first N plies of each game (as --start-ply N+1); with a negative N, all but
    /// the last -N (pgn-extract's --dropply).
    #[arg(
        long,
        alias = "dropply",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub drop_ply: Option<i64>,

    /// Write each game up to its main-line ply N at most (counted from its first move); a game
    /// cut there ends with `*` and keeps its Result tag (pgn-extract's --plylimit).
    #[arg(long, alias = "plylimit", value_name = "N")]
    pub ply_limit: Option<u32>,

    /// Add these tags to each game, in this order after its own: PlyCount (main-line plies
    /// written), TotalPlyCount (variations' too), Hash (the Polyglot key of the last position
    /// written), Termination (by rule from the result; a game's own is kept).
    #[arg(long, value_name = "TAG,...", value_delimiter = ',')]
    pub add_tags: Vec<AddTag>,

    /// A comment with the FEN of the position after every move (pgn-extract's --fencomments).
    #[arg(long, alias = "fencomments")]
    pub fen_comments: bool,

    /// A comment with the FEN of the position after main-line ply N (counted from the game's
    /// first move), or after the last move written (`last`: pgn-extract's -F).
    #[arg(long, value_name = "N|last")]
    pub fen_comment_at: Option<FenAt>,

    /// Keep only these tags beyond the Seven Tag Roster (and SetUp and FEN, without which a
    /// game from a set-up position does not replay, and the tags --add-tags adds).
    #[arg(long, value_name = "TAG,...", value_delimiter = ',')]
    pub keep_tags: Option<Vec<String>>,

    /// Keep only the Seven Tag Roster (and SetUp and FEN): pgn-extract's -7.
    #[arg(long, alias = "seven", conflicts_with = "keep_tags")]
    pub seven_tag_roster: bool,

    /// Write no tags (pgn-extract's --notags): a game from a set-up position loses its start.
    #[arg(long, alias = "notags", conflicts_with_all = ["keep_tags", "seven_tag_roster"])]
    pub no_tags: bool,

    /// Movetext layout: pgnkit's (1.e4, {comment}, 80 columns) or PGN's export format as
    /// pgn-extract writes it (1. e4, { comment }, 75 columns).
    #[arg(long, value_enum, default_value_t = LayoutArg::Pgnkit)]
    pub layout: LayoutArg,

    /// Longest movetext line, in columns (default: the layout's); pgn-extract's -w.
    #[arg(long, alias = "linelength", value_name = "N")]
    pub line_width: Option<usize>,

    /// Write no move numbers (pgn-extract's --nomovenumbers).
    #[arg(long, alias = "nomovenumbers")]
    pub no_move_numbers: bool,

    /// Write no `+` or `#` after the moves (pgn-extract's --nochecks).
    #[arg(long, alias = "nochecks")]
    pub no_checks: bool,

    /// Write no result after the moves; the Result tag stays (pgn-extract's --noresults).
    #[arg(long, alias = "noresults")]
    pub no_results: bool,

    /// Write the tags named in this file first, in its order (the first word of each line;
    /// `%` starts a comment), then the rest of the Seven Tag Roster, then the others as read:
    /// pgn-extract's -R.
    #[arg(long, short = 'R', value_name = "FILE")]
    pub tag_order: Option<PathBuf>,

    /// Write the number of every move, Black's as 1... too.
    #[arg(long, conflicts_with = "no_move_numbers")]
    pub every_move_number: bool,

    /// Add players' tags from a CSV or TSV table whose header names the key column first,
    /// `name` (matched with White and Black) or `fide_id` (with WhiteFideId and BlackFideId),
    /// then tags: a column Elo sets WhiteElo or BlackElo. Repeatable; a later table wins.
    #[arg(long, value_name = "FILE")]
    pub player_tags: Vec<PathBuf>,

    /// pgn-extract's --addelotags: a TSV of name and Elo, no header; sets WhiteElo, BlackElo.
    #[arg(long, value_name = "FILE")]
    pub addelotags: Option<PathBuf>,

    /// pgn-extract's --addfideidtags: a TSV of name and FIDE id, no header; sets WhiteFideId,
    /// BlackFideId.
    #[arg(long, value_name = "FILE")]
    pub addfideidtags: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// pgnkit's: 1.e4 {comment}, lines of at most 80 columns.
    Pgnkit,
    /// PGN's export format as pgn-extract writes it: 1. e4 { comment }, 75 columns.
    Export,
}

impl RewriteArgs {
    /// The rewrites the flags ask for.
    ///
    /// # Errors
    ///
    /// A roster file that cannot be read, or pgn-extract's `--startply` (a selection there).
    pub(super) fn rewrite(&self) -> anyhow::Result<Rewrite> {
        if let Some(n) = self.startply {
            anyhow::bail!(
                "--startply is pgn-extract's: it starts matching positions at ply {n}, which \
                 `pgnkit select --startply {n}` does; to drop the plies before ply {n} from \
                 each game, use convert --start-ply {n}"
            );
        }
        let tag_order = match &self.tag_order {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    anyhow::anyhow!("cannot read the roster file {}: {e}", path.display())
                })?;
                Some(crate::convert::roster(&text))
            }
            None => None,
        };
        Ok(Rewrite {
            start_ply: self.start_ply,
            drop_ply: self.drop_ply,
            ply_limit: self.ply_limit,
            add_tags: self.add_tags.clone(),
            fen_comments: self.fen_comments,
            fen_comment_at: self.fen_comment_at,
            keep_tags: self.keep_tags.clone(),
            seven_tag_roster: self.seven_tag_roster,
            no_tags: self.no_tags,
            layout: match self.layout {
                LayoutArg::Pgnkit => PgnLayout::Pgnkit,
                LayoutArg::Export => PgnLayout::Export,
            },
            line_width: self.line_width,
            move_numbers: if self.no_move_numbers {
                MoveNumbers::None
            } else if self.every_move_number {
                MoveNumbers::Every
            } else {
                MoveNumbers::Usual
            },
            player_tags: self.player_sources(),
            tag_order,
            no_checks: self.no_checks,
            no_results: self.no_results,
        })
    }

    fn player_sources(&self) -> Vec<PlayerSource> {
        let fixed = [(&self.addelotags, "Elo"), (&self.addfideidtags, "FideId")];
        let fixed = fixed.into_iter().filter_map(|(path, tag)| {
            path.clone().map(|path| PlayerSource {
                path,
                tag: Some(tag.to_owned()),
            })
        });
        let tables = self.player_tags.iter().map(|path| PlayerSource {
            path: path.clone(),
            tag: None,
        });
        fixed.chain(tables).collect()
    }
}
