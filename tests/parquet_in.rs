//! Parquet as input, run as a user runs it: the games of `testdata/parquet/games.pgn` written
//! as Parquet in the lichess schema (by `testdata/parquet/make.py`) give the same verdicts,
//! the same converted output and the same statistics as the PGN, apart from the file's name
//! and the places; damaged files are reported and the run goes on.

use std::path::{Path, PathBuf};

mod common;

use common::{pgnkit, stderr, stdout};

const DIR: &str = "testdata/parquet";

fn at(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// The JSON lines of an output with the places taken out (`file`, `line`, `column`, and the
/// game's number where `numbers` is false).
fn without_places(out: &str, numbers: bool) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let o = v.as_object_mut().expect("an object");
            for key in ["file", "line", "column"] {
                o.remove(key);
            }
            if !numbers {
                o.remove("game");
            }
            v
        })
        .collect()
}

fn validate_json(path: &str, jobs: &str) -> (String, Option<i32>) {
    validate_json_with(path, jobs, &[])
}

/// [`validate_json`] with more options.
fn validate_json_with(path: &str, jobs: &str, extra: &[&str]) -> (String, Option<i32>) {
    let mut args = vec![
        "validate",
        "-q",
        "-j",
        jobs,
        "--format",
        "json",
        "--game-records",
    ];
    args.extend_from_slice(extra);
    args.push(path);
    let o = pgnkit(&args, None);
    (stdout(&o), o.status.code())
}

#[test]
fn the_same_games_as_parquet_and_as_pgn_get_the_same_verdicts() {
    let (pgn, pgn_code) = validate_json(&at("games.pgn"), "1");
    let (parquet, parquet_code) = validate_json(&at("games.parquet"), "1");
    assert!(
        pgn.contains("\"M001\""),
        "the PGN has an illegal move: {pgn}"
    );
    assert_eq!(without_places(&parquet, true), without_places(&pgn, true));
    assert_eq!(parquet_code, pgn_code);
    // A Hive-partitioned dataset is its files in path order: the same games (numbered per
    // file) and verdicts.
    let (dataset, _) = validate_json(&at("dataset"), "1");
    assert_eq!(without_places(&dataset, false), without_places(&pgn, false));
}

#[test]
fn a_diagnostic_names_the_row_and_the_place_in_the_movetext() {
    let (pgn, _) = validate_json(&at("games.pgn"), "1");
    let (parquet, _) = validate_json(&at("games.parquet"), "1");
    let illegal = |out: &str| -> serde_json::Value {
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["code"] == "M001")
            .expect("an illegal move")
    };
    let (in_pgn, in_parquet) = (illegal(&pgn), illegal(&parquet));
    // Rows count from 0 (as pyarrow and DuckDB do): game 2 is row 1.
    let row = in_parquet["game"].as_u64().unwrap() - 1;
    assert_eq!(
        in_parquet["file"],
        format!("{}:row {row}", at("games.parquet"))
    );
    // Line 2 of a row is its movetext; the column is the one in the PGN's movetext line.
    assert_eq!(in_parquet["line"], 2);
    assert_eq!(in_parquet["column"], in_pgn["column"]);
    let text = stdout(&pgnkit(&["validate", &at("games.parquet")], None));
    let place = format!(
        "--> {}:row {row}:2:{}",
        at("games.parquet"),
        in_pgn["column"]
    );
    assert!(text.contains(&place), "{place} in {text}");
}

