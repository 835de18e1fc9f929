//! Table-driven tests of the scoring core (`pgnkit::stats`) over the files in `testdata/stats/`.

use std::collections::HashMap;
use std::path::PathBuf;

use pgnkit::report::stats::{self as csvout, TableOptions};
use pgnkit::stats::club::{self, ClubConfig, Level};
use pgnkit::stats::elo::{self, EloConfig, EloRow};
use pgnkit::stats::standings::{EventKind, KindChoice, Standings, TeamRow};
use pgnkit::stats::tally::{GameSummary, Tally, TerminationKey};
use pgnkit::stats::{GameDate, PlayerKey, Score, ScoredGame, StatsAccumulator};

/// One data line: its place in the file and its fields by column name.
struct Record {
    at: String,
    fields: HashMap<String, String>,
}

impl Record {
    fn get(&self, column: &str) -> &str {
        self.fields.get(column).map_or("", String::as_str)
    }

    fn num(&self, column: &str) -> f64 {
        let text = self.get(column);
        text.parse()
            .unwrap_or_else(|_| panic!("{}: column {column}: not a number: {text:?}", self.at))
    }

    fn int(&self, column: &str) -> u64 {
        let text = self.get(column);
        text.parse()
            .unwrap_or_else(|_| panic!("{}: column {column}: not a count: {text:?}", self.at))
    }
}

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/stats")
        .join(name)
}

/// Reads a tab-separated table: `#` lines and blank lines skipped, the first other line is the
/// header.
fn records(name: &str) -> Vec<Record> {
    let text = std::fs::read_to_string(path(name))
        .unwrap_or_else(|e| panic!("testdata/stats/{name}: {e}"));
    let mut header: Option<Vec<String>> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cells = line.split('\t').map(str::to_owned);
        match &header {
            None => header = Some(cells.collect()),
            Some(columns) => out.push(Record {
                at: format!("testdata/stats/{name}:{}", i + 1),
                fields: columns.iter().cloned().zip(cells).collect(),
            }),
        }
    }
    assert!(!out.is_empty(), "testdata/stats/{name}: no data lines");
    out
}

fn optional(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

fn date(text: &str) -> Option<GameDate> {
    let mut parts = text.split('.');
    let year = parts.next()?.parse().ok()?;
    let month = parts.next().and_then(|m| m.parse().ok());
    let day = parts.next().and_then(|d| d.parse().ok());
    Some(GameDate { year, month, day })
}

/// One line of a `*.games.tsv` file, owning what a [`ScoredGame`] borrows.
#[derive(Debug, Clone)]
struct Game {
    event: String,
    site: String,
    white: String,
    black: String,
    white_team: Option<String>,
    black_team: Option<String>,
    score: Score,
    date: Option<GameDate>,
    round: Option<String>,
    white_elo: Option<u32>,
    black_elo: Option<u32>,
    order: u64,
}

impl Game {
    fn scored(&self) -> ScoredGame<'_> {
        ScoredGame {
            event: &self.event,
            site: &self.site,
            white: &self.white,
            black: &self.black,
            white_team: self.white_team.as_deref(),
            black_team: self.black_team.as_deref(),
            score: self.score,
            date: self.date,
            round: self.round.as_deref(),
            white_elo: self.white_elo,
            black_elo: self.black_elo,
            order: self.order,
        }
    }
}

/// The games of a `*.games.tsv` file, numbered in file order.
fn games(name: &str) -> Vec<Game> {
    records(name)
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let elo = |column: &str| r.get(column).parse().ok();
            Game {
                event: r.get("event").to_owned(),
                site: r.get("site").to_owned(),
                white: r.get("white").to_owned(),
                black: r.get("black").to_owned(),
                white_team: optional(r.get("white_team")),
                black_team: optional(r.get("black_team")),
                score: Score::from_pgn(r.get("result"))
                    .unwrap_or_else(|| panic!("{}: bad result", r.at)),
                date: date(r.get("date")),
                round: optional(r.get("round")),
                white_elo: elo("white_elo"),
                black_elo: elo("black_elo"),
                order: i as u64,
            }
        })
        .collect()
}

