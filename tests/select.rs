//! `pgnkit select`, run as a user runs it.

mod common;

use std::io::Write;

use common::{pgnkit, stderr, stdout};

const GAMES: &str = "testdata/select/games.pgn";

/// The `Round` tags of the games in a PGN output, in order.
fn rounds(pgn: &str) -> Vec<String> {
    pgn.lines()
        .filter_map(|l| l.strip_prefix("[Round \"")?.strip_suffix("\"]"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn each_expression_selects_its_games() {
    let table = std::fs::read_to_string("testdata/select/expressions.txt").expect("read table");
    let mut checked = 0;
    for (n, line) in table.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (expr, want) = line.split_once('\t').expect("EXPR<TAB>ROUNDS");
        let want: Vec<String> = want
            .split_whitespace()
            .filter(|r| *r != "-")
            .map(str::to_owned)
            .collect();
        let o = pgnkit(&["select", "-q", "-j", "1", "--where", expr, GAMES], None);
        let got = rounds(&stdout(&o));
        assert_eq!(
            got,
            want,
            "expressions.txt:{}: {expr}\n{}",
            n + 1,
            stderr(&o)
        );
        let status = if want.is_empty() { 1 } else { 0 };
        assert_eq!(o.status.code(), Some(status), "{expr}: {}", stderr(&o));
        checked += 1;
    }
    assert!(checked > 30, "only {checked} expressions");
}

/// `eco` and `opening`, the classifier's, beside the tags: testdata/select/openings.txt
/// says which games of openings.pgn each expression selects.
#[test]
fn classified_openings_select_their_games() {
    let table = std::fs::read_to_string("testdata/select/openings.txt").expect("read table");
    let mut checked = 0;
    for (n, line) in table.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (expr, want) = line.split_once('\t').expect("EXPR<TAB>ROUNDS");
        let want: Vec<&str> = want.split_whitespace().filter(|r| *r != "-").collect();
        let o = pgnkit(
            &["select", "-q", "-w", expr, "testdata/select/openings.pgn"],
            None,
        );
        assert_eq!(
            rounds(&stdout(&o)),
            want,
            "openings.txt:{}: {expr}\n{}",
            n + 1,
            stderr(&o)
        );
        checked += 1;
    }
    assert!(checked > 10, "only {checked} expressions");
}

#[test]
fn eco_table_classifies_with_another_table_and_only_for_eco_tests() {
    let ep = [
        "--eco-table",
        "testdata/eco/en-passant.tsv",
        "testdata/eco/en-passant.pgn",
    ];
    let count = |expr: &str, table: &[&str]| {
        let mut args = vec!["select", "-q", "--count", "-w", expr];
        args.extend_from_slice(table);
        let o = pgnkit(&args, None);
        (stdout(&o).trim().to_owned(), stderr(&o))
    };
    // The same board with and without a legal en passant capture: two positions, two names.
    assert_eq!(count("eco = X01", &ep).0, "1");
    assert_eq!(count("opening = \"Quiet f-pawn\"", &ep).0, "1");
    // The built-in table has no X codes.
    assert_eq!(count("eco ~ X", &ep[2..]).0, "0");
    // A table with a line that does not replay stops the run before any game is read.
    let o = pgnkit(
        &[
            "select",
            "-w",
            "eco = B90",
            "--eco-table",
            "testdata/eco/broken.tsv",
            GAMES,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("broken.tsv:"), "{}", stderr(&o));
    // Without an eco or opening test the table would change nothing: refused.
    let o = pgnkit(
        &[
            "select",
            "-w",
            "ECO = B90",
            "--eco-table",
            "testdata/eco/en-passant.tsv",
            GAMES,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("drop --eco-table"), "{}", stderr(&o));
}

#[test]
fn selected_games_are_written_byte_for_byte() {
    let input = std::fs::read_to_string(GAMES).expect("read games");
    // Every game selected: the output is the input, games and blank lines alike (and a blank
    // line after the last game too).
    let o = pgnkit(&["select", "-q", "--where", "Round ~ \"\"", GAMES], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{input}\n"));
    // One game: exactly its text, then a blank line.
    let o = pgnkit(&["select", "-q", "--where", "Round = 3", GAMES], None);
    let third: Vec<&str> = input.split("\n\n").skip(4).take(2).collect();
    assert_eq!(stdout(&o), format!("{}\n\n", third.join("\n\n")));
}

/// Issue 39: `Round` is parts separated by `.`, compared part by part, quoted or not; never a
/// decimal number (`5.2` is not `5.20`) and never a date.
#[test]
fn rounds_compare_part_by_part() {
    for (expr, want) in [
        ("Round = \"5.2\"", vec!["5.2", "05.2"]),
        ("Round = 5.2", vec!["5.2", "05.2"]),
        ("Round = 5.20", vec!["5.20"]),
        ("Round > 5.9", vec!["5.20", "5.200", "5.10", "12"]),
        ("Round < 5.10 and Round >= 5", vec!["5.2", "5.9", "05.2"]),
        ("Round = \"?\"", vec!["?"]),
    ] {
        let o = pgnkit(
            &["select", "-q", "-w", expr, "testdata/select/rounds.pgn"],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{expr}: {}", stderr(&o));
        assert_eq!(rounds(&stdout(&o)), want, "{expr}");
    }
}

#[test]
fn invert_selects_the_others_and_count_prints_the_number() {
    let expr = "termination = checkmate or Event ~ \"Rapid\"";
    let picked = rounds(&stdout(&pgnkit(&["select", "-q", "-w", expr, GAMES], None)));
    let others = pgnkit(&["select", "-q", "--invert", "-w", expr, GAMES], None);
    let others = rounds(&stdout(&others));
    let mut all = [picked.clone(), others.clone()].concat();
    all.sort();
    assert_eq!(all, ["1", "2", "3", "4", "5", "6", "7"]);
    assert!(!picked.is_empty() && !others.is_empty());
    for (invert, want) in [(false, picked.len()), (true, others.len())] {
        let mut args = vec!["select", "--count", "-w", expr, GAMES];
        if invert {
            args.insert(1, "--invert");
        }
        let o = pgnkit(&args, None);
        assert_eq!(stdout(&o), format!("{want}\n"));
        assert!(
            stderr(&o).contains(&format!("1 file, 7 games: {want} selected")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_wrong_expression_is_shown_with_a_caret() {
    let o = pgnkit(
        &[
            "select",
            "--where",
            "WhiteElo >= and Result = \"1-0\"",
            GAMES,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "pgnkit: --where: expected a value after '>='\n  WhiteElo >= and Result = \"1-0\"\n              ^\n"
    );
}

#[test]
fn output_file_and_options_that_do_not_apply() {
    let dir = std::env::temp_dir().join(format!("pgnkit-select-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("picked.pgn");
    let out_s = out.to_str().expect("utf-8 path");
    let o = pgnkit(
        &["select", "-q", "-w", "Round = 2", "-o", out_s, GAMES],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let written = std::fs::read_to_string(&out).expect("output written");
    assert_eq!(rounds(&written), ["2"]);
    // The output may not be an input.
    let o = pgnkit(
        &["select", "-q", "-w", "Round = 2", "-o", out_s, out_s],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is also an input"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
    for extra in [["--count", "--to=uci"], ["--format", "parquet"]] {
        let mut args = vec!["select", "-w", "Round = 2", GAMES];
        args.extend(extra);
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert_eq!(stdout(&o), "");
    }
}

#[test]
fn to_and_format_go_through_converts_writer() {
    let o = pgnkit(
        &["select", "-q", "--to", "uci", "-w", "Round = 2", GAMES],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\n1.f2f3 e7e5 2.g2g4 d8h4 0-1\n"),
        "{}",
        stdout(&o)
    );
    let o = pgnkit(
        &[
            "select",
            "-q",
            "--format",
            "jsonl",
            "-w",
            "white = \"Carlsen*\"",
            GAMES,
        ],
        None,
    );
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["tags"]["Round"], "1");
    // A selected game that does not replay cannot be converted: it is reported, and counted.
    let o = pgnkit(
        &["select", "--format", "csv", "-w", "Round = 5", GAMES],
        None,
    );
    assert_eq!(
        stdout(&o).lines().count(),
        1,
        "only the header: {}",
        stdout(&o)
    );
    assert!(stderr(&o).contains("M001"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 selected (1 not written"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_legacy_encoding_is_written_as_utf8() {
    let o = pgnkit(
        &[
            "select",
            "-q",
            "-w",
            "player = \"Müller*\"",
            "testdata/select/latin1.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).expect("UTF-8 output");
    assert!(text.contains("[White \"Müller, Jürgen\"]"), "{text}");
    assert!(!text.contains("Weiß"), "{text}");
}

#[test]
fn standard_input_and_compressed_files_are_read() {
    let input = std::fs::read(GAMES).expect("read games");
    let o = pgnkit(
        &["select", "-q", "--count", "-w", "errors > 0", "-"],
        Some(&input),
    );
    assert_eq!(stdout(&o), "2\n", "{}", stderr(&o));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&input).expect("compress");
    let gz = gz.finish().expect("compress");
    let o = pgnkit(
        &["select", "-q", "-w", "termination = stalemate", "-"],
        Some(&gz),
    );
    assert_eq!(rounds(&stdout(&o)), ["3"], "{}", stderr(&o));
}

/// Every pipeline strategy gives what one job gives, for an expression of tags (no replay)
/// and one of positions (a replay watching them): many small games (pieces), and a first
/// game longer than a piece (batches).
#[test]
fn jobs_do_not_change_the_output() {
    let games = |out: &mut Vec<u8>| {
        for i in 0..3000 {
            let moves = ["Nf3 Nf6 ", "Nf3 Nf9 ", "Bb5 ", "Qh5 Nc6 Bc4 Nf6 Qxf7# "][i % 4];
            let result = ["1-0", "*", "1/2-1/2", "1-0"][i % 4];
            out.extend(
                format!(
                    "[Event \"{i}\"]\n[WhiteElo \"{}\"]\n\n1. e4 e5 {moves}{result}\n\n",
                    2000 + i % 700
                )
                .bytes(),
            );
        }
    };
    let mut small = Vec::new();
    games(&mut small);
    let mut huge_first =
        format!("[Event \"big\"]\n\n1. e4 {{{}}} *\n\n", "x".repeat(2 << 20)).into_bytes();
    games(&mut huge_first);
    for expr in [
        "WhiteElo >= 2500",
        "termination = checkmate or errors > 0",
        "position = \"r1bqkbnr/pppp1ppp/2n5/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 3\"",
        "eco = C42 or opening ~ \"Portuguese\"",
    ] {
        for input in [&small, &huge_first] {
            let args = |jobs| ["select", "-q", "-j", jobs, "-w", expr, "-"];
            let one = pgnkit(&args("1"), Some(input));
            assert_eq!(one.status.code(), Some(0), "{expr}: {}", stderr(&one));
            let two = pgnkit(&args("2"), Some(input));
            assert!(one.stdout.len() > 1000, "{expr}");
            assert!(one.stdout == two.stdout, "{expr}: -j 2 differs from -j 1");
        }
    }
}

#[test]
fn help_man_page_and_completions_know_select() {
    let help = stdout(&pgnkit(&["--help"], None));
    assert!(help.contains("select"), "{help}");
    let page = stdout(&pgnkit(&["man", "select"], None));
    assert!(
        page.starts_with(".TH") || page.contains(".TH pgnkit-select 1 "),
        "{page}"
    );
    assert!(page.contains("invert"), "{page}");
    let index = stdout(&pgnkit(&["man"], None));
    assert!(index.contains("pgnkit\\-select(1)"), "{index}");
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout(&pgnkit(&["completions", shell], None));
        assert!(script.contains("select"), "{shell}");
        assert!(
            script.contains("--where") || script.contains("-l where"),
            "{shell}: no --where"
        );
    }
}

/// Issue 39: `select --help` and its man page list the fields of `--where`, and `--format`
/// offers only the formats select writes (parquet, refused, is not offered).
#[test]
fn help_lists_the_fields_and_only_the_formats_select_writes() {
    let help = stdout(&pgnkit(&["select", "--help"], None));
    let page = stdout(&pgnkit(&["man", "select"], None));
    for field in [
        "player",
        "plies",
        "termination",
        "result_by_rule",
        "position",
        "material",
        "eco",
        "opening",
    ] {
        let listed = |text: &str| text.lines().any(|l| l.trim_start().starts_with(field));
        assert!(listed(&help), "--help lists no {field}:\n{help}");
        assert!(listed(&page), "the man page lists no {field}:\n{page}");
    }
    // Words joined by single spaces, however the help is wrapped.
    let short = stdout(&pgnkit(&["select", "-h"], None));
    let short = short.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        short.contains("[possible values: pgn, book, jsonl, csv, epd]"),
        "{short}"
    );
    assert!(!help.contains("parquet:"), "{help}");
    // Still refused with what to do, not as an unknown value.
    let o = pgnkit(
        &["select", "-w", "Round = 1", "--format", "parquet", GAMES],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("pgnkit convert --format parquet"),
        "{}",
        stderr(&o)
    );
}

/// Issue 39: a tag no game has (a misspelled name fails every test silently) is named at the
/// end of the run, with the tag most likely meant.
#[test]
fn a_tag_no_game_has_is_named_with_the_one_meant() {
    for jobs in ["1", "3"] {
        let o = pgnkit(
            &[
                "select",
                "-q",
                "--count",
                "-j",
                jobs,
                "-w",
                "Whiteelo >= 2500 or Evnet = \"x\" or Annotator = \"y\"",
                GAMES,
            ],
            None,
        );
        assert_eq!(stdout(&o), "0\n");
        assert_eq!(
            stderr(&o),
            "warning: no game has a tag 'Whiteelo'; did you mean 'WhiteElo'?\n\
             warning: no game has a tag 'Evnet'; did you mean 'Event'?\n\
             warning: no game has a tag 'Annotator', so every test of it is false\n",
            "-j {jobs}"
        );
    }
    // Tags some game has: no warning.
    let o = pgnkit(
        &[
            "select",
            "-q",
            "--count",
            "-w",
            "WhiteElo >= 2500 or Event = \"x\"",
            GAMES,
        ],
        None,
    );
    assert_eq!(stdout(&o), "3\n");
    assert_eq!(stderr(&o), "");
}

/// The Round tags of the games selected by `args` (after `select -q -j 1`) from games.pgn.
fn picked(args: &[&str]) -> Vec<String> {
    let mut all = vec!["select", "-q", "-j", "1"];
    all.extend(args);
    all.push(GAMES);
    let o = pgnkit(&all, None);
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {}",
        stderr(&o)
    );
    rounds(&stdout(&o))
}

#[test]
fn a_where_file_selects_when_any_line_does() {
    let file = "testdata/select/where.txt";
    assert_eq!(picked(&["--where-file", file]), ["1", "2", "3"]);
    // With --where, both must hold.
    assert_eq!(
        picked(&["--where-file", file, "-w", "Round > 1"]),
        ["2", "3"]
    );
    // A wrong line is shown with its place, before any game is read.
    let dir = common::scratch("select-where-file");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "# comment\n\nRound = 1\nRound =\n").expect("write");
    let o = pgnkit(
        &["select", "--where-file", bad.to_str().unwrap(), GAMES],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "pgnkit: --where-file {}:4: expected a value after '='\n  Round =\n         ^\n",
            bad.display()
        )
    );
}

#[test]
fn a_tag_file_reads_as_pgn_extract_reads_it() {
    // Same tag or-ed, tags and-ed, values as prefixes, Date compared by its year.
    assert_eq!(picked(&["--tag-file", "testdata/select/tags.txt"]), ["7"]);
    let dir = common::scratch("select-tag-file");
    let tags = dir.join("tags.txt");
    for (text, want) in [
        ("Player \"Carlsen\"\n", &["1", "2", "5"][..]),
        ("Elo >= \"2800\"\n", &["1", "2", "5"]),
        ("Elo >= \"2800\"\nResult <> \"*\"\n", &["1", "2"]),
        ("Date < \"2024\"\n", &["2"]),
        ("White \"Roe\"\nWhite \"Loyd\"\n", &["3", "4"]),
        // Comparisons of one tag make a range (before: either held, 1, 2, 4, 5 and 7).
        (
            "WhiteElo >= \"2000\"\nWhiteElo <= \"2800\"\n",
            &["4", "5", "7"],
        ),
        // A game without the tag is not equal to the value (before: only 1 and 4).
        ("BlackElo <> \"2850\"\n", &["1", "3", "4", "6", "7"]),
    ] {
        std::fs::write(&tags, text).expect("write");
        assert_eq!(
            picked(&["--tag-file", tags.to_str().unwrap()]),
            want,
            "{text}"
        );
    }
}

#[test]
fn fen_pattern_i_matches_the_pattern_or_its_colours_swapped() {
    // A White knight on f3; swapped, a Black knight on f6. Round 1 has only Black's, round 2
    // neither, round 3 only White's.
    let dir = common::scratch("select-fen-pattern-i");
    let games = dir.join("knights.pgn");
    let game = |round: u32, moves: &str| {
        format!("[Event \"k\"]\n[Round \"{round}\"]\n[Result \"*\"]\n\n{moves} *\n\n")
    };
    let text = [
        game(1, "1. e4 Nf6"),
        game(2, "1. d4 d5"),
        game(3, "1. Nf3 d5"),
    ]
    .concat();
    std::fs::write(&games, text).expect("write");
    let tags = dir.join("tags.txt");
    let picked = |line: &str| {
        std::fs::write(&tags, line).expect("write");
        let args = ["select", "-q", "-j", "1", "--tag-file"];
        let o = pgnkit(
            &[
                &args[..],
                &[tags.to_str().unwrap(), games.to_str().unwrap()],
            ]
            .concat(),
            None,
        );
        rounds(&stdout(&o))
    };
    assert_eq!(picked("FENPattern \"*/*/*/*/*/5N2/*/*\"\n"), ["3"]);
    assert_eq!(picked("FENPatternI \"*/*/*/*/*/5N2/*/*\"\n"), ["1", "3"]);
}

#[test]
fn selectonly_and_skipmatching_count_the_matches() {
    let all = ["-w", "Round ~ \"\""];
    let with = |extra: &[&'static str]| {
        let mut args = all.to_vec();
        args.extend(extra);
        picked(&args)
    };
    assert_eq!(with(&["--selectonly", "2:3,6"]), ["2", "3", "6"]);
    assert_eq!(with(&["--skipmatching", "2:3,6"]), ["1", "4", "5", "7"]);
    // The matches, not the games, are counted.
    assert_eq!(
        picked(&["-w", "Result = \"1-0\"", "--selectonly", "2"]),
        ["6"]
    );
    let o = pgnkit(
        &["select", "-w", "Round = 1", "--selectonly", "3,2", GAMES],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("must go up"), "{}", stderr(&o));
}

#[test]
fn non_matching_gets_the_other_games_in_the_same_pass() {
    let dir = common::scratch("select-non-matching");
    let (out, others) = (dir.join("picked.pgn"), dir.join("others.pgn"));
    let (out_s, others_s) = (out.to_str().unwrap(), others.to_str().unwrap());
    let both = |extra: &[&str]| {
        let mut args = vec!["select", "-w", "errors = 0", "-o", out_s];
        args.extend(["--non-matching", others_s, GAMES]);
        args.extend(extra);
        pgnkit(&args, None)
    };
    let o = both(&["-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let read = |p: &std::path::Path| std::fs::read_to_string(p).expect("written");
    assert_eq!(rounds(&read(&out)), ["1", "2", "3", "4", "7"]);
    assert_eq!(rounds(&read(&others)), ["5", "6"]);
    // Both files together are the input, game for game.
    let input = std::fs::read_to_string(GAMES).expect("read");
    assert_eq!(read(&out).len() + read(&others).len(), input.len() + 1);
    // A match left out by --selectonly is one of the others.
    let o = pgnkit(
        &[
            "select",
            "-q",
            "--count",
            "-w",
            "errors = 0",
            "--selectonly",
            "1",
            "--non-matching",
            others.to_str().unwrap(),
            GAMES,
        ],
        None,
    );
    assert_eq!(stdout(&o), "1\n");
    assert_eq!(rounds(&read(&others)), ["2", "3", "4", "5", "6", "7"]);
    // Never beside another output on standard output.
    let o = pgnkit(
        &["select", "-w", "errors = 0", "--non-matching", "-", GAMES],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    // A run that fails keeps the file there before.
    std::fs::write(&others, "kept").expect("write");
    let o = both(&["missing.pgn"]);
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(read(&others), "kept");
}

/// The Date tags of the games `select -q -j 1 ARGS testdata/select/extract.pgn` writes.
fn extract_dates(args: &[&str]) -> (Vec<String>, String) {
    let mut all = vec!["select", "-q", "-j", "1"];
    all.extend(args);
    all.push("testdata/select/extract.pgn");
    let o = pgnkit(&all, None);
    let dates = stdout(&o)
        .lines()
        .filter_map(|l| l.strip_prefix("[Date \"")?.strip_suffix("\"]"))
        .map(str::to_owned)
        .collect();
    (dates, stderr(&o))
}

/// Runs each line of a table of `ARGS<TAB>...<TAB>DATES` (the last column the games
/// selected from extract.pgn, `-` for none), the arguments made of the first column by
/// `args`.
fn check_extract_table(name: &str, args: impl Fn(&str) -> Vec<String>) {
    let table = std::fs::read_to_string(format!("testdata/select/{name}")).expect("read table");
    let mut checked = 0;
    for (n, line) in table.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (first, want) = line
            .split_once('\t')
            .map(|(f, rest)| (f, rest.rsplit('\t').next().unwrap_or(rest)))
            .expect("columns");
        let args = args(first);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (dates, err) = extract_dates(&args);
        let want: Vec<&str> = want.split_whitespace().filter(|d| *d != "-").collect();
        assert_eq!(dates, want, "{name}:{}: {first}\n{err}", n + 1);
        checked += 1;
    }
    assert!(checked >= 20, "{name}: only {checked} lines");
}

/// testdata/select/extract-cases.tsv: pgn-extract's selections as pgnkit writes them, and the
/// games each selects from extract.pgn (.ci/select-extract.sh runs pgn-extract on the same).
#[test]
fn pgn_extracts_selections_select_the_same_games() {
    check_extract_table("extract-cases.tsv", |ours| {
        ours.split_whitespace().map(str::to_owned).collect()
    });
}

/// testdata/select/extract-expressions.txt: the tests of positions and material in --where
/// (`balance`, `material_diff`, `opposite_bishops`, `for N`, `at A..B`).
#[test]
fn position_and_material_tests_select_their_games() {
    check_extract_table("extract-expressions.txt", |expr| {
        vec!["-w".to_owned(), expr.to_owned()]
    });
}

#[test]
fn for_and_at_go_only_after_tests_of_positions() {
    for (expr, word) in [
        ("plies > 3 for 2", "'for' goes after a test of positions"),
        ("balance = \"R R\" at x", "expected plies after 'at'"),
        ("balance = \"R X\"", "no piece letter"),
        ("material_diff ~ 3", "is a number"),
    ] {
        let o = pgnkit(&["select", "-w", expr, GAMES], None);
        assert_eq!(o.status.code(), Some(2), "{expr}");
        assert!(stderr(&o).contains(word), "{expr}: {}", stderr(&o));
    }
}

#[test]
fn a_null_move_on_the_main_line_keeps_the_positions_right() {
    // The positions come from the main line's moves; a null move between two of them is
    // no move there, so such a game is watched move by move instead.
    let game = b"[Event \"Null\"]\n[Result \"*\"]\n\n1. e4 -- 2. d4 e5 *\n";
    for (expr, want) in [
        ("pattern = \"*/*/*/*/???PP???/*/*/*\" at 3", "1\n"),
        ("pattern = \"*/*/*/*/???PP???/*/*/*\" at 2", "0\n"),
        (
            "position = \"rnbqkbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNBQKBNR w\"",
            "1\n",
        ),
    ] {
        let o = pgnkit(&["select", "-q", "--count", "-w", expr, "-"], Some(game));
        assert_eq!(stdout(&o), want, "{expr}: {}", stderr(&o));
    }
    // The counts alone, kept by captures: White takes a pawn after Black's null move.
    let game = b"[Event \"Null\"]\n[Result \"*\"]\n\n1. e4 -- 2. d4 e5 3. dxe5 *\n";
    for (expr, want) in [
        ("material = \"KQRRBBNNPPPPPPPPkqrrbbnnppppppp\"", "1\n"),
        ("material_diff = 1 at 5", "1\n"),
        ("material_diff = 1 at 4", "0\n"),
        ("material_diff = -1", "0\n"),
    ] {
        let o = pgnkit(&["select", "-q", "--count", "-w", expr, "-"], Some(game));
        assert_eq!(stdout(&o), want, "{expr}: {}", stderr(&o));
    }
}

#[test]
fn marks_go_only_on_games_written_as_read() {
    for (extra, refused) in [
        (&["--count"][..], "drop --count, --to and --format"),
        (&["--to", "uci"][..], "drop --count, --to and --format"),
        (&["--invert"][..], "--invert writes those that did not"),
    ] {
        let mut args = vec!["select", "--mark-matches", "M", "-w", "plies > 0"];
        args.extend_from_slice(extra);
        args.push(GAMES);
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&o).contains(refused), "{extra:?}: {}", stderr(&o));
    }
    let o = pgnkit(
        &[
            "select",
            "--mark-matches",
            "a } b",
            "-w",
            "plies > 0",
            GAMES,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot hold"), "{}", stderr(&o));
}

#[test]
fn a_game_decided_by_its_tags_is_written_unmarked() {
    let o = pgnkit(
        &[
            "select",
            "-q",
            "--mark-matches",
            "M",
            "-w",
            "Round = 2",
            GAMES,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!stdout(&o).contains("{M}"), "{}", stdout(&o));
}

#[test]
fn at_counts_the_plies_once_in_a_game_with_variations() {
    // The replay tells the move a variation follows as well as the main line's moves: the
    // watch counted its ply twice, and `at 1` missed the position after 1. e4.
    let game = b"[Event \"V\"]\n\n1. e4 (1. d4 d5) 1... e5 2. Nf3 *\n";
    let o = pgnkit(
        &[
            "select",
            "-q",
            "--count",
            "-w",
            "pattern = \"*/*/*/*/4P3/*/*/*\" at 1",
        ],
        Some(game),
    );
    assert_eq!(stdout(&o), "1\n");
}

#[test]
fn start_ply_starts_the_search_for_positions_as_pgn_extracts_startply() {
    let game = b"[Event \"P\"]\n\n1. e4 e5 2. d4 *\n";
    let count = |n: &str| {
        let args = ["select", "-q", "--count", "--startply", n, "--fen-pattern"];
        let o = pgnkit(&[&args[..], &["*/*/*/*/4P3/*/*/*"]].concat(), Some(game));
        stdout(&o)
    };
    // The pawn stands alone on e4 after the first and second moves, not after the third.
    assert_eq!(count("2"), "1\n");
    assert_eq!(count("3"), "0\n");
    let o = pgnkit(
        &["select", "--start-ply", "3", "-w", "plies > 1"],
        Some(game),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no test looks for one"),
        "{}",
        stderr(&o)
    );
}