#[test]
fn the_same_games_as_parquet_and_as_pgn_convert_alike() {
    for format in ["jsonl", "pgn", "csv", "epd"] {
        let convert = |path: &str| {
            let o = pgnkit(&["convert", "-q", "--format", format, path], None);
            (stdout(&o), o.status.code())
        };
        let (pgn, pgn_code) = convert(&at("games.pgn"));
        let (parquet, parquet_code) = convert(&at("games.parquet"));
        assert!(!pgn.is_empty(), "{format}");
        assert_eq!(parquet_code, pgn_code, "{format}");
        if format == "jsonl" {
            assert_eq!(without_places(&parquet, true), without_places(&pgn, true));
        } else {
            // The file's name, where a format has it, is the only difference.
            let parquet = regex_free_rows(&at("games.parquet"))(&parquet);
            let pgn = pgn.replace(&at("games.pgn"), "FILE");
            assert_eq!(parquet, pgn, "{format}");
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pgnkit-parquet-in-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every report of `stats --out`, by name, with the inputs' names taken out.
fn stats_reports(input: &str, out: &Path) -> Vec<(String, String)> {
    let o = pgnkit(
        &["stats", "-q", "--out", out.to_str().unwrap(), input],
        None,
    );
    assert!(o.status.code().is_some(), "{}", stderr(&o));
    let mut names: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let row = regex_free_rows(input);
    names
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let mut text = row(&std::fs::read_to_string(p).unwrap());
            if name == "games.csv" {
                // Its third column is the game's line: a place.
                text = text
                    .lines()
                    .map(|l| {
                        let mut cells: Vec<&str> = l.splitn(4, ',').collect();
                        cells[2] = "LINE";
                        cells.join(",") + "\n"
                    })
                    .collect();
            }
            (name, text)
        })
        .collect()
}

/// Takes the input's name (and a Parquet input's `:row N`) out of a report.
fn regex_free_rows(input: &str) -> impl Fn(&str) -> String + '_ {
    move |text: &str| {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(input) {
            out.push_str(&rest[..i]);
            out.push_str("FILE");
            rest = &rest[i + input.len()..];
            if let Some(after) = rest.strip_prefix(":row ") {
                rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
            }
        }
        out.push_str(rest);
        out
    }
}

#[test]
fn the_same_games_as_parquet_and_as_pgn_give_the_same_statistics() {
    let pgn = stats_reports(&at("games.pgn"), &scratch("stats-pgn"));
    let parquet = stats_reports(&at("games.parquet"), &scratch("stats-parquet"));
    assert!(pgn.len() > 1, "{pgn:?}");
    assert_eq!(parquet, pgn);
}

#[test]
fn jobs_read_parquet_as_one_thread_does() {
    for input in ["games.parquet", "dataset", "damaged.parquet"] {
        let (one, _) = validate_json(&at(input), "1");
        let (three, _) = validate_json(&at(input), "3");
        assert!(!one.is_empty(), "{input}");
        assert_eq!(three, one, "{input}");
    }
}