fn accumulate<'a>(games: impl IntoIterator<Item = &'a Game>) -> StatsAccumulator {
    accumulate_into(StatsAccumulator::new(), games)
}

fn accumulate_into<'a>(
    mut acc: StatsAccumulator,
    games: impl IntoIterator<Item = &'a Game>,
) -> StatsAccumulator {
    for game in games {
        acc.add(game.scored()).expect("in memory");
    }
    acc
}

/// An accumulator whose rating log keeps `run_len` games in memory and whose event log keeps
/// `budget` bytes, the rest in runs.
fn accumulate_in_runs<'a>(
    games: impl IntoIterator<Item = &'a Game>,
    run_len: usize,
    budget: usize,
) -> StatsAccumulator {
    let store =
        || -> Box<dyn pgnkit::stats::RunStore> { Box::new(pgnkit::stats::MemoryStore::default()) };
    accumulate_into(StatsAccumulator::with_stores(store, run_len, budget), games)
}

/// One event's tables, owned: its key, games, the player table for each way of choosing the
/// kind (detected, round robin, Swiss), and the team table.
#[derive(Debug, Clone, PartialEq)]
struct EventTables {
    event: String,
    site: String,
    year: Option<u16>,
    games: u64,
    standings: [Standings; 3],
    teams: Vec<TeamRow>,
}

/// Every event's tables, in the order the accumulator gives them.
fn events(acc: &mut StatsAccumulator) -> Vec<EventTables> {
    let mut out = Vec::new();
    acc.for_each_event(|event| {
        out.push(EventTables {
            event: event.key.event.to_owned(),
            site: event.key.site.to_owned(),
            year: event.key.year,
            games: event.games(),
            standings: [
                KindChoice::Detect,
                KindChoice::Force(EventKind::RoundRobin),
                KindChoice::Force(EventKind::Swiss),
            ]
            .map(|choice| event.standings(choice)),
            teams: event.team_standings().to_vec(),
        });
        Ok(())
    })
    .unwrap();
    out
}

/// Every table an accumulator gives, and its counters, as text: what must not change when
/// games are split and merged.
fn tables(acc: &mut StatsAccumulator) -> String {
    let mut out = format!(
        "games {} unknown sides {} unrated {} rated {}\n",
        acc.games,
        acc.unknown_sides,
        acc.unrated_unknown_games,
        acc.rated_games()
    );
    out += &format!("events {}\n", acc.event_count().unwrap());
    for event in events(acc) {
        out += &format!("{event:?}\n");
    }
    out += &format!("{:?}\n", acc.elo_table(&EloConfig::default()).unwrap());
    out += &format!("{:?}\n", acc.club_table(&ClubConfig::default()).unwrap());
    out
}

/// The accumulator of a games file holding a single event, and that event's table.
fn single_event(name: &str, choice: KindChoice) -> (StatsAccumulator, Standings) {
    let mut acc = accumulate(&games(name));
    assert_eq!(acc.event_count().unwrap(), 1, "{name}: expected one event");
    let index = match choice {
        KindChoice::Detect => 0,
        KindChoice::Force(EventKind::RoundRobin) => 1,
        KindChoice::Force(EventKind::Swiss) => 2,
    };
    let standings = events(&mut acc)[0].standings[index].clone();
    (acc, standings)
}

fn assert_close(actual: f64, expected: f64, tolerance: f64, at: &str, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{at}: {what}: got {actual}, expected {expected}"
    );
}

fn check_standings(standings: &Standings, expected: &str) {
    let expected = records(expected);
    assert_eq!(
        standings.rows.len(),
        expected.len(),
        "{}: number of rows",
        expected[0].at
    );
    for (row, want) in standings.rows.iter().zip(&expected) {
        let at = &want.at;
        let place = row.place.map_or("-".to_owned(), |p| p.to_string());
        assert_eq!(row.player.to_string(), want.get("player"), "{at}: player");
        assert_eq!(place, want.get("place"), "{at}: place");
        assert_eq!(row.games, want.int("games"), "{at}: games");
        assert_eq!(row.wins, want.int("wins"), "{at}: wins");
        assert_eq!(row.draws, want.int("draws"), "{at}: draws");
        assert_eq!(row.losses, want.int("losses"), "{at}: losses");
        assert_eq!(row.points(), want.num("points"), "{at}: points");
        assert_eq!(
            row.sonneborn_berger(),
            want.num("sonneborn_berger"),
            "{at}: 小分"
        );
        assert_eq!(row.buchholz(), want.num("buchholz"), "{at}: 对手分");
        match (row.performance, want.get("performance")) {
            (None, "-") => {}
            (Some(p), _) => assert_close(p, want.num("performance"), 0.001, at, "performance"),
            (None, other) => panic!("{at}: performance: got none, expected {other}"),
        }
    }
}

