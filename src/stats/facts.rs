//! What one game contributes to the statistics, worked out on a worker thread: its replay,
//! the tags `stats` reads, its opening and its row of games.csv.

use std::borrow::Cow;

use shakmaty::san::San;

use crate::convert::record::GameRecord;
use crate::input::pipeline::Game;
use crate::pgn::lexer::Lexed;
use crate::rules::game::CheckOptions;
use crate::rules::visit::{MoveAt, Needs, Ply, Positions, Visitor};
use crate::stats::tally::{result_text, TerminationKey};
use crate::stats::tiebreak::event::Play;
use crate::stats::{GameDate, Score};

/// Collects the SAN of the first main-line moves.
struct OpeningMoves {
    wanted: usize,
    moves: String,
    count: usize,
    stopped: bool,
}

impl Visitor for OpeningMoves {
    fn needs(&self) -> Needs {
        Needs {
            // Positions cost a copy per ply: ask for them only until the opening is complete.
            positions: Positions::First(u32::try_from(self.wanted).unwrap_or(u32::MAX)),
            movetext: false,
            tags: false,
            main_moves: false,
            notes: false,
            main_san: false,
        }
    }

    fn play(&mut self, ply: &Ply<'_>) {
        if ply.at.depth != 0 || self.stopped || self.count >= self.wanted {
            return;
        }
        if self.count > 0 {
            self.moves.push(' ');
        }
        San::from_move(ply.before, ply.mv).append_to_string(&mut self.moves);
        self.count += 1;
    }

    fn unplayed(&mut self, at: MoveAt) {
        if at.depth == 0 {
            self.stopped = true;
        }
    }
}

/// What one game contributes to the reports, worked out on a worker thread.
pub(crate) struct GameFacts {
    /// The game's record, with the tags `stats` reads (those only games.csv shows, the file
    /// name and the final FEN only when rows are written).
    pub record: GameRecord<'static>,
    pub opening: String,
    pub score: Option<Score>,
    pub date: Option<GameDate>,
    pub termination: TerminationKey,
    pub white_team: Option<String>,
    pub black_team: Option<String>,
    pub white_elo: Option<u32>,
    pub black_elo: Option<u32>,
    /// For tie-breaks: how the game was played (a forfeit?), and the FIDE ids.
    pub play: Play,
    pub white_fide_id: Option<String>,
    pub black_fide_id: Option<String>,
    /// The `Board` tag, if a number (team tie-breaks).
    pub board: Option<u32>,
}

impl crate::input::Found for GameFacts {
    fn errors(&self) -> u64 {
        u64::from(self.record.errors)
    }
}

/// The tags `stats` reads, found in one pass over a game's tags: the first of each name, as
/// [`Lexed::tag`] gives it (which looks for one name at a time).
#[derive(Default)]
struct StatsTags<'a> {
    event: Option<&'a str>,
    site: Option<&'a str>,
    date: Option<&'a str>,
    round: Option<&'a str>,
    white: Option<&'a str>,
    black: Option<&'a str>,
    result: Option<&'a str>,
    white_elo: Option<&'a str>,
    black_elo: Option<&'a str>,
    eco: Option<&'a str>,
    time_control: Option<&'a str>,
    termination: Option<&'a str>,
    white_team: Option<&'a str>,
    black_team: Option<&'a str>,
    white_fide_id: Option<&'a str>,
    black_fide_id: Option<&'a str>,
    board: Option<&'a str>,
}

impl<'a> StatsTags<'a> {
    fn of(lexed: &'a Lexed) -> Self {
        let mut tags = StatsTags::default();
        for tag in lexed.tags() {
            let slot = match tag.name {
                "Event" => &mut tags.event,
                "Site" => &mut tags.site,
                "Date" => &mut tags.date,
                "Round" => &mut tags.round,
                "White" => &mut tags.white,
                "Black" => &mut tags.black,
                "Result" => &mut tags.result,
                "WhiteElo" => &mut tags.white_elo,
                "BlackElo" => &mut tags.black_elo,
                "ECO" => &mut tags.eco,
                "TimeControl" => &mut tags.time_control,
                "Termination" => &mut tags.termination,
                "WhiteTeam" => &mut tags.white_team,
                "BlackTeam" => &mut tags.black_team,
                "WhiteFideId" => &mut tags.white_fide_id,
                "BlackFideId" => &mut tags.black_fide_id,
                "Board" => &mut tags.board,
                _ => continue,
            };
            slot.get_or_insert(tag.value);
        }
        tags
    }
}