#[test]
fn a_damaged_parquet_file_is_reported_and_the_run_goes_on() {
    // The footer of a truncated copy is gone: nothing can be located, and it says so; the
    // next file is read.
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "json",
            &at("truncated.parquet"),
            &at("games.parquet"),
        ],
        None,
    );
    let out = stdout(&o);
    assert!(out.contains("\"P030\"") && out.contains("footer"), "{out}");
    assert!(stderr(&o).contains("2 files, 6 games"), "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(1));
    // A row group whose pages are garbage: the next row group is read.
    let o = pgnkit(
        &["validate", "--format", "json", &at("damaged.parquet")],
        None,
    );
    let out = stdout(&o);
    assert!(
        out.contains("\"P032\"") && out.contains("row group 0"),
        "{out}"
    );
    assert!(!out.contains("row group 1"), "{out}");
    assert!(stderr(&o).contains("1 file, 3 games"), "{}", stderr(&o));
    // No movetext column.
    let o = pgnkit(&["validate", &at("no-movetext.parquet")], None);
    assert!(stdout(&o).contains("error[P031]"), "{}", stdout(&o));
    assert!(stdout(&o).contains("--movetext-column"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn other_column_names_are_mapped_and_the_magic_bytes_name_the_format() {
    // `other-columns.bin`: no `.parquet` name, the moves in `moves`, White in `white_player`.
    let o = pgnkit(
        &[
            "convert",
            "-q",
            "--format",
            "jsonl",
            "--movetext-column",
            "moves",
            "--tag-column",
            "White=white_player",
            "--tag-column",
            "WhiteElo=no_such_column",
            &at("other-columns.bin"),
        ],
        None,
    );
    let out = stdout(&o);
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["tags"]["White"], "alpha");
    assert_eq!(first["tags"]["Black"], "beta");
    // `plies` is not a tag name: no tag.
    assert!(first["tags"].get("plies").is_none(), "{first}");
    assert!(stderr(&o).contains("P034"), "{}", stderr(&o));
    // Without the option, the file has no movetext column.
    let o = pgnkit(&["validate", &at("other-columns.bin")], None);
    assert!(stdout(&o).contains("error[P031]"), "{}", stdout(&o));
    // A bad mapping is a usage error.
    let o = pgnkit(
        &["validate", "--tag-column", "nope", &at("games.parquet")],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_variant_is_refused_as_a_variant_tag_is() {
    let o = pgnkit(
        &["validate", "--format", "json", &at("variant.parquet")],
        None,
    );
    let parquet = stdout(&o);
    let pgn = stdout(&pgnkit(
        &["validate", "--format", "json", "-"],
        Some(b"[Variant \"Atomic\"]\n\n1. e4 *\n"),
    ));
    let code = |out: &str| -> Vec<String> {
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["code"].to_string())
            .filter(|c| c.contains('T') && c.contains("008"))
            .collect()
    };
    assert!(!code(&pgn).is_empty(), "{pgn}");
    assert_eq!(code(&parquet), code(&pgn), "{parquet}");
}

/// The fenced blocks of a document that show Parquet inputs of `testdata/parquet/`.
fn parquet_examples(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match current.as_mut() {
            None if line.starts_with("```") => current = Some(String::new()),
            None => {}
            Some(block) if line.starts_with("```") => {
                if block.contains("testdata/parquet/") && block.contains("-->") {
                    blocks.push(std::mem::take(block));
                }
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}

#[test]
fn the_docs_parquet_examples_print_what_they_show() {
    let mut checked = 0;
    for doc in ["docs/inputs.md", "docs/diagnostics.md"] {
        for block in parquet_examples(doc) {
            // A `$ pgnkit` example is run by tests/docs.rs, as every console example is.
            if block.starts_with("$ ") {
                continue;
            }
            // A diagnostic of `validate FILE`: the file is the one it points to.
            let place = block.split("--> ").nth(1).unwrap();
            let file = place.split(':').next().unwrap();
            let (args, shown): (Vec<String>, &str) =
                (vec!["validate".into(), file.into()], block.as_str());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let printed = stdout(&pgnkit(&args, None));
            assert!(
                printed.contains(shown.trim_end()),
                "{doc} shows for {args:?}:\n{shown}\npgnkit printed:\n{printed}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked} examples");
}

#[test]
fn a_parquet_file_on_standard_input_is_named_and_the_help_says_why() {
    let bytes = std::fs::read(at("games.parquet")).unwrap();
    let o = pgnkit(&["validate", "-"], Some(&bytes));
    let out = stdout(&o);
    assert!(
        out.contains("error[P026]") && out.contains("a Parquet file"),
        "{out}"
    );
    assert!(out.contains("by its path"), "{out}");
}

#[test]
fn a_dictionary_text_column_reads_as_text() {
    // `dictionary.parquet`: the first two games, `Opening` dictionary-encoded.
    let convert = |path: &str| {
        let o = pgnkit(&["convert", "-q", "--format", "jsonl", path], None);
        without_places(&stdout(&o), true)
    };
    let (dictionary, plain) = (
        convert(&at("dictionary.parquet")),
        convert(&at("games.parquet")),
    );
    assert!(
        dictionary[0]["tags"]["Opening"].is_string(),
        "{:?}",
        dictionary[0]
    );
    assert_eq!(dictionary[0], plain[0]);
    let dictionary = without_places(&validate_json(&at("dictionary.parquet"), "1").0, true);
    let plain = without_places(&validate_json(&at("games.parquet"), "1").0, true);
    assert!(dictionary.len() >= 2);
    assert_eq!(dictionary[..], plain[..dictionary.len()]);
}

/// A Parquet file in the lichess schema (an `Event` and a `movetext` column) of these rows.
fn write_lichess_parquet(path: &Path, rows: &[(&str, &str)]) {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;

    let events: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0)));
    let movetext: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1)));
    let batch = RecordBatch::try_from_iter([("Event", events), ("movetext", movetext)]).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn a_movetext_of_several_lines_reads_as_in_pgn_and_its_rows_are_placed() {
    // A `;` comment ends at its line's end (`convert --format parquet` writes one so when the
    // comment holds a `}`); a movetext broken at 80 columns; a one-line movetext after them,
    // whose row takes as many lines as theirs in the row text.
    let rows = [
        ("a", "1. e4 ; a } comment\ne5 2. Nf3 Nc6 *"),
        ("b", "1. d4 d5\r\n2. Ke3 *"),
        ("c", "1. e4 e5 2. Ke3 *"),
    ];
    let dir = common::scratch("parquet-lines");
    let parquet = dir.join("lines.parquet");
    write_lichess_parquet(&parquet, &rows);
    let pgn = dir.join("lines.pgn");
    let text: String = rows
        .iter()
        .map(|(event, movetext)| format!("[Event \"{event}\"]\n{movetext}\n\n"))
        .collect();
    std::fs::write(&pgn, text).unwrap();
    let (parquet, pgn) = (parquet.to_str().unwrap(), pgn.to_str().unwrap());
    // The same verdicts: the comment's line end is kept, so e5 is a move.
    let (from_parquet, code) = validate_json(parquet, "1");
    let (from_pgn, pgn_code) = validate_json(pgn, "1");
    assert_eq!(
        without_places(&from_parquet, true),
        without_places(&from_pgn, true)
    );
    assert_eq!(code, pgn_code);
    let converted = |path: &str| stdout(&pgnkit(&["convert", "-q", path], None));
    let games = converted(parquet);
    assert!(
        games.contains("1.e4 ; a } comment\ne5 2.Nf3 Nc6 *"),
        "{games}"
    );
    assert_eq!(games, converted(pgn));
    // The places: row, line in the row (1 the tags, 2 the movetext's first line), column.
    let text = stdout(&pgnkit(&["validate", "-q", parquet], None));
    for place in [
        format!("--> {parquet}:row 1:3:4"),
        format!("--> {parquet}:row 2:2:13"),
    ] {
        assert!(text.contains(&place), "{place} in {text}");
    }
}

#[test]
fn a_line_of_a_movetext_that_starts_with_a_bracket_stays_in_its_row() {
    // In PGN text such a line starts the next game's tags (and ends the comment it falls
    // in); a row is one game, so its line break is read as a space.
    let rows = [
        ("a", "1. d4 {a\n[Event \"x\"] b} d5 *"),
        ("b", "1. e4\r\n  \r\n[%clk 0:01:00] e5 2. Ke3 *"),
    ];
    let dir = common::scratch("parquet-bracket");
    let parquet = dir.join("bracket.parquet");
    write_lichess_parquet(&parquet, &rows);
    let parquet = parquet.to_str().unwrap();
    let (out, _) = validate_json(parquet, "1");
    let games: Vec<serde_json::Value> = common::json_lines(&out)
        .into_iter()
        .filter(|r| r["type"] == "game")
        .collect();
    assert_eq!(games.len(), 2, "{out}");
    assert_eq!(games[0]["plies"], 2, "{out}");
    assert_eq!(games[0]["errors"], 0, "{out}");
    // The illegal move is on the row's line 2: the breaks before `[` are not lines.
    let text = stdout(&pgnkit(&["validate", "-q", parquet], None));
    let place = format!("--> {parquet}:row 1:2:");
    assert!(text.contains(&place), "{place} in {text}");
    assert!(text.contains("Ke3"), "{text}");
}

/// The `tags` of each game of `convert --format jsonl`.
fn jsonl_tags(path: &str) -> Vec<serde_json::Value> {
    let o = pgnkit(&["convert", "-q", "--format", "jsonl", path], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    common::json_lines(&stdout(&o))
        .into_iter()
        .map(|g| g["tags"].clone())
        .collect()
}

#[test]
fn what_convert_writes_as_parquet_reads_back_with_every_tag() {
    // lichess's Termination, tags with no column (Annotator, SetUp), a partial date, Elo and
    // rating differences written otherwise than a number column gives them back (`?`,
    // `+2105`, `0`), a value with a quote and a backslash.
    let input = at("round-trip.pgn");
    let dir = scratch("round-trip");
    let out = dir.join("pq");
    let out_dir = out.to_str().unwrap();
    common::pgnkit_ok(
        &[
            "convert", "-q", "--format", "parquet", "-o", out_dir, &input,
        ],
        None,
    );
    let copy = out.join("games.parquet");
    let copy = copy.to_str().unwrap();
    let (original, read_back) = (jsonl_tags(&input), jsonl_tags(copy));
    assert_eq!(original.len(), 3);
    assert_eq!(original[1]["Termination"], "Time forfeit");
    assert_eq!(read_back, original);
    // And so the statistics (terminations by the Termination tag among them).
    let pgn = stats_reports(&input, &dir.join("stats-pgn"));
    let parquet = stats_reports(copy, &dir.join("stats-parquet"));
    assert!(pgn.iter().any(|(name, _)| name == "terminations.csv"));
    assert_eq!(parquet, pgn);
}

#[test]
fn a_movetext_cell_holds_one_game_and_what_else_it_holds_is_the_rows_error() {
    // A second game after the first's result (its tags, then its moves), moves after a
    // result, and tags at the cell's start: without the check, row 0 gave two games, the
    // second with the smuggled Result tag, and 0 errors.
    let rows = [
        (
            "a",
            "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n[Event \"x\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1",
        ),
        ("b", "1. d4 d5 1/2-1/2 2. c4 *"),
        ("c", "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1"),
        ("d", "1. d4 d5 *"),
    ];
    let dir = common::scratch("parquet-cells");
    let parquet = dir.join("cells.parquet");
    write_lichess_parquet(&parquet, &rows);
    let parquet = parquet.to_str().unwrap();
    for jobs in ["1", "2"] {
        let (out, code) = validate_json(parquet, jobs);
        let records = common::json_lines(&out);
        let games: Vec<&serde_json::Value> =
            records.iter().filter(|r| r["type"] == "game").collect();
        assert_eq!(games.len(), rows.len(), "one game a row: {out}");
        let p036: Vec<(String, u64, u64)> = records
            .iter()
            .filter(|r| r["code"] == "P036")
            .map(|r| {
                let file = r["file"].as_str().unwrap();
                let row = file.rsplit_once(":row ").unwrap().1.to_string();
                (
                    row,
                    r["line"].as_u64().unwrap(),
                    r["column"].as_u64().unwrap(),
                )
            })
            .collect();
        // Row 0: at its result (line 2, column 41); row 1: at `1/2-1/2`; row 2: its tag.
        assert_eq!(
            p036,
            [
                ("0".to_string(), 2, 41),
                ("1".to_string(), 2, 10),
                ("2".to_string(), 2, 1)
            ],
            "{out}"
        );
        assert_eq!(games[3]["errors"], 0, "{out}");
        assert_eq!(code, Some(1));
    }
    // Such a row is not converted: its game is refused, with the error.
    let o = pgnkit(&["convert", "-q", "--format", "jsonl", parquet], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let converted = common::json_lines(&stdout(&o));
    assert_eq!(converted.len(), 1, "{}", stdout(&o));
    assert_eq!(converted[0]["tags"]["Event"], "d");
    assert!(stderr(&o).contains("P036"), "{}", stderr(&o));
}

#[test]
fn a_row_is_one_game_even_without_tags_or_a_result() {
    // Rows with no tags (a null Event, as in a movetext-only file) whose games end without a
    // result, in an open comment or an open variation: each ended where its row ends. Before,
    // a row's game ran on into the next row's text: 6 rows gave 3 games, the moves of row 1
    // read as Black's, silently.
    let rows: [(Option<&str>, &str); 6] = [
        (None, "1. e4 e5"),
        (None, "1. d4 d5 *"),
        (None, "1. c4 { open"),
        (None, "1. Nf3 ( 1. g3"),
        (Some("e"), "1. b3"),
        (None, "1. f4 *"),
    ];
    let dir = common::scratch("parquet-records");
    let parquet = dir.join("records.parquet");
    write_event_movetext(&parquet, rows.map(|(event, text)| (event, Some(text))));
    let parquet = parquet.to_str().unwrap();
    for jobs in ["1", "2"] {
        let (out, _) = validate_json(parquet, jobs);
        let records = common::json_lines(&out);
        let games: Vec<(&str, u64)> = records
            .iter()
            .filter(|r| r["type"] == "game")
            .map(|g| {
                let file = g["file"].as_str().unwrap();
                (
                    file.rsplit_once(":row ").unwrap().1,
                    g["errors"].as_u64().unwrap(),
                )
            })
            .collect();
        // Rows 2 and 3 have their error (the comment, the variation left open); row 1 none.
        assert_eq!(
            games,
            [("0", 0), ("1", 0), ("2", 1), ("3", 1), ("4", 0), ("5", 0)],
            "-j {jobs}: {out}"
        );
    }
}

#[test]
fn a_row_with_no_tags_and_no_moves_is_reported_not_dropped() {
    // A row whose tags are all null and whose movetext is empty, null, blank or only a
    // comment holds no game. Before, it was passed over as the space between games: 7 rows
    // gave 4 games and no word of the other 3, and the games' numbers no longer matched the
    // rows'. Each row is now a game, and such a row is an error (P037).
    let rows: [(Option<&str>, Option<&str>); 7] = [
        (None, Some("")),
        (None, Some("1. e4 e5 *")),
        (None, None),
        (None, Some("{ only a note }")),
        (Some("e"), Some("")),
        (None, Some("1. d4 *")),
        (None, Some("  ")),
    ];
    let dir = common::scratch("parquet-empty-rows");
    let parquet = dir.join("empty.parquet");
    write_event_movetext(&parquet, rows);
    let parquet = parquet.to_str().unwrap();
    for jobs in ["1", "2"] {
        let (out, code) = validate_json_with(parquet, jobs, &["--notes"]);
        let records = common::json_lines(&out);
        // Each placed in its row: the movetext's line (2), or the tags' (1).
        let games: Vec<(&str, u64, u64)> = records
            .iter()
            .filter(|r| r["type"] == "game")
            .map(|g| {
                let file = g["file"].as_str().unwrap();
                (
                    file.rsplit_once(":row ").unwrap().1,
                    g["line"].as_u64().unwrap(),
                    g["errors"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            games,
            [
                ("0", 2, 1),
                ("1", 2, 0),
                ("2", 2, 1),
                ("3", 2, 1),
                ("4", 1, 0),
                ("5", 2, 0),
                ("6", 2, 1)
            ],
            "-j {jobs}: {out}"
        );
        assert_eq!(out.matches("\"P037\"").count(), 4, "-j {jobs}: {out}");
        assert_eq!(code, Some(1), "-j {jobs}: an error was found");
    }
}

/// A Parquet file of two text columns, `Event` and `movetext`, a row each of `rows`.
fn write_event_movetext<const N: usize>(path: &Path, rows: [(Option<&str>, Option<&str>); N]) {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;

    let events: ArrayRef = Arc::new(StringArray::from_iter(rows.iter().map(|r| r.0)));
    let movetext: ArrayRef = Arc::new(StringArray::from_iter(rows.iter().map(|r| r.1)));
    let batch = RecordBatch::try_from_iter([("Event", events), ("movetext", movetext)]).unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// A Parquet file of these text columns, zstd, a page a row.
fn write_paged_parquet(path: &Path, columns: &[(&str, &[String])]) {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;

    let columns = columns.iter().map(|(name, cells)| {
        let array: ArrayRef = Arc::new(StringArray::from_iter_values(cells.iter()));
        (*name, array)
    });
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_dictionary_enabled(false)
        .set_data_page_row_count_limit(1)
        .set_write_batch_size(1)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// The rows of the games and the P012 messages of `validate --max-game-size 1`.
fn rows_and_p012(parquet: &str, jobs: &str) -> (Vec<String>, Vec<String>, Option<i32>) {
    let (out, code) = validate_json_with(parquet, jobs, &["--max-game-size", "1"]);
    let records = common::json_lines(&out);
    let rows = records
        .iter()
        .filter(|r| r["type"] == "game")
        .map(|r| {
            r["file"]
                .as_str()
                .unwrap()
                .rsplit_once(":row ")
                .unwrap()
                .1
                .to_string()
        })
        .collect();
    let p012 = records
        .iter()
        .filter(|r| r["code"] == "P012")
        .map(|r| r["message"].as_str().unwrap().to_string())
        .collect();
    (rows, p012, code)
}

#[test]
fn a_movetext_page_larger_than_a_game_may_be_is_refused_from_its_header() {
    // Row 1's cell is 3 MiB of a comment that compresses to a few KiB: a small bomb. With
    // --max-game-size 1 its page is refused from the size its header declares, before it is
    // decompressed; the rows around it are read.
    let bomb = format!("1. e4 {{{}}} e5 *", "a".repeat(3 << 20));
    let movetexts = [
        "1. e4 e5 *".to_string(),
        bomb.clone(),
        "1. d4 d5 *".to_string(),
        "1. c4 c5 *".to_string(),
    ];
    let events: Vec<String> = (0..4).map(|i| format!("e{i}")).collect();
    let dir = common::scratch("parquet-bomb");
    let parquet = dir.join("bomb.parquet");
    write_paged_parquet(&parquet, &[("Event", &events), ("movetext", &movetexts)]);
    assert!(std::fs::metadata(&parquet).unwrap().len() < 64 << 10);
    let parquet = parquet.to_str().unwrap();
    for jobs in ["1", "2"] {
        let (rows, p012, code) = rows_and_p012(parquet, jobs);
        assert_eq!(rows, ["0", "2", "3"]);
        assert_eq!(p012.len(), 1, "{p012:?}");
        assert!(
            p012[0].starts_with("rows 1 to 1 of row group 0: their movetext page"),
            "{p012:?}"
        );
        assert!(p012[0].contains("not decompressed"), "{p012:?}");
        assert_eq!(code, Some(1));
    }
    // With a limit the page fits, the row is read (and is a game like the others).
    let o = pgnkit(
        &[
            "validate",
            "-q",
            "--format",
            "json",
            "--game-records",
            parquet,
        ],
        None,
    );
    let games = common::json_lines(&stdout(&o))
        .into_iter()
        .filter(|r| r["type"] == "game")
        .count();
    assert_eq!(games, 4);

    // The same bomb in a tag column is refused alike; in a column no tag is read from, it is
    // not decoded at all.
    let small: Vec<String> = (0..4).map(|i| format!("1. e4 e{} *", 5 + i % 2)).collect();
    let mut events = events;
    events[2] = bomb;
    let parquet = dir.join("tag-bomb.parquet");
    write_paged_parquet(&parquet, &[("Event", &events), ("movetext", &small)]);
    let (rows, p012, _) = rows_and_p012(parquet.to_str().unwrap(), "1");
    assert_eq!(rows, ["0", "1", "3"]);
    assert!(
        p012.len() == 1 && p012[0].starts_with("rows 2 to 2 of row group 0: their Event page"),
        "{p012:?}"
    );
    let parquet = dir.join("unread-bomb.parquet");
    let notes = events;
    let events: Vec<String> = (0..4).map(|i| format!("e{i}")).collect();
    write_paged_parquet(
        &parquet,
        &[("Event", &events), ("notes", &notes), ("movetext", &small)],
    );
    let (rows, p012, code) = rows_and_p012(parquet.to_str().unwrap(), "1");
    assert_eq!(rows, ["0", "1", "2", "3"]);
    assert!(p012.is_empty(), "{p012:?}");
    assert_eq!(code, Some(0));
}

/// `pgnkit validate -q -j 1 --max-game-size 4 PATH` with at most `mib` MiB of address space
/// (`ulimit -v`): a run that decodes far more than the games it reads aborts under it.
fn validate_within(path: &Path, mib: u64) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {} && exec \"$0\" validate -q -j 1 --max-game-size 4 \"$1\"",
            mib << 10
        ))
        .arg(env!("CARGO_BIN_EXE_pgnkit"))
        .arg(path)
        .output()
        .unwrap()
}

#[test]
fn a_batch_of_rows_decodes_to_a_bounded_size() {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;

    // 64 rows of one game whose comment is 2 MiB (under --max-game-size 4, so each row is
    // read): 128 MiB of text from a file of a few KiB. Decoded 1,024 rows a batch, it was
    // held twice at once (the batch, the rows' text), in both layouts: one dictionary value
    // copied into every row, and a page a row; 320 MiB of address space did not do. Now a
    // batch is 16 rows (8 games of 4 MiB).
    let game = format!("1. e4 {{{}}} e5 *", "a".repeat(2 << 20));
    let rows = 64;
    let dir = common::scratch("parquet-batch");
    for (name, dictionary) in [("dictionary", true), ("pages", false)] {
        let movetext: ArrayRef = Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
            game.as_str(),
            rows,
        )));
        let batch = RecordBatch::try_from_iter([("movetext", movetext)]).unwrap();
        let mut props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_dictionary_enabled(dictionary)
            .set_dictionary_page_size_limit(4 << 20);
        if !dictionary {
            props = props
                .set_data_page_row_count_limit(1)
                .set_write_batch_size(1);
        }
        let path = dir.join(format!("{name}.parquet"));
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props.build())).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 1 << 20);
        let o = validate_within(&path, 240);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    }
}