#[test]
fn worked_example_is_a_round_robin_with_places_2_3_shared() {
    let (_, standings) = single_event("worked_example.games.tsv", KindChoice::Detect);
    assert_eq!(standings.detected, EventKind::RoundRobin);
    assert_eq!(standings.kind, EventKind::RoundRobin);
    check_standings(&standings, "worked_example.standings.tsv");
}

#[test]
fn worked_example_forced_swiss_still_shares_2_3_on_buchholz() {
    let (_, standings) = single_event(
        "worked_example.games.tsv",
        KindChoice::Force(EventKind::Swiss),
    );
    assert_eq!(standings.kind, EventKind::Swiss);
    assert_eq!(standings.detected, EventKind::RoundRobin);
    check_standings(&standings, "worked_example.standings.tsv");
}

#[test]
fn swiss_is_detected_and_ranked_by_buchholz() {
    let (_, standings) = single_event("swiss.games.tsv", KindChoice::Detect);
    assert_eq!(standings.kind, EventKind::Swiss);
    check_standings(&standings, "swiss.standings.tsv");
}

/// A round robin the file holds only a few rounds of is still one: its pairings follow a
/// Berger table, and 小分 ranks it.
#[test]
fn a_partial_round_robin_is_detected_by_its_berger_pairings() {
    let (_, standings) = single_event("partial_round_robin.games.tsv", KindChoice::Detect);
    assert_eq!(standings.detected, EventKind::RoundRobin);
    check_standings(&standings, "partial_round_robin.standings.tsv");
    // The same games without their rounds could be any event: Swiss.
    let mut games = games("partial_round_robin.games.tsv");
    for game in &mut games {
        game.round = None;
    }
    let mut acc = accumulate(&games);
    assert_eq!(events(&mut acc)[0].standings[0].detected, EventKind::Swiss);
}

#[test]
fn swiss_forced_to_round_robin_is_ranked_by_sonneborn_berger() {
    let (_, standings) = single_event("swiss.games.tsv", KindChoice::Force(EventKind::RoundRobin));
    assert_eq!(standings.detected, EventKind::Swiss);
    assert_eq!(standings.kind, EventKind::RoundRobin);
    check_standings(&standings, "swiss_as_round_robin.standings.tsv");
}

#[test]
fn double_round_robin_is_detected() {
    let (_, standings) = single_event("double_round_robin.games.tsv", KindChoice::Detect);
    assert_eq!(standings.kind, EventKind::RoundRobin);
    check_standings(&standings, "double_round_robin.standings.tsv");
}

#[test]
fn unknown_names_share_one_unranked_bucket_and_are_counted() {
    let (acc, standings) = single_event("unknown.games.tsv", KindChoice::Detect);
    assert_eq!(acc.unknown_sides, 3);
    assert_eq!(acc.unrated_unknown_games, 2);
    assert_eq!(acc.rated_games(), 1);
    assert_eq!(standings.unknown_vs_unknown, 1);
    assert_eq!(standings.kind, EventKind::RoundRobin);
    assert_eq!(standings.rows.last().unwrap().player, PlayerKey::Unknown);
    check_standings(&standings, "unknown.standings.tsv");
}

#[test]
fn team_table_counts_game_points_only() {
    let mut acc = accumulate(&games("teams.games.tsv"));
    let teams = events(&mut acc)[0].teams.clone();
    let expected = records("teams.teams.tsv");
    assert_eq!(
        teams.len(),
        expected.len(),
        "teams.teams.tsv: number of rows"
    );
    for (row, want) in teams.iter().zip(&expected) {
        let at = &want.at;
        assert_eq!(row.team, want.get("team"), "{at}: team");
        assert_eq!(row.place.unwrap().to_string(), want.get("place"), "{at}");
        assert_eq!(row.games, want.int("games"), "{at}: games");
        assert_eq!(row.points(), want.num("points"), "{at}: points");
    }
}

