//! `--range START:END`, run as a cluster's tasks run it: for random cut points, the ranges of
//! a file together give exactly the games of the whole file, once each, in order, with the
//! same verdicts and the same converted output.

use std::path::PathBuf;

mod common;

use common::{pgnkit, stderr, stdout};

/// A small deterministic generator of cut points (no dependency, the same run every time).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n.max(1)
    }
}

/// What a range's output is compared by: the records without the places (file, line,
/// column) and the game numbers, which count from a range's start.
const PLACES: [&str; 4] = ["file", "line", "column", "game"];

fn validate(file: &str, range: Option<&str>) -> Vec<serde_json::Value> {
    common::validate_records(range.map(|r| ("--range", r)), file, &PLACES)
}

fn convert(file: &str, range: Option<&str>) -> Vec<serde_json::Value> {
    let mut args = vec!["convert", "-q", "--format", "jsonl"];
    if let Some(r) = range {
        args.extend(["--range", r]);
    }
    args.push(file);
    common::json_records(&args, &PLACES)
}

/// Cuts `file` at `cuts` and reads each range with `read`: their outputs, concatenated.
fn by_ranges(
    file: &str,
    cuts: &[u64],
    read: fn(&str, Option<&str>) -> Vec<serde_json::Value>,
) -> Vec<serde_json::Value> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    // The last range may end past the file's end, as a last split does.
    bounds.push(u64::MAX / 2);
    bounds
        .windows(2)
        .flat_map(|w| read(file, Some(&format!("{}:{}", w[0], w[1]))))
        .collect()
}

fn check_random_cuts(file: &str, seed: u64, trials: usize) {
    let len = std::fs::metadata(file).unwrap().len();
    let whole = validate(file, None);
    let whole_converted = convert(file, None);
    let games = whole.iter().filter(|v| v["type"] == "game").count();
    assert!(games > 3, "{file}: {games} games");
    let mut rng = Lcg(seed);
    for trial in 0..trials {
        let mut cuts: Vec<u64> = (0..1 + rng.below(4)).map(|_| rng.below(len + 1)).collect();
        cuts.sort_unstable();
        assert_eq!(
            by_ranges(file, &cuts, validate),
            whole,
            "{file} cut at {cuts:?}"
        );
        // Converting is slower to check: every fourth trial.
        if trial % 4 == 0 {
            assert_eq!(
                by_ranges(file, &cuts, convert),
                whole_converted,
                "{file} converted, cut at {cuts:?}"
            );
        }
    }
}

#[test]
fn ranges_of_random_cut_points_read_every_game_once_in_order() {
    // Comments holding `[` at line start, a variation line starting with `[`, games without
    // blank lines between them, a game without tags, commentary before the first game.
    check_random_cuts("testdata/range/tricky.pgn", 1, 24);
    // `\r\n` line breaks.
    check_random_cuts("testdata/range/crlf.pgn", 2, 12);
    // Lichess-style games with clock comments.
    check_random_cuts("testdata/parquet/games.pgn", 3, 12);
}

#[test]
fn ranges_of_a_larger_generated_file_read_every_game_once() {
    let mut text = Vec::new();
    for i in 0..12 {
        for file in [
            "testdata/range/tricky.pgn",
            "testdata/parquet/games.pgn",
            "testdata/range/crlf.pgn",
        ] {
            text.extend(std::fs::read(file).unwrap());
            // Between files, now a blank line, now none, now two.
            text.extend(&b"\n\n\n"[..i % 3]);
        }
    }
    let path: PathBuf =
        std::env::temp_dir().join(format!("pgnkit-range-{}.pgn", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    check_random_cuts(path.to_str().unwrap(), 4, 12);
    let _ = std::fs::remove_file(&path);
}

/// Regression: ranges were cut at any `[` and letter at the start of a line after a blank
/// line, which the reader does not always start a game at: in a comment (`[see the game
/// below]`), and inside a tag section. The range before then read half a game.
#[test]
fn a_bracket_after_a_blank_line_in_a_comment_or_a_tag_section_cuts_no_range() {
    let file = "testdata/range/brackets.pgn";
    let text = std::fs::read_to_string(file).unwrap();
    let whole = validate(file, None);
    for needle in ["[see the game below]", "[White \"c\"]"] {
        let at = text.find(needle).unwrap() as u64;
        for cut in [at - 1, at, at + 1] {
            assert_eq!(
                by_ranges(file, &[cut], validate),
                whole,
                "{file} cut at {cut} ({needle})"
            );
        }
    }
    check_random_cuts(file, 5, 12);
}

#[test]
fn a_range_is_named_by_its_first_game_and_counts_lines_from_there() {
    let file = "testdata/range/tricky.pgn";
    let text = std::fs::read_to_string(file).unwrap();
    let start = text
        .find("[Event \"no blank line before this game\"]")
        .unwrap();
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "json",
            "--game-records",
            "--range",
            &format!("{}:{}", start - 3, start + 1),
            file,
        ],
        None,
    );
    let first: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["file"], format!("{file}@{start}"));
    assert_eq!(first["game"], 1);
    assert_eq!(first["white"], "e");
    // One game only: the next starts after the range's end.
    assert_eq!(stdout(&o).matches("\"type\":\"game\"").count(), 1);
    // An empty range (no game starts in it) reads no game.
    let o = pgnkit(
        &[
            "validate",
            "--range",
            &format!("{}:{}", start + 1, start + 2),
            file,
        ],
        None,
    );
    assert!(stderr(&o).contains("0 games"), "{}", stderr(&o));
}

#[test]
fn a_compressed_stream_or_standard_input_is_refused_with_a_range() {
    let path: PathBuf =
        std::env::temp_dir().join(format!("pgnkit-range-{}.pgn.gz", std::process::id()));
    let mut gz = flate2_free_gzip();
    gz.extend_from_slice(b"");
    std::fs::write(&path, &gz).unwrap();
    let o = pgnkit(
        &["validate", "--range", "0:100", path.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("gzip"), "{}", stderr(&o));
    assert!(stderr(&o).contains("without --range"), "{}", stderr(&o));
    let _ = std::fs::remove_file(&path);
    let o = pgnkit(&["validate", "--range", "0:100", "-"], Some(b"1. e4 *\n"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("standard input"), "{}", stderr(&o));
    let o = pgnkit(&["validate", "--range", "9:1", "-"], Some(b"1. e4 *\n"));
    assert_eq!(o.status.code(), Some(2));
}

/// A gzip member holding nothing (the format's magic is all the range check reads).
fn flate2_free_gzip() -> Vec<u8> {
    vec![
        0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]
}