#[test]
fn an_old_lz4_page_that_could_decode_past_its_size_is_refused_unread() {
    use std::io::Write;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    // A page of the old LZ4 codec is Hadoop's layout; when it is not, parquet's decoder falls
    // back to the LZ4 frame layout, and a frame decodes to whatever it holds, past the size
    // the page header says. So a 4 MiB page of noise, said to decode to 4 MiB, has its bytes
    // replaced by a frame of 512 MiB of one letter, padded to the same length with a
    // skippable frame: the file's sizes all stay true.
    let mut noise = String::new();
    let mut x: u32 = 1;
    while noise.len() < 4 << 20 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        noise.push(char::from(b'a' + (x % 26) as u8));
    }
    let cells = [
        "1. e4 e5 *".to_string(),
        format!("1. e4 {{{noise}}} *"),
        "1. d4 d5 *".to_string(),
    ];
    let array: ArrayRef = Arc::new(StringArray::from_iter_values(cells.iter()));
    let batch = RecordBatch::try_from_iter([("movetext", array)]).unwrap();
    let props = WriterProperties::builder()
        .set_compression(Compression::LZ4)
        .set_dictionary_enabled(false)
        .set_data_page_row_count_limit(1)
        .set_write_batch_size(1)
        .build();
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();

    let dir = common::scratch("parquet-lz4");
    let path = dir.join("lz4.parquet");
    std::fs::write(&path, &bytes).unwrap();
    // The noise page: the chunk's largest, found by its header's compressed size.
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let chunk = reader.metadata().row_group(0).column(0).clone();
    drop(reader);
    let (start, len) = chunk.byte_range();
    let (start, end) = (start as usize, (start + len) as usize);
    let marker = &noise.as_bytes()[..64];
    let literal = bytes[start..end]
        .windows(marker.len())
        .position(|w| w == marker)
        .expect("the noise is stored as literals")
        + start;
    let frame = {
        let mut frame = Vec::new();
        let mut bomb = lz4_flex::frame::FrameEncoder::new(&mut frame);
        let block = vec![b'a'; 1 << 20];
        for _ in 0..512 {
            bomb.write_all(&block).unwrap();
        }
        bomb.finish().unwrap();
        frame
    };
    // Where the noise page's data starts: the Hadoop prefix, just before the block, holds the
    // decompressed size (the cell and its few bytes of length and levels) and the compressed
    // size (noise does not compress) of that block, big-endian.
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
    let cell = cells[1].len();
    let data = (start..literal)
        .rev()
        .find(|&i| {
            (cell..cell + 64).contains(&be(i))
                && (cell / 2..cell + cell / 64).contains(&be(i + 4))
                && i + 8 + be(i + 4) <= end
        })
        .expect("the Hadoop prefix before the noise");
    let compressed = 8 + u32::from_be_bytes(bytes[data + 4..data + 8].try_into().unwrap()) as usize;
    assert!(
        frame.len() + 8 <= compressed,
        "{} {}",
        frame.len(),
        compressed
    );
    let mut page = frame;
    // A skippable frame: its magic, its length, and that many bytes.
    let pad = compressed - page.len() - 8;
    page.extend_from_slice(&0x184d_2a50u32.to_le_bytes());
    page.extend_from_slice(&(pad as u32).to_le_bytes());
    page.resize(compressed, 0);
    bytes[data..data + compressed].copy_from_slice(&page);
    std::fs::write(&path, &bytes).unwrap();

    // Under 400 MiB of address space: decoded, the frame alone would take 512 MiB.
    let o = validate_within(&path, 400);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("P012"), "{out}{}", stderr(&o));
    assert!(out.contains("old LZ4 codec"), "{out}");
}