#[test]
fn events_are_told_apart_by_site_and_year() {
    let mut acc = accumulate(&games("events.games.tsv"));
    let events = events(&mut acc);
    let keys: Vec<(&str, Option<u16>, u64)> = events
        .iter()
        .map(|e| (e.site.as_str(), e.year, e.games))
        .collect();
    assert_eq!(
        keys,
        [
            ("Beijing", Some(2023), 2),
            ("Beijing", Some(2024), 1),
            ("Tianjin", Some(2023), 1)
        ]
    );
}

/// An event table's event, site, games and players.
type TableKey = (String, String, u64, usize);

/// The tables of the events of a games file, checked to be counted alike without a pass over
/// the tables first and in runs of one game, and each one's [`TableKey`].
fn site_tables(name: &str) -> (Vec<EventTables>, Vec<TableKey>) {
    let all = games(name);
    let mut acc = accumulate(&all);
    let tables = events(&mut acc);
    assert_eq!(acc.event_count().unwrap(), tables.len() as u64, "{name}");
    let mut runs = accumulate_in_runs(&all, 1, 1);
    assert_eq!(runs.event_count().unwrap(), tables.len() as u64, "{name}");
    assert_eq!(events(&mut runs), tables, "{name}: in runs");
    let keys = tables
        .iter()
        .map(|t| {
            let players = t.standings[0].rows.len();
            (t.event.clone(), t.site.clone(), t.games, players)
        })
        .collect();
    (tables, keys)
}

fn owned(keys: &[(&str, &str, u64, usize)]) -> Vec<TableKey> {
    keys.iter()
        .map(|&(e, s, g, p)| (e.to_owned(), s.to_owned(), g, p))
        .collect()
}

/// A tournament whose `Site` text changed between rounds is one table (under the site of
/// most games); events of one name and year with different players stay apart.
#[test]
fn sites_that_share_players_in_one_event_and_year_are_one_event() {
    let (tables, keys) = site_tables("site_change.games.tsv");
    assert_eq!(
        keys,
        owned(&[
            ("Club Championship", "Basel", 3, 3),
            ("Club Championship", "Zug", 3, 3),
            ("Tata Steel Masters", "Wijk aan Zee NED", 15, 6),
        ])
    );
    assert_eq!(tables[2].standings[0].detected, EventKind::RoundRobin);
}

/// A Swiss whose boards of one round carry two spellings of the venue is one table: joining
/// the sites gives no player two games in one round. Two opens of one name and year where a
/// player played round 1 of each stay apart.
#[test]
fn sites_of_one_round_are_one_event_when_no_player_plays_twice_in_a_round() {
    let (_, keys) = site_tables("site_boards.games.tsv");
    assert_eq!(
        keys,
        owned(&[
            ("Lipetsk Open", "Lipetsk RUS", 12, 8),
            ("Spring Open", "Basel", 2, 3),
            ("Spring Open", "Zug", 2, 3),
        ])
    );
}

#[test]
fn club_points_at_every_bracket_edge() {
    for r in records("club_boundaries.tsv") {
        let score = Score::from_pgn(r.get("result")).expect("result");
        let (white, black) = (r.num("white_before"), r.num("black_before"));
        let gain = club::white_gain(white, black, score);
        let what = r.get("case");
        assert_close(white + gain, r.num("white_after"), 1e-9, &r.at, what);
        assert_close(black - gain, r.num("black_after"), 1e-9, &r.at, what);
    }
}

#[test]
fn club_levels() {
    for r in records("club_levels.tsv") {
        let level = Level::of(r.num("total"));
        assert_eq!(level.to_string(), r.get("level"), "{}", r.at);
    }
}

