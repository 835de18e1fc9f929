//! `--row-groups START:END`, run as a cluster's tasks run it on a Parquet file: for every way
//! to cut its row groups, the ranges together give exactly the games of the whole file, once
//! each, in order, with the same verdicts (rows keep their numbers in the file).

mod common;

use common::{pgnkit, stderr, stdout};

/// Twelve rows in row groups of 5, 5 and 2 (`testdata/parquet/make-row-groups.py`).
const FILE: &str = "testdata/parquet/row-groups.parquet";
const GROUPS: usize = 3;

/// The JSON lines of `validate --game-records` on `FILE`, without the game's number (it
/// counts from a task's first game); the file name, which names the row, is kept.
fn records(groups: Option<&str>) -> Vec<serde_json::Value> {
    common::validate_records(groups.map(|g| ("--row-groups", g)), FILE, &["game"])
}

#[test]
fn the_row_group_ranges_of_a_file_give_its_games_once_each_in_order() {
    let whole = records(None);
    let games = whole.iter().filter(|r| r["type"] == "game").count();
    assert_eq!(games, 12, "{whole:?}");
    // Every set of cut points between 0 and the number of row groups.
    for cuts in 0u32..(1 << (GROUPS - 1)) {
        let mut points = vec![0];
        points.extend((1..GROUPS).filter(|i| cuts & (1 << (i - 1)) != 0));
        points.push(GROUPS);
        let mut joined = Vec::new();
        for pair in points.windows(2) {
            joined.extend(records(Some(&format!("{}:{}", pair[0], pair[1]))));
        }
        assert_eq!(joined, whole, "cut at {points:?}");
    }
}

#[test]
fn rows_keep_their_numbers_and_an_end_past_the_last_group_reads_to_the_end() {
    let tail = records(Some("2:99"));
    let games: Vec<_> = tail.iter().filter(|r| r["type"] == "game").collect();
    assert_eq!(games.len(), 2, "{tail:?}");
    assert!(
        games[0]["file"].as_str().unwrap().ends_with(":row 10"),
        "{games:?}"
    );
    assert!(records(Some("3:3")).is_empty());
}

#[test]
fn row_groups_of_a_pgn_file_are_refused_and_the_run_goes_on() {
    let o = pgnkit(
        &[
            "validate",
            "--row-groups",
            "0:1",
            "testdata/parquet/games.pgn",
            FILE,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("error[P035]"), "{out}");
    assert!(out.contains("--range"), "{out}");
    // The Parquet file's first row group was read: 5 games.
    assert!(stderr(&o).contains("5 games"), "{}", stderr(&o));
}

#[test]
fn a_bad_row_group_range_is_refused_with_an_example() {
    let o = pgnkit(&["validate", "--row-groups", "2:1", FILE], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("before START"), "{}", stderr(&o));
    let o = pgnkit(&["validate", "--row-groups", "x", FILE], None);
    assert!(stderr(&o).contains("e.g. 0:4"), "{}", stderr(&o));
}

/// The `$ pgnkit ...` lines of docs/inputs.md's row-groups section, run: each prints the
/// lines shown under it.
#[test]
fn the_docs_row_group_example_prints_what_it_shows() {
    let text = std::fs::read_to_string("docs/inputs.md").expect("read docs/inputs.md");
    let section = text
        .split("## Row groups (`--row-groups`)")
        .nth(1)
        .expect("docs/inputs.md has a row-groups section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut lines = section.lines().peekable();
    let mut ran = 0;
    while let Some(line) = lines.next() {
        let Some(command) = line.strip_prefix("$ pgnkit ") else {
            continue;
        };
        let mut shown = Vec::new();
        while let Some(next) = lines.peek() {
            if next.starts_with("$ ") || next.starts_with("```") {
                break;
            }
            shown.push(lines.next().unwrap_or_default().to_string());
        }
        let words: Vec<&str> = command.split_whitespace().collect();
        let printed = stdout(&pgnkit(&words, None));
        assert_eq!(
            printed.lines().collect::<Vec<_>>(),
            shown,
            "`pgnkit {command}`"
        );
        ran += 1;
    }
    assert!(ran >= 1, "no example in the row-groups section");
}

#[test]
fn the_docs_p035_example_is_what_pgnkit_prints() {
    let text = std::fs::read_to_string("docs/diagnostics.md").expect("read docs/diagnostics.md");
    let o = pgnkit(
        &[
            "validate",
            "--row-groups",
            "0:1",
            "testdata/parquet/games.pgn",
        ],
        None,
    );
    let first = stdout(&o).lines().next().unwrap_or_default().to_string();
    assert!(first.starts_with("error[P035]"), "{first}");
    assert!(text.contains(&first), "docs/diagnostics.md lacks {first}");
}
