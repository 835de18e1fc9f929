//! Opening classification run as a user runs it: `convert --add-eco` (keep and overwrite, every
//! format with tags, `--eco-table` in both formats), `validate --notes` (N012) and the cases
//! the rule exists for (transpositions, the side to move, en passant, games past the table).
//!
//! The games of `testdata/eco/*.pgn` say what they expect in tags: `ExpectECO`,
//! `ExpectOpening` (both absent: not classified) and `ExpectPly`, the ply of the position.

mod common;

use common::{pgnkit, stderr, stdout};
use serde_json::Value;

const GAMES: &str = "testdata/eco/games.pgn";
const EN_PASSANT: &str = "testdata/eco/en-passant.pgn";
const TAGGED: &str = "testdata/eco/tagged.pgn";
const UNKNOWN: &str = "testdata/eco/unknown-tags.pgn";

/// Runs pgnkit and insists on exit status 0.
fn run(args: &[&str], stdin: Option<&[u8]>) -> String {
    let o = pgnkit(args, stdin);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The games of `convert --format jsonl` output, as JSON.
fn records(jsonl: &str) -> Vec<Value> {
    jsonl
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn tag<'a>(game: &'a Value, name: &str) -> Option<&'a str> {
    game["tags"][name].as_str()
}

/// Every game of `file` gets the ECO and Opening tags it expects.
fn check_expected(file: &str, extra: &[&str]) {
    let mut args = vec!["convert", "-q", "--add-eco", "--format", "jsonl", file];
    args.extend_from_slice(extra);
    let games = records(&run(&args, None));
    assert!(games.len() > 1, "{file}");
    for g in &games {
        let event = tag(g, "Event").unwrap_or("?");
        assert_eq!(tag(g, "ECO"), tag(g, "ExpectECO"), "{file}: {event}");
        assert_eq!(
            tag(g, "Opening"),
            tag(g, "ExpectOpening"),
            "{file}: {event}"
        );
    }
}

#[test]
fn each_game_is_named_by_its_deepest_named_position() {
    check_expected(GAMES, &[]);
}

/// `[ECO "?"]`, as lichess writes it for games it does not classify, is no code: `convert`
/// fills it, `validate --notes` has nothing to check, `stats --add-eco` classifies the game.
#[test]
fn a_question_mark_tag_counts_as_missing() {
    check_expected(UNKNOWN, &[]);
    let o = pgnkit(&["validate", "-q", "--notes", UNKNOWN], None);
    assert!(!stdout(&o).contains("N012"), "{}", stdout(&o));
    let rows = openings(&["--add-eco", UNKNOWN]);
    let keys: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(keys, ["?", "B20", "C60"]);
}

#[test]
fn en_passant_counts_only_when_the_capture_is_legal() {
    check_expected(EN_PASSANT, &["--eco-table", "testdata/eco/en-passant.tsv"]);
}

#[test]
fn an_eco_pgn_table_reads_as_the_same_table_in_tsv() {
    check_expected(
        EN_PASSANT,
        &["--eco-table", "testdata/eco/en-passant-eco.pgn"],
    );
}

/// The games of `file`, each that expects a classification with `[ECO "Z99"]` (a code no
/// table has).
fn with_wrong_eco(file: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(file).expect("test data");
    text.replace("\n[ExpectECO", "\n[ECO \"Z99\"]\n[ExpectECO")
        .into_bytes()
}