#[test]
fn club_totals_follow_date_and_round_not_file_order() {
    let mut acc = accumulate(&games("club_sequence.games.tsv"));
    let expected = records("club_sequence.totals.tsv");
    for start in [0.0, 1000.0] {
        let config = ClubConfig {
            start,
            ..ClubConfig::default()
        };
        let table = acc.club_table(&config).unwrap();
        assert_eq!(table.len(), expected.len());
        for (row, want) in table.iter().zip(&expected) {
            let at = &want.at;
            assert_eq!(row.player, want.get("player"), "{at}: start {start}");
            assert_eq!(row.games, want.int("games"), "{at}");
            assert_eq!(row.start, start, "{at}");
            assert_close(row.total, start + want.num("total"), 1e-9, at, "total");
            if start == 0.0 {
                assert_eq!(row.level.to_string(), want.get("level"), "{at}");
            }
        }
    }
}

#[test]
fn club_config_sets_one_players_start() {
    let mut acc = accumulate(&games("club_sequence.games.tsv"));
    let config = ClubConfig {
        start: 0.0,
        starting: [("X".to_owned(), 250.0)].into_iter().collect(),
    };
    let table = acc.club_table(&config).unwrap();
    let x = table.iter().find(|r| r.player == "X").unwrap();
    // X 250 beats Y 0 (d=250, higher wins: 0), then Z 0 (0 again): X stays 250, 29级.
    assert_eq!((x.start, x.total, x.level), (250.0, 250.0, Level::Ji(29)));
}

#[test]
fn elo_expected_score_with_the_400_cap() {
    for r in records("elo_expected.tsv") {
        let e = elo::expected_score(r.num("rating"), r.num("opponent"));
        assert_close(e, r.num("expected"), 1e-9, &r.at, "expected score");
    }
}

#[test]
fn elo_k_factor() {
    let config = EloConfig::default();
    for r in records("elo_k.tsv") {
        let row = EloRow {
            player: "P".to_owned(),
            start: 1500.0,
            start_from_tag: false,
            rating: 1500.0,
            games: r.int("games"),
            reached_k10: r.get("reached_2400") == "yes",
            new_player: r.get("new_player") == "yes",
        };
        assert_eq!(row.k(&config), r.num("k"), "{}", r.at);
    }
}

#[test]
fn elo_replay_matches_hand_computed_ratings() {
    let mut acc = accumulate(&games("elo_sequence.games.tsv"));
    let table = acc.elo_table(&EloConfig::default()).unwrap();
    let expected = records("elo_sequence.ratings.tsv");
    assert_eq!(table.len(), expected.len(), "number of players");
    for (row, want) in table.iter().zip(&expected) {
        let at = &want.at;
        assert_eq!(row.player, want.get("player"), "{at}: order");
        assert_eq!(row.games, want.int("games"), "{at}: games");
        assert_eq!(row.start, want.num("start"), "{at}: start");
        assert_close(row.rating, want.num("rating"), 1e-6, at, "rating");
    }
}

fn games_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(path(""))
        .expect("testdata/stats")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".games.tsv"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "games files found: {names:?}");
    names
}

/// Every games file, split in two at each possible point: merging the halves (either way
/// round) gives exactly the tables of the whole.
#[test]
fn merged_halves_equal_the_whole() {
    for name in &games_files() {
        let all = games(name);
        let whole = tables(&mut accumulate(&all));
        for split in 0..=all.len() {
            let (a, b) = all.split_at(split);
            let mut ab = accumulate(a);
            ab.merge(accumulate(b)).unwrap();
            let mut ba = accumulate(b);
            ba.merge(accumulate(a)).unwrap();
            assert_eq!(tables(&mut ab), whole, "{name} split at {split}");
            assert_eq!(
                tables(&mut ba),
                whole,
                "{name} split at {split}, merged the other way"
            );
        }
    }
}

/// Rating and event logs spilled in runs of any length, merged or not, give the tables of
/// logs kept whole in memory.
#[test]
fn runs_of_any_length_give_the_same_tables() {
    for name in &games_files() {
        let all = games(name);
        let whole = tables(&mut accumulate(&all));
        for (run_len, budget) in [(1, 1), (2, 100), (3, 1000), (5, 1)] {
            let mut runs = accumulate_in_runs(&all, run_len, budget);
            assert_eq!(tables(&mut runs), whole, "{name}, runs of {run_len}");
            let (a, b) = all.split_at(all.len() / 2);
            let mut ab = accumulate_in_runs(a, run_len, budget);
            ab.merge(accumulate_in_runs(b, run_len + 1, budget + 1))
                .unwrap();
            assert_eq!(
                tables(&mut ab),
                whole,
                "{name}, halves in runs of {run_len}"
            );
        }
    }
}