/// Replays one game and collects its facts (runs on a worker thread): `plies` of opening
/// (0: by the ECO tag), the row's texts kept only when `rows` are written, untagged games
/// classified with `eco_table` when given (`--add-eco`).
pub(crate) fn game_facts(
    game: &mut Game<'_>,
    name: &str,
    opts: &CheckOptions,
    plies: usize,
    rows: bool,
    eco_table: Option<&'static crate::eco::Table>,
) -> GameFacts {
    let opening = OpeningMoves {
        wanted: plies,
        moves: String::new(),
        count: 0,
        stopped: false,
    };
    // `--add-eco` classifies only the games that openings.csv would group under `?`.
    let untagged = plies == 0 && crate::eco::known_tag(game.lexed.tag("ECO")).is_none();
    let eco = eco_table
        .filter(|_| untagged)
        .map(crate::eco::EcoObserver::new);
    // The opening's moves and its classification, in one replay.
    let mut visitor = (opening, eco);
    let report = game.check(opts, &mut visitor);
    let (opening, eco) = visitor;
    let tags = StatsTags::of(game.lexed);
    fn tag(t: Option<&str>) -> &str {
        t.unwrap_or("")
    }
    let elo = |t: Option<&str>| {
        t.and_then(|e| e.trim().parse::<u32>().ok())
            .filter(|&e| e > 0)
    };
    // What only games.csv and partial files show (the tallies and standings read the rest:
    // the event, the round and the players) is kept only when rows are written: a tag, or a
    // FEN, a game is a cost otherwise. In the order of `ROW_TAGS`.
    let t = &tags;
    let row = |value: Option<_>| value.filter(|_| rows);
    let values = [
        t.black,
        row(t.black_elo),
        row(t.date),
        row(t.eco),
        t.event,
        row(t.result),
        t.round,
        t.site,
        row(t.termination),
        row(t.time_control),
        t.white,
        row(t.white_elo),
    ];
    let file = if rows { name } else { "" };
    let record = GameRecord::counted(
        file,
        game.number,
        game.line,
        game.lexed,
        &report,
        rows,
        &crate::report::stats::ROW_TAGS,
        values,
    );
    let result = report.result_tag.as_deref().unwrap_or("");
    let date = GameDate::parse(tag(tags.date));
    let score = Score::from_pgn(result);
    let result_by_rule = report.result_by_rule.map(|r| r.as_str());
    let opening_key = if plies > 0 {
        opening.moves
    } else {
        crate::eco::known_tag(tags.eco)
            .or_else(|| Some(&eco.as_ref()?.result()?.eco))
            .unwrap_or("?")
            .to_owned()
    };
    GameFacts {
        opening: opening_key,
        score,
        date,
        termination: TerminationKey {
            termination: Cow::Borrowed(record.ending.as_str()),
            result_by_rule: result_by_rule.map(Cow::Borrowed),
            result: result_text(result),
            tag: tag(tags.termination).into(),
        },
        white_team: tags.white_team.map(str::to_owned),
        black_team: tags.black_team.map(str::to_owned),
        white_elo: elo(tags.white_elo),
        black_elo: elo(tags.black_elo),
        play: score.map_or(Play::Moves, |s| Play::of(tags.termination, report.plies, s)),
        white_fide_id: tags.white_fide_id.map(str::to_owned),
        black_fide_id: tags.black_fide_id.map(str::to_owned),
        board: tags.board.and_then(|b| b.trim().parse().ok()),
        record,
    }
}