#[test]
fn n012_names_the_code_and_the_ply_where_the_game_reaches_it() {
    for (file, table) in [
        (GAMES, None),
        (EN_PASSANT, Some("testdata/eco/en-passant.tsv")),
    ] {
        let input = with_wrong_eco(file);
        let mut args = vec!["validate", "-q", "--notes", "--format", "json", "-"];
        if let Some(t) = table {
            args.extend(["--eco-table", t]);
        }
        let out = run(&args, Some(&input));
        let notes: Vec<Value> = records(&out)
            .into_iter()
            .filter(|f| f["code"] == "N012")
            .collect();
        let games = records(&run(
            &["convert", "-q", "--format", "jsonl", "-"],
            Some(&input),
        ));
        let expected: Vec<_> = games
            .iter()
            .filter_map(|g| Some((tag(g, "ExpectECO")?, tag(g, "ExpectPly")?)))
            .collect();
        assert_eq!(notes.len(), expected.len(), "{file}: {out}");
        for (note, (eco, ply)) in notes.iter().zip(expected) {
            let message = note["message"].as_str().unwrap();
            assert!(
                message.starts_with("ECO tag \"Z99\" disagrees"),
                "{message}"
            );
            assert!(
                message.contains(&format!("reach {eco} ")),
                "{file}: {message}"
            );
            assert!(message.contains(&format!("at ply {ply} ")), "{message}");
        }
    }
}

#[test]
fn n012_is_a_note_only_for_a_tag_that_disagrees() {
    let o = pgnkit(&["validate", "--notes", TAGGED], None);
    // A note is not a problem: the exit status stays 0.
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("note[N012]").count(), 1, "{out}");
    assert!(out.contains("ECO tag \"A00\" disagrees with the moves: they reach C60 \"Ruy Lopez\" at ply 5 (3.Bb5)"), "{out}");
    assert!(out.contains("--add-eco --eco-overwrite"), "{out}");
    // Without --notes, no classification at all.
    let quiet = run(&["validate", TAGGED], None);
    assert!(!quiet.contains("N012"), "{quiet}");
}

#[test]
fn existing_tags_are_kept_unless_overwritten() {
    let kept = records(&run(
        &["convert", "-q", "--add-eco", "--format", "jsonl", TAGGED],
        None,
    ));
    assert_eq!(tag(&kept[0], "ECO"), Some("A00"));
    assert_eq!(tag(&kept[0], "Opening"), Some("Something else"));
    // An ECO tag of the classified code gets its name.
    assert_eq!(tag(&kept[1], "ECO"), Some("C70"));
    assert_eq!(tag(&kept[1], "Opening"), Some("Ruy Lopez: Morphy Defense"));
    let replaced = run(
        &["convert", "-q", "--add-eco", "--eco-overwrite", TAGGED],
        None,
    );
    let first = replaced.split("\n\n[Event").next().unwrap();
    assert!(
        first.contains("[ECO \"C60\"]\n[Opening \"Ruy Lopez\"]"),
        "{first}"
    );
    assert!(!replaced.contains("A00") && !replaced.contains("Something else"));
}

#[test]
fn pgn_and_csv_get_the_tags_too() {
    let pgn = run(&["convert", "-q", "--add-eco", GAMES], None);
    assert!(
        pgn.contains(
            "[ECO \"B90\"]\n[Opening \"Sicilian Defense: Najdorf Variation, Petronić Attack\"]\n"
        ),
        "{pgn}"
    );
    let csv = run(
        &["convert", "-q", "--add-eco", "--format", "csv", TAGGED],
        None,
    );
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",nags,eco,opening"));
    assert!(
        lines.next().unwrap().ends_with(",A00,Something else"),
        "{csv}"
    );
    // Without --add-eco the columns stay as they were.
    let plain = run(&["convert", "-q", "--format", "csv", TAGGED], None);
    assert!(plain.lines().next().unwrap().ends_with(",nags"));
}

#[test]
fn without_add_eco_no_tag_is_written() {
    let out = run(&["convert", "-q", GAMES], None);
    assert!(!out.contains("[ECO "), "{out}");
}