/// An accumulator written out (its logs game by game) and read back gives the same tables,
/// and merges like the accumulator it was.
#[test]
fn accumulators_read_back_from_json_give_the_same_tables() {
    for name in [
        "worked_example.games.tsv",
        "teams.games.tsv",
        "unknown.games.tsv",
    ] {
        let all = games(name);
        let (a, b) = all.split_at(all.len() / 2);
        let mut part = accumulate_in_runs(a, 2, 50);
        let mut rated = Vec::new();
        part.for_each_rated(|entry| {
            rated.push(serde_json::to_string(entry).unwrap());
            Ok(())
        })
        .unwrap();
        let mut played = Vec::new();
        part.for_each_event_entry(|entry| {
            played.push(serde_json::to_string(entry).unwrap());
            Ok(())
        })
        .unwrap();
        let text = serde_json::to_string(&part).unwrap();
        let mut read: StatsAccumulator = serde_json::from_str(&text).unwrap();
        for line in &rated {
            read.add_rated(&serde_json::from_str(line).unwrap())
                .unwrap();
        }
        for line in &played {
            read.add_event_entry(&serde_json::from_str(line).unwrap())
                .unwrap();
        }
        read.merge(accumulate(b)).unwrap();
        assert_eq!(tables(&mut read), tables(&mut accumulate(&all)), "{name}");
    }
}

#[test]
fn merged_halves_of_the_worked_example_give_its_table() {
    let all = games("worked_example.games.tsv");
    let (a, b) = all.split_at(3);
    let mut merged = accumulate(a);
    merged.merge(accumulate(b)).unwrap();
    check_standings(
        &events(&mut merged)[0].standings[0],
        "worked_example.standings.tsv",
    );
    let elo_whole = accumulate(&all).elo_table(&EloConfig::default()).unwrap();
    let elo_merged = merged.elo_table(&EloConfig::default()).unwrap();
    assert_eq!(elo_merged, elo_whole);
}

/// A small deterministic generator for the property tests (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// An accumulator with logs that spill at the sizes `rng` picks (or stay in memory).
fn random_accumulator(rng: &mut Lcg) -> StatsAccumulator {
    let run_len = [1, 2, 7, 1 << 20][rng.below(4)];
    let budget = [1, 64, 1000, 1 << 24][rng.below(4)];
    let store =
        || -> Box<dyn pgnkit::stats::RunStore> { Box::new(pgnkit::stats::MemoryStore::default()) };
    StatsAccumulator::with_stores(store, run_len, budget)
}

/// What `stats --partial` writes of an accumulator: its rated games, its events' games and
/// its counters, each line as JSON.
struct Part {
    rated: Vec<String>,
    played: Vec<String>,
    counters: String,
}

fn partial(mut acc: StatsAccumulator) -> Part {
    let mut rated = Vec::new();
    acc.for_each_rated(|entry| {
        rated.push(serde_json::to_string(entry).unwrap());
        Ok(())
    })
    .unwrap();
    let mut played = Vec::new();
    acc.for_each_event_entry(|entry| {
        played.push(serde_json::to_string(entry).unwrap());
        Ok(())
    })
    .unwrap();
    Part {
        rated,
        played,
        counters: serde_json::to_string(&acc).unwrap(),
    }
}

/// `stats merge` over parts in input order: every part's games are renumbered after the
/// games of the parts before it.
fn merge_parts(parts: &[(Part, u64)], rng: &mut Lcg) -> StatsAccumulator {
    let mut acc = random_accumulator(rng);
    let mut offset = 0;
    for (part, games) in parts {
        for line in &part.rated {
            let mut entry: pgnkit::stats::RatedEntry<'_> = serde_json::from_str(line).unwrap();
            entry.order += offset;
            acc.add_rated(&entry).unwrap();
        }
        for line in &part.played {
            acc.add_event_entry(&serde_json::from_str(line).unwrap())
                .unwrap();
        }
        acc.merge(serde_json::from_str(&part.counters).unwrap())
            .unwrap();
        offset += games;
    }
    acc
}

