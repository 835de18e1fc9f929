//! `pgnkit stats` run as a user runs it: reports, spreadsheet safety, Unicode, merges, exit
//! codes. Inputs are the PGN files in `testdata/stats/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::{cells, stderr, tsv_rows, Report};

fn pgnkit(args: &[&str]) -> Output {
    common::pgnkit(args, None)
}

/// Runs `pgnkit ARGS`, which must exit with status 0.
fn pgnkit_ok(args: &[&str]) -> Output {
    common::pgnkit_ok(args, None)
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    common::scratch(&format!("stats/{test}"))
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The records of a CSV report (header first).
fn records(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

/// The value of `column` in every data row of a report.
fn column(path: &Path, column: &str) -> Vec<String> {
    let rows = records(path);
    let at = rows[0]
        .iter()
        .position(|c| c == column)
        .unwrap_or_else(|| panic!("{}: no column {column}", path.display()));
    rows[1..].iter().map(|r| r[at].clone()).collect()
}

const REPORTS: [&str; 6] = [
    "games.csv",
    "standings.csv",
    "players.csv",
    "openings.csv",
    "terminations.csv",
    "summary.csv",
];

fn stats_out(files: &[&str], dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["stats"];
    args.extend_from_slice(files);
    args.extend_from_slice(&["--out", dir.to_str().unwrap()]);
    args.extend_from_slice(extra);
    pgnkit(&args)
}

/// [`stats_out`], which must exit with status 0.
fn stats_ok(files: &[&str], dir: &Path, extra: &[&str]) -> Output {
    let o = stats_out(files, dir, extra);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{files:?} {extra:?}: {}",
        stderr(&o)
    );
    o
}

#[test]
fn worked_example_of_the_reference() {
    let dir = scratch("worked_example");
    stats_ok(&["testdata/stats/worked_example.pgn"], &dir, &[]);
    for report in REPORTS {
        assert!(dir.join(report).is_file(), "{report} not written");
    }
    let standings = dir.join("standings.csv");
    assert_eq!(column(&standings, "player"), ["A", "B", "C", "D"]);
    assert_eq!(column(&standings, "place"), ["1", "2-3", "2-3", "4"]);
    assert_eq!(column(&standings, "points"), ["2.5", "1.5", "1.5", "0.5"]);
    assert_eq!(
        column(&standings, "sonneborn_berger"),
        ["2.75", "1.75", "1.75", "0.75"]
    );
    assert_eq!(column(&standings, "buchholz"), ["3.5", "4.5", "4.5", "5.5"]);
    assert_eq!(column(&standings, "kind"), ["round robin"; 4]);
    // The whole file, byte for byte.
    assert_eq!(
        String::from_utf8(read(&standings)).unwrap(),
        String::from_utf8(read(Path::new(
            "testdata/stats/worked_example.standings.csv"
        )))
        .unwrap()
    );
    let games = dir.join("games.csv");
    assert_eq!(column(&games, "termination_by_rule")[0], "checkmate");
    assert_eq!(column(&games, "termination_ply")[0], "7");
}

#[test]
fn tiebreak_override_switches_to_buchholz() {
    let o = pgnkit_ok(&[
        "stats",
        "testdata/stats/worked_example.pgn",
        "--report",
        "standings",
        "--tiebreak",
        "buchholz",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains(",swiss,buchholz,1,A,"), "{text}");
    // B and C are equal on Buchholz too: still a shared place.
    assert!(lines[2].contains(",2-3,B,"), "{text}");
}

#[test]
fn formulas_from_the_file_are_neutralised() {
    let dir = scratch("injection");
    stats_ok(&["testdata/stats/injection.pgn"], &dir, &[]);
    for report in REPORTS {
        for row in records(&dir.join(report)) {
            for cell in row {
                assert!(
                    !cell.starts_with(['=', '+', '@', '\t', '\r']),
                    "{report}: live formula {cell:?}"
                );
            }
        }
    }
    let games = dir.join("games.csv");
    assert_eq!(
        column(&games, "white"),
        ["'=HYPERLINK(\"http://evil.example\",\"click\")"]
    );
    assert_eq!(column(&games, "black"), ["'+cmd|' /C calc'!A0"]);
    // A negative number is shown as a number, not run: it stays.
    assert_eq!(column(&games, "white_elo"), ["-5"]);
    assert_eq!(column(&games, "event"), ["'=1+1"]);
    // lichess's `Round "-"` is text a spreadsheet shows as it is.
    assert_eq!(column(&games, "round"), ["-"]);
    // Numbers pgnkit writes itself are never touched, negative ones included.
    // Players are listed by name: `+cmd...` (the loser) before `=HYPERLINK...`.
    let players = dir.join("players.csv");
    assert_eq!(column(&players, "club_points"), ["-10", "10"]);

    let raw = scratch("injection_raw");
    stats_ok(&["testdata/stats/injection.pgn"], &raw, &["--raw-csv"]);
    assert_eq!(
        column(&raw.join("games.csv"), "white"),
        ["=HYPERLINK(\"http://evil.example\",\"click\")"]
    );
}

/// Issue 40: `games.csv`'s `file` column is text from outside pgnkit too, neutralised as the
/// tags are (and kept with `--raw-csv`).
#[test]
fn file_names_are_neutralised_too() {
    let dir = scratch("injection_file");
    std::fs::copy("testdata/stats/injection.pgn", dir.join("=cmd.pgn")).unwrap();
    for (raw, want) in [(false, "'=cmd.pgn"), (true, "=cmd.pgn")] {
        let mut args = vec!["stats", "=cmd.pgn", "--out", "out"];
        if raw {
            args.push("--raw-csv");
        }
        // Run where the file is, so that its name starts the `file` cell.
        let o = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(column(&dir.join("out/games.csv"), "file"), [want]);
    }
}

#[test]
fn unicode_names_are_kept_and_unknown_names_share_a_bucket() {
    let dir = scratch("unicode");
    stats_ok(&["testdata/stats/unicode.pgn"], &dir, &[]);
    let standings = dir.join("standings.csv");
    assert_eq!(column(&standings, "event")[0], "全国象棋锦标赛");
    assert_eq!(
        column(&standings, "player"),
        ["Müller, Jürgen", "王天一", "?"]
    );
    // The unknown bucket stands for several people: no place.
    assert_eq!(column(&standings, "place"), ["1-2", "1-2", ""]);
    // The `*` game is in games.csv only: 王天一 played one counted game.
    assert_eq!(column(&standings, "games"), ["2", "1", "1"]);
    assert_eq!(column(&dir.join("games.csv"), "result").len(), 3);
    let players = dir.join("players.csv");
    assert_eq!(
        column(&players, "player"),
        ["Müller, Jürgen", "王天一", "?"]
    );
    assert_eq!(
        column(&players, "elo")[2],
        "",
        "no rating for the unknown bucket"
    );
    let summary: Vec<Vec<String>> = records(&dir.join("summary.csv"));
    let metric = |name: &str| {
        summary
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no {name}"))[1]
            .clone()
    };
    assert_eq!(metric("unknown_player_sides"), "1");
    assert_eq!(metric("unfinished_games"), "1");
    assert_eq!(metric("players"), "2");
}

#[test]
fn excel_adds_a_byte_order_mark() {
    let dir = scratch("excel");
    stats_ok(&["testdata/stats/unicode.pgn"], &dir, &["--excel"]);
    for report in REPORTS {
        assert!(
            read(&dir.join(report)).starts_with(b"\xEF\xBB\xBF"),
            "{report}: no BOM"
        );
    }
    let plain = scratch("no_excel");
    stats_ok(&["testdata/stats/unicode.pgn"], &plain, &[]);
    assert!(read(&plain.join("standings.csv")).starts_with(b"event,"));
}

#[test]
fn initial_elo_sets_untagged_players() {
    let o = pgnkit_ok(&[
        "stats",
        "testdata/stats/unicode.pgn",
        "--report",
        "players",
        "--initial-elo",
        "1200",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("\"Müller, Jürgen\",2,0,0,1,0,1,0,0.5,25,1200,1200,1,"),
        "{text}"
    );
}

/// The openings report of `file` keyed by its first `plies` plies (header first).
fn openings(test: &str, file: &str, plies: &str) -> Vec<Vec<String>> {
    let out = scratch(test).join("openings.csv");
    pgnkit_ok(&[
        "stats",
        file,
        "--report",
        "openings",
        "--opening-plies",
        plies,
        "-o",
        out.to_str().unwrap(),
    ]);
    records(&out)
}

#[test]
fn openings_by_first_plies() {
    let rows = openings("openings", "testdata/stats/worked_example.pgn", "2");
    assert_eq!(
        rows[1],
        [
            "e4 e5",
            "2",
            "2",
            "0",
            "0",
            "0",
            "100",
            "6.5",
            "King's Pawn Game"
        ]
    );
    assert_eq!(rows.len(), 1 + 5);
}

/// Games that start plainly and then hold a variation, a lenient move or a line comment
/// leave the fast replay part-way and are replayed again: their openings are read once.
#[test]
fn openings_of_games_replayed_again() {
    let rows = openings("openings_again", "testdata/stats/detours.pgn", "4");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1][..2], ["e4 e5 Nf3 Nc6", "3"]);
}

#[test]
fn illegal_games_keep_their_result_and_are_flagged() {
    let dir = scratch("illegal");
    let o = stats_out(&["testdata/stats/illegal.pgn"], &dir, &[]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "errors in the input: {}",
        stderr(&o)
    );
    let games = dir.join("games.csv");
    assert_eq!(column(&games, "legal"), ["no", "yes"]);
    assert_eq!(column(&games, "first_error"), ["M001", "R001"]);
    let standings = dir.join("standings.csv");
    assert_eq!(column(&standings, "player"), ["E", "G", "H", "F"]);
    assert_eq!(column(&standings, "points"), ["1", "0.5", "0.5", "0"]);
    let terminations = records(&dir.join("terminations.csv"));
    assert_eq!(
        terminations[1],
        ["checkmate", "0-1", "1/2-1/2", "", "yes", "1", "0.5"]
    );
}

#[test]
fn terminations_are_broken_down_by_the_termination_tag() {
    let dir = scratch("termination_tag");
    stats_ok(&["testdata/stats/terminations.pgn"], &dir, &[]);
    let rows = records(&dir.join("terminations.csv"));
    assert_eq!(
        rows[0],
        [
            "termination_by_rule",
            "result_by_rule",
            "result",
            "termination",
            "mismatch",
            "games",
            "share"
        ]
    );
    let rows: Vec<String> = rows[1..].iter().map(|r| r.join(",")).collect();
    assert_eq!(
        rows,
        [
            "checkmate,0-1,0-1,,no,1,0.2",
            "checkmate,0-1,0-1,Normal,no,1,0.2",
            "none,,1-0,'=HYPERLINK(0),no,1,0.2",
            "none,,1-0,Normal,no,1,0.2",
            "none,,1-0,Time forfeit,no,1,0.2",
        ]
    );
}

#[test]
fn exit_codes() {
    let dir = scratch("exit");
    let o = stats_out(&["testdata/stats/no-such-file.pgn"], &dir, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot open"), "{}", stderr(&o));
    let o = pgnkit(&["stats", "testdata/stats/worked_example.pgn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to write"), "{}", stderr(&o));
    let o = pgnkit(&[
        "stats",
        "merge",
        "testdata/stats/worked_example.pgn",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a partial result"),
        "{}",
        stderr(&o)
    );
}

/// Runs `stats --partial` on each file, merges the parts, and returns the merged directory.
fn merged(test: &str, files: &[&str]) -> PathBuf {
    let dir = scratch(test);
    let mut parts = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let part = dir.join(format!("part{i}.jsonl"));
        let o = pgnkit(&["stats", file, "--partial", part.to_str().unwrap(), "-q"]);
        assert!(o.status.code() != Some(2), "{file}: {}", stderr(&o));
        parts.push(part.to_str().unwrap().to_owned());
    }
    let out = dir.join("merged");
    let mut args = vec!["stats", "merge"];
    args.extend(parts.iter().map(String::as_str));
    args.extend(["--out", out.to_str().unwrap()]);
    let o = pgnkit(&args);
    assert!(o.status.code() != Some(2), "merge: {}", stderr(&o));
    out
}

/// `undated.pgn` twice: its games tie on date and round, so only file order, renumbered
/// across parts by the merge, puts them in the order one run would rate them.
const MERGE_INPUTS: [&str; 5] = [
    "testdata/stats/undated.pgn",
    "testdata/stats/worked_example.pgn",
    "testdata/stats/unicode.pgn",
    "testdata/stats/illegal.pgn",
    "testdata/stats/undated.pgn",
];

#[test]
fn merge_of_parts_equals_one_run_over_the_same_files() {
    let out = merged("merge_files", &MERGE_INPUTS);
    let whole = scratch("merge_files_whole");
    let o = stats_out(&MERGE_INPUTS, &whole, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    for report in REPORTS {
        assert_eq!(
            String::from_utf8(read(&out.join(report))).unwrap(),
            String::from_utf8(read(&whole.join(report))).unwrap(),
            "{report}"
        );
    }
}

#[test]
fn merge_of_parts_equals_one_run_over_their_concatenation() {
    let out = merged("merge_concat", &MERGE_INPUTS);
    let dir = scratch("merge_concat_whole");
    let mut all = Vec::new();
    for file in MERGE_INPUTS {
        all.extend(read(Path::new(file)));
    }
    let concatenated = dir.join("all.pgn");
    std::fs::write(&concatenated, all).unwrap();
    let whole = dir.join("reports");
    let o = stats_out(&[concatenated.to_str().unwrap()], &whole, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // games.csv names the file and numbers games within it, and the summary counts files;
    // everything else is the same.
    let without_files = |path: PathBuf| -> String {
        String::from_utf8(read(&path))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("files,"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for report in REPORTS.iter().filter(|r| **r != "games.csv") {
        assert_eq!(
            without_files(out.join(report)),
            without_files(whole.join(report)),
            "{report}"
        );
    }
    let games = |dir: &Path| -> Vec<Vec<String>> {
        records(&dir.join("games.csv"))
            .into_iter()
            .map(|r| r[3..].to_vec())
            .collect()
    };
    assert_eq!(games(&out), games(&whole));
}

#[test]
fn merge_refuses_parts_with_different_opening_keys() {
    let dir = scratch("merge_mismatch");
    let a = dir.join("a.jsonl");
    let b = dir.join("b.jsonl");
    pgnkit_ok(&["stats", MERGE_INPUTS[0], "--partial", a.to_str().unwrap()]);
    pgnkit_ok(&[
        "stats",
        MERGE_INPUTS[1],
        "--partial",
        b.to_str().unwrap(),
        "--opening-plies",
        "4",
    ]);
    let o = pgnkit(&[
        "stats",
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--report",
        "summary",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--opening-plies"), "{}", stderr(&o));
}

#[test]
fn every_column_is_documented() {
    let dir = scratch("documented");
    stats_ok(&["testdata/stats/unicode.pgn"], &dir, &[]);
    let docs = String::from_utf8(read(Path::new("docs/stats.md"))).unwrap();
    for report in REPORTS {
        assert!(
            docs.contains(&format!("## `{report}`")),
            "{report}: no section"
        );
        for name in &records(&dir.join(report))[0] {
            assert!(
                docs.contains(&format!("| `{name}` |")),
                "docs/stats.md: column `{name}` of {report} is not documented"
            );
        }
    }
    let summary = records(&dir.join("summary.csv"));
    for row in &summary[1..] {
        assert!(
            docs.contains(&format!("| `{}` |", row[0])),
            "docs/stats.md: metric `{}` is not documented",
            row[0]
        );
    }
}

#[test]
fn jobs_do_not_change_the_reports() {
    let base = std::env::temp_dir().join(format!("pgnkit-stats-jobs-{}", std::process::id()));
    let mut input = String::new();
    for i in 0..300 {
        let (w, b) = (format!("P{}", i % 7), format!("P{}", (i * 3 + 1) % 7));
        let (result, moves) = match i % 3 {
            0 => ("1-0", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"),
            1 => ("1/2-1/2", "1. d4 d5 1/2-1/2"),
            _ => ("0-1", "1. f3 e5 2. g4 Qh4# 0-1"),
        };
        input.push_str(&format!(
            "[Event \"E{}\"]\n[Site \"S\"]\n[Date \"2026.01.{:02}\"]\n[Round \"{}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{result}\"]\n[ECO \"C{:02}\"]\n\n{moves}\n\n",
            i % 3, i % 28 + 1, i, i % 50
        ));
    }
    std::fs::create_dir_all(&base).unwrap();
    let file = base.join("in.pgn");
    std::fs::write(&file, input).unwrap();
    let mut outputs = Vec::new();
    for jobs in ["1", "2", "3"] {
        let dir = base.join(format!("out{jobs}"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_pgnkit"))
            .args([
                "stats",
                "-j",
                jobs,
                "--out",
                dir.to_str().unwrap(),
                file.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        assert_eq!(files.len(), 6);
        outputs.push(files);
    }
    std::fs::remove_dir_all(&base).unwrap();
    assert_eq!(outputs[1], outputs[0]);
    assert_eq!(outputs[2], outputs[0]);
}

/// Games among eight players over a few events, with dates (some partial or missing) and
/// rounds (numbers, dotted numbers, text) out of order, so that ratings depend on sorting.
fn rated_input(games: usize) -> String {
    let mut input = String::new();
    for i in 0..games {
        let (w, b) = (format!("P{}", i % 8), format!("P{}", (i * 5 + 3) % 8));
        let (result, moves) = match i % 3 {
            0 => ("1-0", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"),
            1 => ("1/2-1/2", "1. d4 d5 1/2-1/2"),
            _ => ("0-1", "1. f3 e5 2. g4 Qh4# 0-1"),
        };
        let date = match i % 11 {
            0 => "????.??.??".to_owned(),
            1 => "2025.??.??".to_owned(),
            _ => format!("2025.{:02}.{:02}", 12 - i % 12, (i * 7) % 28 + 1),
        };
        let round = match i % 5 {
            0 => format!("{}", (i * 13) % 40),
            1 => format!("{}.{}", i % 9, (i * 3) % 12),
            2 => format!("{}.{}.{}", i % 4, i % 3, i % 2),
            3 => ["final", "semi", "?", "-"][i % 4].to_owned(),
            _ => format!("{}", 99_999 + i % 3),
        };
        let elo = |n: usize| {
            if n.is_multiple_of(3) {
                String::new()
            } else {
                format!("{}", 1800 + 37 * n)
            }
        };
        input.push_str(&format!(
            "[Event \"E{}\"]\n[Site \"S\"]\n[Date \"{date}\"]\n[Round \"{round}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{result}\"]\n[WhiteElo \"{}\"]\n[BlackElo \"{}\"]\n\n{moves}\n\n",
            i % 3,
            elo(i % 8),
            elo((i * 5 + 3) % 8),
        ));
    }
    input
}

/// Every report of a directory, by name.
fn reports(dir: &Path) -> Vec<(&'static str, String)> {
    REPORTS
        .iter()
        .map(|r| (*r, String::from_utf8(read(&dir.join(r))).unwrap()))
        .collect()
}

/// `pgnkit` with `TMPDIR` set.
fn pgnkit_with_tmpdir(args: &[&str], tmpdir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TMPDIR", tmpdir)
        .output()
        .expect("pgnkit runs")
}

/// A scratch directory for a test of spilling: an input file, and a `TMPDIR` of its own so that
/// the test can check nothing is left there.
struct Spill {
    dir: PathBuf,
    input: String,
    tmp: PathBuf,
}

impl Spill {
    fn new(test: &str, file: &str, contents: String) -> Spill {
        let dir = scratch(test);
        let input = dir.join(file);
        std::fs::write(&input, contents).unwrap();
        let input = input.to_str().unwrap().to_owned();
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        Spill { dir, input, tmp }
    }

    /// `pgnkit ARGS --out DIR/NAME -q EXTRA` with this `TMPDIR`, which must succeed; its
    /// reports.
    fn reports(&self, name: &str, args: &[&str], extra: &[&str]) -> Vec<(&'static str, String)> {
        let out = self.dir.join(name);
        let mut all = args.to_vec();
        all.extend_from_slice(&["--out", out.to_str().unwrap(), "-q"]);
        all.extend_from_slice(extra);
        let o = pgnkit_with_tmpdir(&all, &self.tmp);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        reports(&out)
    }

    /// The reports of `pgnkit stats INPUT` with `extra` arguments.
    fn stats(&self, name: &str, extra: &[&str]) -> Vec<(&'static str, String)> {
        self.reports(name, &["stats", &self.input], extra)
    }

    /// The reports of the input read twice, in memory.
    fn twice(&self, name: &str) -> Vec<(&'static str, String)> {
        self.reports(name, &["stats", &self.input, &self.input], &[])
    }

    /// The reports of `part` merged with itself, with `extra` arguments.
    fn merged_twice(&self, name: &str, part: &str, extra: &[&str]) -> Vec<(&'static str, String)> {
        self.reports(name, &["stats", "merge", part, part], extra)
    }

    /// A partial result of the input written with `extra` arguments; its path.
    fn partial(&self, extra: &[&str]) -> String {
        let part = self.dir.join("part.jsonl");
        let part = part.to_str().unwrap().to_owned();
        let mut args = vec!["--partial", part.as_str()];
        args.extend_from_slice(extra);
        self.stats("partial", &args);
        part
    }

    /// The reports are the same whatever the hidden `option` says: `stats` with `option` at
    /// each of `values` gives `expected`, and a partial result written with `option` at
    /// `partial`, merged with itself with `option` at each of `merges`, gives the input read
    /// twice; nothing is left in `TMPDIR`.
    fn assert_option_changes_nothing(
        &self,
        option: &str,
        values: &[&str],
        expected: &[(&'static str, String)],
        partial: &str,
        merges: &[&str],
    ) {
        for value in values {
            assert_eq!(
                self.stats(&format!("with{value}"), &[option, value]),
                expected,
                "{option} {value}"
            );
        }
        let part = self.partial(&[option, partial]);
        let twice = self.twice("twice");
        for value in merges {
            let merged = self.merged_twice(&format!("merged{value}"), &part, &[option, value]);
            assert_eq!(merged, twice, "merge, {option} {value}");
        }
        self.assert_tmpdir_empty();
    }

    fn assert_tmpdir_empty(&self) {
        let left: Vec<_> = std::fs::read_dir(&self.tmp).unwrap().collect();
        assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    }
}

/// Rated games spilled to a temporary file in sorted runs of any length (the hidden
/// `--rating-run`) give the reports of a run that keeps them in memory, for `stats` and for
/// `stats merge`; the file goes to `TMPDIR` and is gone afterwards.
#[test]
fn spilled_rating_runs_give_the_same_reports() {
    let spill = Spill::new("spill", "rated.pgn", rated_input(400));
    let in_memory = spill.stats("memory", &[]);
    spill.assert_option_changes_nothing(
        "--rating-run",
        &["1", "2", "7", "100"],
        &in_memory,
        "3",
        &["1", "5"],
    );
}

/// The temporary file is created in `TMPDIR`: a missing one is a failure that names it.
#[test]
fn rating_runs_go_to_tmpdir() {
    let dir = scratch("spill_tmpdir");
    let missing = dir.join("no-such-dir");
    let out = dir.join("out");
    let o = pgnkit_with_tmpdir(
        &[
            "stats",
            "testdata/stats/worked_example.pgn",
            "--out",
            out.to_str().unwrap(),
            "--rating-run",
            "2",
        ],
        &missing,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let message = stderr(&o);
    assert!(
        message.contains("cannot create a temporary file in"),
        "{message}"
    );
    assert!(message.contains("no-such-dir"), "{message}");
    assert!(message.contains("TMPDIR"), "{message}");
    // The event log's runs go there too.
    let o = pgnkit_with_tmpdir(
        &[
            "stats",
            "testdata/stats/worked_example.pgn",
            "--out",
            out.to_str().unwrap(),
            "--standings-budget",
            "1",
        ],
        &missing,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot create a temporary file in"),
        "{}",
        stderr(&o)
    );
    // Without spilling, no temporary file is needed.
    let o = pgnkit_with_tmpdir(
        &[
            "stats",
            "testdata/stats/worked_example.pgn",
            "--out",
            out.to_str().unwrap(),
        ],
        &missing,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Games lichess-style, each its own event (`Site` is the game's address), mixed with a
/// round robin, a Swiss with teams and unknown players, and undated games, so that standings
/// depend on how the event log groups games.
fn many_events_input(games: usize) -> String {
    let mut input = String::new();
    for i in 0..games {
        let (event, site, date) = match i % 4 {
            0 => (
                "Rated Blitz game",
                format!("https://lichess.org/g{i:06}"),
                "2025.05.01",
            ),
            1 => ("Club RR", "Beijing".to_owned(), "2024.03.??"),
            2 => ("Open", "=Site".to_owned(), "????.??.??"),
            _ => (
                "Rated Blitz game",
                format!("https://lichess.org/g{i:06}"),
                "2025.05.02",
            ),
        };
        let (w, b) = match i % 4 {
            1 => (
                format!("R{}", i % 5),
                format!("R{}", (i / 5 + i % 5 + 1) % 5),
            ),
            2 if i % 7 == 0 => ("?".to_owned(), format!("S{}", i % 11)),
            _ => (format!("P{}", i % 13), format!("P{}", (i * 7 + 3) % 13)),
        };
        let (result, moves) = match i % 3 {
            0 => ("1-0", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"),
            1 => ("1/2-1/2", "1. d4 d5 1/2-1/2"),
            _ => ("0-1", "1. f3 e5 2. g4 Qh4# 0-1"),
        };
        let teams = if i % 4 == 2 {
            format!(
                "[WhiteTeam \"T{}\"]\n[BlackTeam \"T{}\"]\n",
                i % 3,
                (i + 1) % 3
            )
        } else {
            String::new()
        };
        input.push_str(&format!(
            "[Event \"{event}\"]\n[Site \"{site}\"]\n[Date \"{date}\"]\n[Round \"{}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{result}\"]\n[WhiteElo \"{}\"]\n{teams}\n{moves}\n\n",
            i / 4,
            1500 + (i % 9) * 50,
        ));
    }
    input
}

/// Standings games spilled to a temporary file in sorted runs, and an event's pairs beyond the
/// budget too (the hidden `--standings-budget`), give the reports of a run that keeps them in
/// memory, for `stats`, `--tiebreak` and `stats merge`; nothing is left in `TMPDIR`.
#[test]
fn spilled_event_runs_give_the_same_reports() {
    let spill = Spill::new("event_spill", "events.pgn", many_events_input(600));
    let in_memory = spill.stats("memory", &[]);
    let standings = &in_memory[1].1;
    assert!(
        standings.contains("https://lichess.org/g000599"),
        "{standings}"
    );
    assert!(standings.contains(",teams,"), "{standings}");
    assert!(standings.contains(",round robin,"), "{standings}");
    let forced = spill.stats("buchholz", &["--tiebreak", "buchholz"]);
    assert_eq!(
        spill.stats(
            "buchholz1",
            &["--tiebreak", "buchholz", "--standings-budget", "1"]
        ),
        forced
    );
    spill.assert_option_changes_nothing(
        "--standings-budget",
        &["1", "64", "2000"],
        &in_memory,
        "100",
        &["1", "300"],
    );
}

/// A partial result of an older format (version 2 kept sums per event in its last line) is
/// refused with the message that says how to write one.
#[test]
fn partials_of_an_older_version_are_refused() {
    let dir = scratch("old_partial");
    let part = dir.join("old.jsonl");
    std::fs::write(
        &part,
        "{\"header\":{\"format\":\"pgnkit-stats-partial\",\"version\":2,\"opening_plies\":0}}\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = pgnkit(&[
        "stats",
        "merge",
        part.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a partial result of this pgnkit version"),
        "{}",
        stderr(&o)
    );
}

/// A damaged line of a partial result stops the merge and names the line.
#[test]
fn a_damaged_event_line_is_refused() {
    let dir = scratch("damaged_partial");
    let part = dir.join("part.jsonl");
    pgnkit_ok(&[
        "stats",
        "testdata/stats/worked_example.pgn",
        "--partial",
        part.to_str().unwrap(),
    ]);
    let text = String::from_utf8(read(&part)).unwrap();
    let at = text
        .lines()
        .position(|l| l.starts_with("{\"event\":"))
        .expect("an event line");
    let damaged: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == at {
                l.replace("\"score\":\"", "\"score\":\"X")
            } else {
                l.to_owned()
            }
        })
        .collect();
    std::fs::write(&part, damaged.join("\n") + "\n").unwrap();
    let o = pgnkit(&[
        "stats",
        "merge",
        part.to_str().unwrap(),
        "--report",
        "standings",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let message = stderr(&o);
    assert!(
        message.contains(&format!("line {}: damaged partial result", at + 1)),
        "{message}"
    );
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let dir = scratch("refused_options");
    let partial = dir.join("part.jsonl");
    let partial = partial.to_str().unwrap();
    let file = "testdata/stats/worked_example.pgn";
    let cases: &[(&[&str], &str)] = &[
        (
            &["--report", "games", "--tiebreak", "buchholz"],
            "--tiebreak shapes standings.csv only",
        ),
        (
            &["--report", "standings", "--initial-elo", "1200"],
            "--initial-elo shapes players.csv only",
        ),
        (
            &["--partial", partial, "--tiebreak", "buchholz"],
            "--tiebreak shapes standings.csv only",
        ),
        (
            &["--report", "players", "--opening-plies", "4"],
            "--opening-plies shapes openings.csv only",
        ),
        (
            &["--partial", partial, "--excel"],
            "--excel applies to CSV reports, and this run writes none",
        ),
        (
            &["--partial", partial, "--raw-csv"],
            "--raw-csv applies to CSV reports, and this run writes none",
        ),
    ];
    for (extra, why) in cases {
        let mut args = vec!["stats", file];
        args.extend_from_slice(extra);
        let o = pgnkit(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{extra:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{extra:?}");
        assert!(
            !Path::new(partial).exists(),
            "{extra:?}: wrote the partial file"
        );
    }
    // `stats merge` refuses them alike.
    pgnkit_ok(&["stats", file, "--partial", partial, "-q"]);
    let o = pgnkit(&[
        "stats",
        "merge",
        partial,
        "--report",
        "summary",
        "--initial-elo",
        "1200",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--initial-elo shapes players.csv only"),
        "{}",
        stderr(&o)
    );
}

/// A directory holding the reports of an earlier run, each saying so.
fn old_reports(test: &str) -> PathBuf {
    let dir = scratch(test);
    for report in REPORTS {
        std::fs::write(dir.join(report), format!("old {report}\n")).unwrap();
    }
    dir
}

/// Every report is still the earlier run's, and nothing else is in the directory.
fn assert_old_reports_kept(dir: &Path) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = REPORTS.iter().map(|r| r.to_string()).collect();
    want.sort();
    assert_eq!(names, want, "no temporary file left in {}", dir.display());
    for report in REPORTS {
        assert_eq!(
            String::from_utf8(read(&dir.join(report))).unwrap(),
            format!("old {report}\n"),
            "{report} was replaced"
        );
    }
}

/// A full disk under one output (here the partial result) replaces no report: the reports
/// go into place all together or not at all.
#[test]
fn a_full_disk_replaces_no_report() {
    let dir = old_reports("full_disk");
    let o = stats_out(
        &["testdata/stats/worked_example.pgn"],
        &dir,
        &["--partial", "/dev/full"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("No space left"), "{}", stderr(&o));
    assert_old_reports_kept(&dir);
    let o = pgnkit(&[
        "stats",
        "testdata/stats/worked_example.pgn",
        "--report",
        "games",
        "-o",
        "/dev/full",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// A report that cannot be put in place (a directory took its name) stops every other one.
#[test]
fn a_report_that_cannot_be_replaced_stops_them_all() {
    let dir = old_reports("blocked_report");
    std::fs::remove_file(dir.join("summary.csv")).unwrap();
    std::fs::create_dir(dir.join("summary.csv")).unwrap();
    let o = stats_out(&["testdata/stats/worked_example.pgn"], &dir, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    assert_eq!(read(&dir.join("games.csv")), b"old games.csv\n");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 6);
}

/// An input that cannot be read leaves the earlier reports: new ones would lack its games.
#[test]
fn an_unreadable_input_replaces_no_report() {
    let dir = old_reports("unreadable_input");
    let o = stats_out(
        &[
            "testdata/stats/worked_example.pgn",
            "testdata/stats/no-such-file.pgn",
        ],
        &dir,
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no report was written"),
        "{}",
        stderr(&o)
    );
    assert_old_reports_kept(&dir);
}

/// Ctrl-C while `stats` waits for a slow input: it says so, exits 130 and writes no report
/// over the earlier ones (no partial result either).
#[cfg(unix)]
#[test]
fn an_interrupted_run_writes_no_report() {
    use std::io::Write;
    let dir = old_reports("interrupted");
    let part = dir.join("part.jsonl");
    std::fs::write(&part, "old part\n").unwrap();
    let games = String::from_utf8(read(Path::new("testdata/stats/worked_example.pgn"))).unwrap();
    let mut child = common::spawn(&[
        "stats",
        "-",
        "-j",
        "2",
        "--out",
        dir.to_str().unwrap(),
        "--partial",
        part.to_str().unwrap(),
    ]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(games.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Ctrl-C while the input is still open, once the run has begun writing (its Ctrl-C
    // handler is set before any output is created).
    let started = std::time::Instant::now();
    let begun = || {
        std::fs::read_dir(&dir).unwrap().any(|e| {
            let name = e.unwrap().file_name();
            name.to_string_lossy().starts_with(".games.csv.pgnkit-")
        })
    };
    while !begun() {
        assert!(started.elapsed().as_secs() < 30, "no temporary games.csv");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    std::thread::sleep(std::time::Duration::from_millis(200));
    // The reader is still waiting for input: more comes, then the end.
    let _ = stdin.write_all(games.as_bytes());
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted: "), "{}", stderr(&o));
    assert_eq!(
        read(&part),
        b"old part\n",
        "the partial result was replaced"
    );
    std::fs::remove_file(&part).unwrap();
    assert_old_reports_kept(&dir);
}

/// An online arena (`Event` gives its address, `Site` each game's) is one table, even across
/// the new year; casual games of the same server (`Site` each game's address, no round) are
/// not a tournament: no table, and stderr says how many games were left out. They are still
/// events of `summary.csv`. The same with `--tiebreaks` and through `stats merge`.
#[test]
fn an_online_arena_is_one_table_and_casual_games_none() {
    let dir = scratch("arena");
    let o = stats_ok(&["testdata/stats/arena.pgn"], &dir, &[]);
    let note = "pgnkit: 2 casual online game(s) left out of standings.csv: not a tournament";
    assert!(stderr(&o).contains(note), "{}", stderr(&o));
    let standings = dir.join("standings.csv");
    let arena = "Rated Blitz tournament https://lichess.org/tournament/Ab12Cd34";
    let rows: Vec<String> = records(&standings)[1..]
        .iter()
        .map(|r| format!("{},{},{},{}", r[1], r[2], r[7], r[12]))
        .collect();
    assert_eq!(
        rows,
        [
            "https://lichess.org,,Ann,2",
            "https://lichess.org,,Cid,1.5",
            "https://lichess.org,,Dan,0.5",
            "https://lichess.org,,Bob,0",
        ]
    );
    assert!(column(&standings, "event").iter().all(|e| e == arena));
    let summary = records(&dir.join("summary.csv"));
    assert!(summary.contains(&vec!["events".to_owned(), "3".to_owned()]));

    let o = pgnkit_ok(&[
        "stats",
        "testdata/stats/arena.pgn",
        "--report",
        "standings",
        "--tiebreaks",
        "BH",
    ]);
    let report = Report::parse(&o.stdout);
    assert_eq!(report.records.len(), 4, "the arena's players only");
    assert!(stderr(&o).contains(note), "{}", stderr(&o));

    let part = dir.join("arena.part");
    let merged = scratch("arena_merged");
    stats_ok(
        &["testdata/stats/arena.pgn"],
        &dir,
        &["-q", "--partial", part.to_str().unwrap()],
    );
    let o = pgnkit_ok(&[
        "stats",
        "merge",
        part.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(stderr(&o).contains(note), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(merged.join("standings.csv")).unwrap(),
        std::fs::read(&standings).unwrap()
    );
}

/// A decisive game without moves is a forfeit for `--tiebreaks`, and stderr says how many
/// were taken so (not the bye's game) and how to count them as played;
/// `--played-without-moves` counts them as played and says nothing.
#[test]
fn moveless_games_taken_as_forfeits_are_told_and_can_count_as_played() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "stats",
            "testdata/stats/moveless.pgn",
            "--report",
            "standings",
            "--tiebreaks",
            "WON,WIN",
        ];
        args.extend_from_slice(extra);
        let o = pgnkit_ok(&args);
        let report = Report::parse(&o.stdout);
        let at = |name: &str| report.header.iter().position(|h| h == name).unwrap();
        let won: Vec<String> = report
            .records
            .iter()
            .map(|r| format!("{}:{}", &r[at("player")], &r[at("WON")]))
            .collect();
        (won, stderr(&o))
    };
    let note = "pgnkit: --tiebreaks counted 3 decisive game(s) without moves as forfeits";
    let (won, err) = run(&[]);
    assert_eq!(won, ["C:0", "A:0", "B:0", "E:0", "D:0"]);
    assert!(err.contains(note), "{err}");
    assert!(err.contains("give --played-without-moves"), "{err}");
    let (won, err) = run(&["--played-without-moves"]);
    assert_eq!(won, ["C:1", "A:1", "B:1", "E:0", "D:0"]);
    assert!(!err.contains("without moves"), "{err}");
    // Only with --tiebreaks: without it forfeits change nothing.
    let o = pgnkit(&[
        "stats",
        "testdata/stats/moveless.pgn",
        "--report",
        "standings",
        "--played-without-moves",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `--tiebreaks` on a PGN Swiss (a bye, a forfeit by `Termination`, a withdrawal, a
/// half-point bye, one player under two spellings of one `WhiteFideId`) gives the
/// hand-computed tables of the same event in `testdata/stats/tiebreaks/swiss.*.tsv`.
#[test]
fn tiebreaks_rank_a_pgn_swiss_as_the_worked_example() {
    let dir = Path::new("testdata/stats/tiebreaks");
    let mut checked = 0;
    for table in ["worldcup", "de", "others"] {
        let path = dir.join(format!("swiss.{table}.tsv"));
        let rows = tsv_rows(&path);
        let list = rows[0][3..].join(",");
        let o = pgnkit_ok(&[
            "stats",
            "testdata/stats/tiebreaks/swiss.pgn",
            "--report",
            "standings",
            "--tiebreaks",
            &list,
        ]);
        let report = Report::parse(&o.stdout);
        let first = report.header.iter().position(|h| h == "points").unwrap();
        assert_eq!(
            report.header[first + 1..],
            rows[0][3..],
            "{table}: one column a tie-break"
        );
        let values: Vec<usize> = (first..report.header.len()).collect();
        // Place and player as printed; the values with an empty cell as the tables' `-`.
        let got: Vec<Vec<String>> = report
            .records
            .iter()
            .map(|r| {
                let mut row = vec![r[6].to_owned(), r[7].to_owned()];
                row.extend(cells(r, &values));
                row
            })
            .collect();
        assert_eq!(
            got.len(),
            rows.len() - 1,
            "{table}: players (D is one player)"
        );
        for (g, want) in got.iter().zip(&rows[1..]) {
            assert_eq!(g, want, "{table}");
        }
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn tiebreaks_refuse_an_unknown_name_listing_the_known_ones() {
    let o = pgnkit(&[
        "stats",
        "testdata/stats/tiebreaks/swiss.pgn",
        "--report",
        "standings",
        "--tiebreaks",
        "BH,XYZ",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let message = stderr(&o);
    assert!(
        message.contains("tie-break `XYZ`: unknown system"),
        "{message}"
    );
    assert!(message.contains("ARO, TPR, PTP, APRO, APPO"), "{message}");
}

#[test]
fn partial_runs_and_merge_say_what_the_other_commands_say_and_obey_quiet() {
    let dir = std::env::temp_dir().join(format!("pgnkit-partial-tail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let part = dir.join("a.jsonl");
    let part = part.to_str().unwrap();
    let input = "testdata/input/chinese-gbk-badbyte.pgn";
    let tail = |err: &str| -> Vec<String> {
        err.lines()
            .filter(|l| l.starts_with("pgnkit: ") && !l.contains("MB/s"))
            .map(str::to_owned)
            .collect()
    };
    let validate = stderr(&pgnkit(&["validate", input]));
    let partial = stderr(&pgnkit(&["stats", "--partial", part, input]));
    assert!(!tail(&validate).is_empty(), "{validate}");
    assert_eq!(tail(&partial), tail(&validate), "{partial}");
    // Quiet: the input's diagnostic stays, no summary line.
    let quiet = stderr(&pgnkit(&["stats", "--partial", part, "-q", input]));
    assert!(quiet.contains("error[P027]"), "{quiet}");
    assert!(!quiet.contains("pgnkit: "), "{quiet}");
    let merged = pgnkit(&["stats", "merge", "--report", "summary", part]);
    assert!(stderr(&merged).contains("pgnkit: merged 1 part(s): 1 game(s)"));
    let merged = pgnkit(&["stats", "merge", "--report", "summary", "-q", part]);
    assert_eq!(stderr(&merged), "");
    assert!(
        String::from_utf8_lossy(&merged.stdout).contains("games,1"),
        "{}",
        String::from_utf8_lossy(&merged.stdout)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--team-tiebreaks` on a four-team round robin of four boards (drawn matches, a board won
/// by forfeit) gives the hand-computed team tables in `testdata/stats/teams/league.*.tsv`,
/// whose header names the columns to compare; the player rows are those of `--tiebreaks`.
#[test]
fn team_tiebreaks_rank_the_team_table_by_match_points_then_the_list() {
    let dir = Path::new("testdata/stats/teams");
    let mut checked = 0;
    for table in ["fide", "sb"] {
        let path = dir.join(format!("league.{table}.tsv"));
        let rows = tsv_rows(&path);
        let list: Vec<&str> = rows[0][7..]
            .iter()
            .map(|h| h.strip_prefix("team:").unwrap())
            .collect();
        let report = common::team_standings("testdata/stats/teams/league.pgn", &list);
        let at = report.columns(&rows[0]);
        let teams: Vec<Vec<String>> = report.of_kind("teams").map(|r| cells(r, &at)).collect();
        assert_eq!(teams, rows[1..], "{table}");
        for r in report.of_kind("teams") {
            assert_eq!(&r[5], format!("match points,{}", list.join(",")));
        }
        // Sixteen players, each with the BH column and no team value.
        let players: Vec<&csv::StringRecord> = report.of_kind("players").collect();
        assert_eq!(players.len(), 16, "{table}");
        assert!(players
            .iter()
            .all(|r| at[7..].iter().all(|&i| r[i].is_empty())));
        checked += 1;
    }
    assert_eq!(checked, 2);
}

/// Without `--team-tiebreaks` the team table stays in game points; the option needs
/// `--tiebreaks` and refuses what teams do not take.
#[test]
fn team_tiebreaks_are_asked_for_and_checked() {
    let o = pgnkit_ok(&[
        "stats",
        "testdata/stats/teams/league.pgn",
        "--report",
        "standings",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    let teams: Vec<&str> = text.lines().filter(|l| l.contains(",teams,")).collect();
    let shown: Vec<String> = teams
        .iter()
        .map(|l| l.split(',').skip(5).take(8).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(
        shown,
        [
            "game points,1-2,Lions,12,,,,6.5",
            "game points,1-2,Tigers,12,,,,6.5",
            "game points,3,Bears,12,,,,6",
            "game points,4,Wolves,12,,,,5"
        ],
        "{text}"
    );
    let o = pgnkit(&[
        "stats",
        "testdata/stats/teams/league.pgn",
        "--report",
        "standings",
        "--team-tiebreaks",
        "GP",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--tiebreaks"), "{}", stderr(&o));
    let o = pgnkit(&[
        "stats",
        "testdata/stats/teams/league.pgn",
        "--report",
        "standings",
        "--tiebreaks",
        "BH",
        "--team-tiebreaks",
        "GP,TPR",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let message = stderr(&o);
    assert!(
        message.contains("team tie-break `TPR`: TPR is not a team tie-break"),
        "{message}"
    );
}

#[test]
fn dates_off_the_standard_are_read_as_far_as_they_can_be() {
    let dir = scratch("dates");
    let o = stats_out(&["testdata/stats/dates.pgn"], &dir, &[]);
    assert!(o.status.code().unwrap() < 2, "{}", stderr(&o));
    let players = dir.join("players.csv");
    let first: std::collections::HashMap<String, String> = column(&players, "player")
        .into_iter()
        .zip(column(&players, "first_date"))
        .collect();
    for (player, date) in [
        ("P1", "2024.03.07"),
        ("P2", "2024.03.17"),
        ("P3", "2024.??.??"),
        ("P4", "2024.03.??"),
        ("P5", ""),
        ("P6", "2024.??.??"),
        ("P7", "2024.03.??"),
        ("P8", "2024.03.17"),
    ] {
        assert_eq!(first[player], date, "{player}");
    }
}

/// `--initial-elo` takes a number from 0 to 4000 and `--opening-plies` 0 to 1000: `nan` or
/// `inf` once made every rating in players.csv `NaN`. Outside the range is a bad argument
/// (exit 2) that names it, and no report is written.
#[test]
fn numeric_options_outside_their_range_are_refused() {
    let input = "testdata/validate/two-games.pgn";
    let bad = [
        ["--initial-elo=nan", "0..=4000"],
        ["--initial-elo=inf", "0..=4000"],
        ["--initial-elo=-1", "0..=4000"],
        ["--initial-elo=4000.5", "0..=4000"],
        ["--initial-elo=x", "not a number"],
        ["--opening-plies=1001", "0..=1000"],
    ];
    for [option, says] in bad {
        let out = scratch("numeric-range");
        let o = pgnkit(&["stats", "-q", option, "--out", out.to_str().unwrap(), input]);
        assert_eq!(o.status.code(), Some(2), "{option}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{option}: {}", stderr(&o));
        assert!(!out.join("players.csv").exists(), "{option}");
    }
    for option in [
        "--initial-elo=0",
        "--initial-elo=4000",
        "--opening-plies=1000",
    ] {
        let out = scratch("numeric-range");
        // The file's second game has an illegal move: exit 1, problems found.
        let o = pgnkit(&["stats", "-q", option, "--out", out.to_str().unwrap(), input]);
        assert_eq!(o.status.code(), Some(1), "{option}: {}", stderr(&o));
        let players = String::from_utf8(read(&out.join("players.csv"))).unwrap();
        assert!(!players.contains("NaN"), "{option}: {players}");
    }
}