#[test]
fn eco_options_that_do_not_apply_are_refused() {
    for args in [
        &["convert", "--eco-overwrite", GAMES][..],
        &[
            "convert",
            "--eco-table",
            "testdata/eco/en-passant.tsv",
            GAMES,
        ],
        &["convert", "--add-eco", "--format", "epd", GAMES],
        &[
            "validate",
            "--eco-table",
            "testdata/eco/en-passant.tsv",
            GAMES,
        ],
    ] {
        let o = pgnkit(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("add") || stderr(&o).contains("use"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_broken_table_names_its_line() {
    let o = pgnkit(
        &[
            "convert",
            "--add-eco",
            "--eco-table",
            "testdata/eco/broken.tsv",
            GAMES,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("broken.tsv:line 3: \"Nf6\" is not legal here"),
        "{err}"
    );
}

/// The rows of `stats --report openings` as (key, games, name).
fn openings(args: &[&str]) -> Vec<(String, String, String)> {
    let mut all = vec!["stats", "-q", "--report", "openings"];
    all.extend_from_slice(args);
    let out = run(&all, None);
    let mut lines = out.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("opening,games,") && header.ends_with(",average_plies,name"));
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            let name = cells[8..].join(",");
            (cells[0].to_owned(), cells[1].to_owned(), name)
        })
        .collect()
}

#[test]
fn stats_groups_untagged_games_by_classification_with_add_eco() {
    let plain = openings(&[GAMES]);
    // Without --add-eco, games without an ECO tag are `?`, as before.
    assert_eq!(plain, [("?".into(), "8".into(), String::new())]);
    let classified = openings(&["--add-eco", GAMES]);
    let row = |key: &str| classified.iter().find(|r| r.0 == key).cloned();
    // The line and its transposition are one opening; the game from a FEN that reaches no
    // named position stays `?`.
    assert_eq!(
        row("C60"),
        Some(("C60".into(), "2".into(), "Ruy Lopez".into()))
    );
    assert_eq!(row("?").map(|r| r.1), Some("1".into()));
    let games: u32 = classified.iter().map(|r| r.1.parse::<u32>().unwrap()).sum();
    assert_eq!(games, 8);
    // An ECO tag is kept as the key; its name comes from the table.
    let tagged = openings(&["--add-eco", TAGGED]);
    assert!(tagged.contains(&("C70".into(), "1".into(), "Ruy Lopez: Morphy Defense".into())));
    // A00 gathers unrelated openings: no one name.
    assert!(tagged.contains(&("A00".into(), "1".into(), String::new())));
}

/// The classified keys of openings.csv are the same for any --jobs, and for parts written
/// with --partial and merged: each part classified its own games.
#[test]
fn stats_classification_is_the_same_with_jobs_and_merged_parts() {
    let openings = |jobs: &str| {
        run(
            &[
                "stats",
                "-q",
                "-j",
                jobs,
                "--add-eco",
                "--report",
                "openings",
                GAMES,
                UNKNOWN,
            ],
            None,
        )
    };
    let (one, two) = (openings("1"), openings("2"));
    assert_eq!(one, two);
    assert!(one.contains("\nC60,3,"), "{one}");
    let dir = common::scratch("eco/merge");
    let parts: Vec<String> = [GAMES, UNKNOWN]
        .iter()
        .enumerate()
        .map(|(i, file)| {
            let part = dir.join(format!("{i}.part")).to_str().unwrap().to_owned();
            run(
                &["stats", "-q", "--add-eco", "--partial", &part, file],
                None,
            );
            part
        })
        .collect();
    let mut merge = vec!["stats", "merge", "-q", "--report", "openings"];
    merge.extend(parts.iter().map(String::as_str));
    assert_eq!(run(&merge, None), one);
}

#[test]
fn stats_names_opening_lines_by_the_position_they_reach() {
    let rows = openings(&["--opening-plies", "4", GAMES]);
    let name = |key: &str| rows.iter().find(|r| r.0 == key).map(|r| r.2.clone());
    assert_eq!(
        name("Nf3 Nc6 e4 e5").as_deref(),
        Some("King's Knight Opening: Normal Variation")
    );
    assert_eq!(
        name("e3 e5 e4 Nf6").as_deref(),
        Some("Van't Kruijs Opening")
    );
}