/// Merges accumulators of consecutive parts as a random tree of `merge` calls: ((a b) c),
/// (a (b c)), ...
fn merge_tree(mut parts: Vec<StatsAccumulator>, rng: &mut Lcg) -> StatsAccumulator {
    while parts.len() > 1 {
        let at = rng.below(parts.len() - 1);
        let right = parts.remove(at + 1);
        parts[at].merge(right).unwrap();
    }
    parts.pop().unwrap_or_default()
}

/// The counts of `games` that simply add up, with the round as the opening and the result
/// as the termination.
fn tally_of(games: &[Game]) -> Tally {
    let mut tally = Tally::new();
    for game in games {
        let result = match game.score {
            Score::WhiteWin => "1-0",
            Score::Draw => "1/2-1/2",
            Score::BlackWin => "0-1",
        };
        tally.add(GameSummary {
            white: &game.white,
            black: &game.black,
            score: Some(game.score),
            date: game.date,
            plies: game.white.len() as u32,
            opening: game.round.as_deref().unwrap_or("?"),
            termination: TerminationKey {
                termination: "none".into(),
                result_by_rule: None,
                result: result.into(),
                tag: game.site.clone(),
            },
            has_error: false,
            illegal: false,
        });
    }
    tally
}

/// The CSV reports but `games.csv`, as `stats` writes them.
fn reports(acc: &mut StatsAccumulator, tally: &Tally) -> String {
    let opts = TableOptions::default();
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    csvout::write_standings(&mut w, acc, &opts).unwrap();
    csvout::write_players(&mut w, acc, tally, &opts).unwrap();
    csvout::write_openings(&mut w, tally, &opts).unwrap();
    csvout::write_terminations(&mut w, tally, &opts).unwrap();
    csvout::write_summary(&mut w, acc, tally, &opts).unwrap();
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

/// Every games file, one after the other (games numbered across them, as one run numbers
/// them), split into parts at random points: partial results of the parts merged in input
/// order, and the parts' accumulators merged in any grouping, give the tables of one run.
#[test]
fn partials_merged_in_any_grouping_equal_one_run() {
    let mut all = Vec::new();
    for name in &games_files() {
        for mut game in games(name) {
            game.order = all.len() as u64;
            all.push(game);
        }
    }
    let whole = tables(&mut accumulate(&all));
    let whole_reports = reports(&mut accumulate(&all), &tally_of(&all));
    let mut rng = Lcg(2026);
    for round in 0..60 {
        let parts = 1 + rng.below(6);
        let mut cuts: Vec<usize> = (1..parts).map(|_| rng.below(all.len() + 1)).collect();
        cuts.push(0);
        cuts.push(all.len());
        cuts.sort_unstable();
        let chunks: Vec<&[Game]> = cuts.windows(2).map(|w| &all[w[0]..w[1]]).collect();
        let mut accumulators = Vec::new();
        let mut written = Vec::new();
        for chunk in &chunks {
            // Each part's games are numbered from 0, as a run over the part numbers them.
            let local: Vec<Game> = chunk
                .iter()
                .enumerate()
                .map(|(i, g)| Game {
                    order: i as u64,
                    ..g.clone()
                })
                .collect();
            let acc = accumulate_into(random_accumulator(&mut rng), &local);
            written.push((partial(acc), local.len() as u64));
            accumulators.push(accumulate_into(random_accumulator(&mut rng), *chunk));
        }
        let mut merged = merge_parts(&written, &mut rng);
        let mut tally = Tally::new();
        for chunk in &chunks {
            let text = serde_json::to_string(&tally_of(chunk)).unwrap();
            tally.merge(serde_json::from_str(&text).unwrap());
        }
        assert_eq!(
            reports(&mut merged, &tally),
            whole_reports,
            "round {round}: reports of parts cut at {cuts:?}"
        );
        assert_eq!(
            tables(&mut merged),
            whole,
            "round {round}: parts cut at {cuts:?}"
        );
        assert_eq!(
            tables(&mut merge_tree(accumulators, &mut rng)),
            whole,
            "round {round}: accumulators cut at {cuts:?}, merged as a tree"
        );
    }
}
