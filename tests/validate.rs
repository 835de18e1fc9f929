//! `pgnkit validate` run as a user runs it: exit codes, output formats, rejects, bad input.

use std::path::Path;

mod common;

use common::{pgnkit, stderr, stdout};

#[test]
fn clean_file_exits_0() {
    let o = pgnkit(&["validate", "testdata/validate/clean.pgn"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 game: 0 errors"));
}

#[test]
fn problems_exit_1_with_place_and_fix() {
    let o = pgnkit(&["validate", "testdata/validate/two-games.pgn"], None);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.contains("error[M001]"), "{text}");
    assert!(
        text.contains("testdata/validate/two-games.pgn:19:69 · game 2 (C – D) · move 7. (White)"),
        "{text}"
    );
    assert!(text.contains("did you mean Bc4xf7+ (Bxf7+)?"), "{text}");
    assert!(
        text.contains("= position: r2qkbnr/ppp2ppp/3p4/4N3/2BnP3/2N5/PPPP1PPP/R1Bb1RK1 w kq - 0 7"),
        "{text}"
    );
    // The caret stands under the token.
    let lines: Vec<&str> = text.lines().collect();
    let src = lines.iter().position(|l| l.contains("7. Be4xf7+")).unwrap();
    let caret = lines[src + 1];
    let col = caret.find('^').unwrap();
    assert_eq!(&lines[src][col..col + 7], "Be4xf7+");
}

#[test]
fn missing_file_exits_2_and_goes_on() {
    let o = pgnkit(
        &[
            "validate",
            "testdata/validate/nope.pgn",
            "testdata/validate/clean.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot open testdata/validate/nope.pgn"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 file, 1 game"));
}

#[test]
fn reads_stdin() {
    let o = pgnkit(
        &["validate", "-"],
        Some(b"1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = pgnkit(&["validate", "-"], Some(b"1. e4 e5 2. Ke3 *\n"));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("<stdin>:1:13"), "{}", stdout(&o));
}

#[test]
fn json_lines_and_game_records() {
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "json",
            "--game-records",
            "testdata/validate/two-games.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let values: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let games: Vec<&serde_json::Value> = values.iter().filter(|v| v["type"] == "game").collect();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["termination"], "checkmate");
    assert_eq!(games[0]["result_by_rule"], "0-1");
    assert_eq!(games[1]["legal"], false);
    let d = values.iter().find(|v| v["code"] == "M001").unwrap();
    assert_eq!(d["line"], 19);
    assert_eq!(d["column"], 69);
    assert_eq!(d["move"], 7);
    assert_eq!(d["side"], "white");
    assert_eq!(d["token"], "Be4xf7+");
}

#[test]
fn csv_has_a_header_and_one_row_per_problem() {
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "csv",
            "testdata/validate/two-games.pgn",
        ],
        None,
    );
    let mut rdr = csv::Reader::from_reader(o.stdout.as_slice());
    let headers = rdr.headers().unwrap().clone();
    assert_eq!(&headers[0], "file");
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert!(rows.iter().any(|r| &r[9] == "M001" && &r[10] == "Be4xf7+"));
}

#[test]
fn rejects_keep_bad_games_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("pgnkit-rejects-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rejects = dir.join("rejects.pgn");
    let o = pgnkit(
        &[
            "validate",
            "--rejects",
            rejects.to_str().unwrap(),
            "testdata/validate/two-games.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let written = std::fs::read_to_string(&rejects).unwrap();
    let source = std::fs::read_to_string("testdata/validate/two-games.pgn").unwrap();
    let second = &source[source.find("[Event \"Bad\"]").unwrap()..];
    assert_eq!(written.trim_end(), second.trim_end());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An output that is also an input is refused before anything is written: opening it would
/// empty the input before its games are read (and the rejects would be read back). A new
/// rejects file in a folder being read is not read in the same run.
#[test]
fn an_input_is_never_an_output() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-input-as-output");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    let games = dir.join("games.pgn");
    std::fs::write(&games, &source).unwrap();
    let link = dir.join("link.pgn");
    #[cfg(unix)]
    std::os::unix::fs::symlink("games.pgn", &link).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(&games, &link).unwrap();
    let games_arg = games.to_str().unwrap();
    let refused = [
        vec!["validate", games_arg, "--rejects", games_arg],
        #[cfg(unix)]
        vec!["validate", games_arg, "--rejects", link.to_str().unwrap()],
        vec!["convert", games_arg, "--rejects", games_arg],
        vec!["stats", games_arg, "--partial", games_arg],
        vec!["stats", games_arg, "--report", "games", "-o", games_arg],
    ];
    for args in refused {
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("is also an input"), "{}", stderr(&o));
        assert_eq!(
            std::fs::read(&games).unwrap(),
            source,
            "{args:?} touched the input"
        );
    }

    // In a folder: the new rejects file is made after the inputs are listed.
    std::fs::remove_file(&link).unwrap();
    let rejects = dir.join("rejects.pgn");
    let dir_arg = dir.to_str().unwrap();
    let rejects_arg = rejects.to_str().unwrap();
    let o = pgnkit(&["validate", "-q", dir_arg, "--rejects", rejects_arg], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let second = &source[source
        .windows(13)
        .position(|w| w == b"[Event \"Bad\"]")
        .unwrap()..];
    assert_eq!(
        std::fs::read(&rejects).unwrap().trim_ascii_end(),
        second.trim_ascii_end()
    );
    // Run again, the rejects file is one of the folder's inputs.
    let o = pgnkit(&["validate", "-q", dir_arg, "--rejects", rejects_arg], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&rejects).unwrap().trim_ascii_end(),
        second.trim_ascii_end()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn warnings_as_errors() {
    let input = b"[Event \"x\"]\n1. e4 e5 2. nf3 *\n";
    assert_eq!(
        pgnkit(&["validate", "-"], Some(input)).status.code(),
        Some(0)
    );
    assert_eq!(
        pgnkit(&["validate", "--warnings-as-errors", "-"], Some(input))
            .status
            .code(),
        Some(1)
    );
    let o = pgnkit(&["validate", "--strict", "-"], Some(input));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error[N002]"));
}

/// Regression (issue 39): with `--lang de`, `Bb5` (a pawn move in German) got the help
/// `did you mean Bb5?`, the same token; the suggestion is in the letters the game is read in.
#[test]
fn a_suggestion_is_written_in_the_letters_read() {
    let input = b"[Event \"?\"]\n\n1. e4 e5 2. Sf3 Sc6 3. Bb5 a6 *\n";
    let o = pgnkit(&["validate", "--lang", "de", "-"], Some(input));
    let text = stdout(&o);
    assert!(text.contains("'Bb5' is not a legal move"), "{text}");
    assert!(text.contains("help: did you mean Lb5 (Bb5)?"), "{text}");
    let o = pgnkit(
        &["validate", "--lang", "fr", "-"],
        Some(b"[Event \"?\"]\n\n1. e4 e5 2. Cf3 Cc6 3. Ff2-b5 a6 *\n"),
    );
    assert!(
        stdout(&o).contains("did you mean Ff1-b5 (Bb5)?"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn primer_game_is_read_and_the_misprint_found() {
    let o = pgnkit(&["validate", "testdata/notation/primer-legall.txt"], None);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("game 1 (○○○ – ×××) · move 7. (White)"),
        "{text}"
    );
    assert!(text.contains("did you mean 象c4×f7+ (Bxf7+)?"), "{text}");
    assert_eq!(text.matches("error[").count(), 1, "{text}");
}

#[test]
fn garbage_is_reported_not_a_crash() {
    let mut bytes = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..200_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.push((x >> 16) as u8);
    }
    let o = pgnkit(&["validate", "-q", "-"], Some(&bytes));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn deep_nesting_does_not_overflow() {
    let mut input = b"1. e4 ".to_vec();
    input.extend(std::iter::repeat_n(b'(', 100_000));
    input.extend(b" e5 ");
    input.extend(std::iter::repeat_n(b')', 100_000));
    input.extend(b" e5 *\n");
    let o = pgnkit(&["validate", "--format", "json", "-"], Some(&input));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("\"code\":\"P013\""));
}

#[test]
fn unterminated_comment_costs_one_game() {
    let input = b"[Event \"a\"]\n1. e4 { never closed e5 1-0\n\n[Event \"b\"]\n1. d4 d5 *\n";
    let o = pgnkit(
        &["validate", "--format", "json", "--game-records", "-"],
        Some(input),
    );
    let text = stdout(&o);
    assert!(text.contains("\"code\":\"P004\""), "{text}");
    assert_eq!(text.matches("\"type\":\"game\"").count(), 2, "{text}");
}

#[test]
fn leading_comment_belongs_to_the_first_game() {
    // A preamble comment before the first tags (as in pgn-extract's eco.pgn) is part of the
    // first game, and a comment after the last result is not a game of its own.
    let input =
        b"{ preamble }\n\n[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 * ; trailing\n";
    let o = pgnkit(
        &["validate", "--format", "json", "--game-records", "-"],
        Some(input),
    );
    let text = stdout(&o);
    assert_eq!(text.matches("\"type\":\"game\"").count(), 2, "{text}");
}

#[test]
fn truncated_move_token_is_unreadable() {
    // chess-library's corrupted.pgn ends in `Kx`; python-chess calls that game legal.
    let o = pgnkit(
        &["validate", "--format", "json", "-"],
        Some(b"1. e4 e5 2. Kx"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("\"code\":\"M003\""));
}

#[test]
fn repair_replaces_the_one_likely_move() {
    let o = pgnkit(
        &[
            "validate",
            "--repair",
            "--format",
            "json",
            "--game-records",
            "testdata/validate/two-games.pgn",
        ],
        None,
    );
    let text = stdout(&o);
    assert!(text.contains("\"code\":\"M005\""), "{text}");
    assert!(text.contains("read as Bc4xf7+ (Bxf7+)"), "{text}");
    assert!(!text.contains("\"code\":\"M001\""), "{text}");
    // With the repair the game replays to Legall's mate.
    assert!(text.contains("\"termination\":\"checkmate\""), "{text}");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn jobs_do_not_change_the_output() {
    let mut input = Vec::new();
    for i in 0..400 {
        let game = match i % 4 {
            0 => "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0",
            1 => "1. f3 e5 2. g4 Qh4# 1-0",
            2 => "1. d4 d5 2. Nf3 Nf9 *",
            _ => "1. e4 (1. d4 d5 (1... Nf6 2. c4)) 1... c5 2. nf3 *",
        };
        input.extend(
            format!("[Event \"{i}\"]\n[White \"W{i}\"]\n[Black \"B\"]\n\n{game}\n\n").bytes(),
        );
    }
    let run = |jobs: &str, format: &str| {
        let mut args = vec!["validate", "-j", jobs, "--format", format, "--notes", "-"];
        // Game records are JSON lines: refused with the other formats.
        if format == "json" {
            args.push("--game-records");
        }
        let o = pgnkit(&args, Some(&input));
        assert_eq!(o.status.code(), Some(1));
        o.stdout
    };
    for format in ["text", "json", "csv"] {
        let one = run("1", format);
        assert!(!one.is_empty());
        assert_eq!(run("2", format), one, "{format}");
        assert_eq!(run("4", format), one, "{format}");
    }
}

#[test]
fn compressed_copies_give_the_same_output() {
    let plain = pgnkit(
        &[
            "validate",
            "--format",
            "json",
            "--game-records",
            "testdata/input/compressed/games.pgn",
        ],
        None,
    );
    let expected = stdout(&plain).replace("testdata/input/compressed/games.pgn", "FILE");
    assert!(expected.contains("\"code\":\"M001\""));
    for ext in ["gz", "bz2", "zst", "xz"] {
        let name = format!("testdata/input/compressed/games.pgn.{ext}");
        let o = pgnkit(
            &["validate", "--format", "json", "--game-records", &name],
            None,
        );
        assert_eq!(o.status.code(), plain.status.code(), "{ext}");
        assert_eq!(stdout(&o).replace(&name, "FILE"), expected, "{ext}");
        // Compression is recognised by content, also on stdin.
        let bytes = std::fs::read(&name).unwrap();
        let o = pgnkit(
            &["validate", "--format", "json", "--game-records", "-"],
            Some(&bytes),
        );
        assert_eq!(
            stdout(&o).replace("<stdin>", "FILE"),
            expected,
            "stdin {ext}"
        );
    }
}

#[test]
fn directories_are_walked_in_a_stable_order() {
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "json",
            "--game-records",
            "testdata/input/compressed",
        ],
        None,
    );
    let text = stdout(&o);
    let files: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "game" && v["game"] == 1)
        .map(|v| v["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        files,
        [
            "testdata/input/compressed/games.pgn",
            "testdata/input/compressed/games.pgn.bz2",
            "testdata/input/compressed/games.pgn.gz",
            "testdata/input/compressed/games.pgn.xz",
            "testdata/input/compressed/games.pgn.zst"
        ]
    );
}

#[test]
fn legacy_encodings_decode_to_the_same_games() {
    let json = |file: &str| {
        let o = pgnkit(
            &[
                "validate",
                "--format",
                "json",
                "--game-records",
                "--notes",
                file,
            ],
            None,
        );
        (
            stdout(&o).replace(file, "FILE"),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for (copy, original, encoding) in [
        ("chinese-gbk", "chinese-utf8", "GBK"),
        ("chinese-big5", "chinese-big5-utf8", "Big5"),
        ("latin-1252", "latin-utf8", "windows-1252"),
        ("latin-utf16", "latin-utf8", "UTF-16LE"),
    ] {
        let (want, _) = json(&format!("testdata/input/{original}.pgn"));
        let (got, summary) = json(&format!("testdata/input/{copy}.pgn"));
        assert_eq!(got, want, "{copy}");
        assert!(
            summary.contains(&format!("{encoding} (1 file)")),
            "{copy}: {summary}"
        );
    }
    let (text, _) = json("testdata/input/chinese-gbk.pgn");
    assert!(text.contains("\"white\":\"张伟\""), "{text}");
}

#[test]
fn a_byte_that_does_not_decode_is_reported_with_its_offset() {
    let o = pgnkit(
        &[
            "validate",
            "--encoding",
            "gbk",
            "testdata/input/chinese-gbk-badbyte.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    // A diagnostic in validate's output, at the first bad byte's line and column.
    let out = stdout(&o);
    assert!(
        out.contains("error[P027]: 1 byte sequence is not valid GBK (at byte offset 115)"),
        "{out}"
    );
    assert!(
        out.contains("--> testdata/input/chinese-gbk-badbyte.pgn:9:1\n"),
        "{out}"
    );
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "csv",
            "testdata/diagnostics/P027.pgn",
        ],
        None,
    );
    assert!(
        stdout(&o).contains("P027.pgn,9,21,0,?,?,,,error,P027,"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn invalid_utf8_tag_with_forced_encoding() {
    let input = b"[Event \"Gen\xe8ve\"]\n\n1. e4 *\n";
    let o = pgnkit(
        &["validate", "--encoding", "utf-8", "--format", "json", "-"],
        Some(input),
    );
    let text = stdout(&o);
    assert!(text.contains("\"code\":\"P016\""), "{text}");
    // Detected, the same bytes read as Windows-1252 and need no warning.
    let o = pgnkit(&["validate", "--format", "json", "-"], Some(input));
    assert!(!stdout(&o).contains("P016"));
}

/// Every diagnostic of `validate --format json` on `file`: (game, code, line, column, message).
fn diagnostics(file: &str) -> Vec<(u64, String, u64, u64, String)> {
    let o = pgnkit(&["validate", "--format", "json", "-q", file], None);
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "diagnostic")
        .map(|v| {
            (
                v["game"].as_u64().unwrap(),
                v["code"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap_or(0),
                v["column"].as_u64().unwrap_or(0),
                v["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn results_by_rule_at_the_start_and_off_the_board() {
    let found = diagnostics("testdata/validate/result-rules.pgn");
    let codes: Vec<(u64, &str)> = found.iter().map(|d| (d.0, d.1.as_str())).collect();
    // 1: a dead FEN start ends the game at ply 0, and its first move is reported where it
    // stands (plain movetext: the fast path agrees). 2: no start position, but the Result tag
    // is still checked against the token. 3: a forfeit is a warning, not R006.
    assert_eq!(
        codes,
        [(1, "R013"), (2, "T009"), (2, "R008"), (3, "R014")],
        "{found:?}"
    );
    assert!(
        found[0]
            .4
            .contains("over before its first move (dead position), but 3 more moves"),
        "{found:?}"
    );
    assert_eq!((found[0].2, found[0].3), (11, 4));
    assert_eq!((found[2].2, found[2].3), (22, 10));
    assert!(found[3].4.contains("\"Black disconnects\""), "{found:?}");
}

#[test]
fn chinese_moves_with_latin_names_decide_the_encoding() {
    // Chardetng alone reads these as Windows-1252 or ISO-8859-4: the piece names are the only
    // non-ASCII text.
    let json = |file: &str| {
        let o = pgnkit(
            &["validate", "--format", "json", "--game-records", file],
            None,
        );
        (
            stdout(&o).replace(file, "FILE"),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for (copy, encoding) in [
        ("chinese-moves-gbk", "GBK"),
        ("chinese-moves-gb18030", "gb18030"),
        ("chinese-moves-big5", "Big5"),
    ] {
        let original = match copy {
            "chinese-moves-gbk" => "chinese-moves-utf8".to_string(),
            _ => format!("{copy}-utf8"),
        };
        let (want, _) = json(&format!("testdata/input/{original}.pgn"));
        let (got, summary) = json(&format!("testdata/input/{copy}.pgn"));
        assert_eq!(got, want, "{copy}");
        assert!(!got.contains("\"severity\":\"error\""), "{copy}: {got}");
        assert!(
            summary.contains(&format!("{encoding} (1 file)")),
            "{copy}: {summary}"
        );
    }
}

/// The stray byte is read as Windows-1252 (issue 39: a merged database mixes UTF-8 and
/// Latin-1 games), the rest stays UTF-8, and a note says where.
#[test]
fn utf8_with_a_stray_byte_stays_utf8() {
    let file = "testdata/input/latin-utf8-badbyte.pgn";
    let bytes = std::fs::read(file).unwrap();
    let bad = bytes
        .utf8_chunks()
        .find(|c| !c.invalid().is_empty())
        .map(|c| c.valid().as_ptr() as usize + c.valid().len() - bytes.as_ptr() as usize)
        .unwrap();
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "json",
            "--notes",
            "--game-records",
            file,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("\"white\":\"Müller, Jörg\""), "{out}");
    assert!(
        out.contains(&format!(
            "1 byte sequence is not UTF-8 (at byte offset {bad}) and read as windows-1252"
        )),
        "{out}"
    );
    assert!(out.contains("\"code\":\"P028\""), "{out}");
    assert!(!out.contains("P027"), "{out}");
    let o = pgnkit(&["convert", "--to", "san", file], None);
    assert!(
        stdout(&o).contains("{Najdorf, the ü year after}"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn later_moves_count_glued_moves_not_tokens() {
    // After the illegal `Ba6xf7+`: `Ke7` glued to it, `Nf3Nf6` (two moves in one token) and
    // `d4`; the `e.p.` mark is no move.
    let o = pgnkit(
        &[
            "validate",
            "testdata/validate/glued-moves-after-illegal.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("= note: 4 later moves of the main line could not be replayed"),
        "{text}"
    );
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let file = "testdata/validate/clean.pgn";
    let cases: &[(&[&str], &str)] = &[
        (&["--game-records"], "--game-records needs --format json"),
        (
            &["--game-records", "--format", "csv"],
            "--format csv has no place for them",
        ),
        (
            &["--board", "--format", "csv"],
            "--board needs --format text",
        ),
        (
            &["--board", "--format", "json"],
            "--board needs --format text",
        ),
    ];
    for (extra, why) in cases {
        let mut args = vec!["validate"];
        args.extend_from_slice(extra);
        args.push(file);
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{extra:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{extra:?}: {}", stdout(&o));
    }
    // With the format they belong to, the same options run.
    for extra in [&["--game-records", "--format", "json"][..], &["--board"]] {
        let mut args = vec!["validate", "-q"];
        args.extend_from_slice(extra);
        args.push(file);
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
    }
}

// Lexing: periods, glued tokens, line endings, game splitting.

/// One game as `validate --format json --game-records` reports it: its plies, its result
/// token and the codes of its diagnostics (roster warnings aside).
#[derive(Debug, PartialEq)]
struct GameSeen {
    plies: u64,
    result: String,
    codes: Vec<String>,
}

/// The games of `files` (`-` reads `stdin`); `-j 2` must report exactly what `-j 1` does.
fn games_seen(files: &[&str], stdin: Option<&[u8]>) -> Vec<GameSeen> {
    let run = |jobs: &str| {
        let mut args = vec!["validate", "-j", jobs, "--format", "json", "--game-records"];
        args.extend_from_slice(files);
        let o = pgnkit(&args, stdin);
        assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
        stdout(&o)
    };
    let out = run("1");
    assert_eq!(run("2"), out, "-j 2 differs from -j 1");
    let mut games = Vec::new();
    let mut codes = Vec::new();
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object a line");
        if v["type"] == "diagnostic" {
            if v["code"] != "T001" {
                codes.push(v["code"].as_str().unwrap().to_string());
            }
        } else if v["type"] == "game" {
            games.push(GameSeen {
                plies: v["plies"].as_u64().unwrap(),
                result: v["result_token"].as_str().unwrap_or("").to_string(),
                codes: std::mem::take(&mut codes),
            });
        }
    }
    games
}

fn seen(plies: u64, result: &str, codes: &[&str]) -> GameSeen {
    GameSeen {
        plies,
        result: result.to_string(),
        codes: codes.iter().map(|c| c.to_string()).collect(),
    }
}

#[test]
fn periods_apart_from_the_move_number_belong_to_it() {
    let games = games_seen(&["testdata/lexer/periods.pgn"], None);
    assert_eq!(games, [seen(4, "*", &[]), seen(17, "*", &[])]);
    // Periods that follow no move number are reported, and the game goes on.
    let o = pgnkit(&["validate", "-"], Some(b"1. e4 ... e5 2. Nf3 *\n"));
    let text = stdout(&o);
    assert!(text.contains("error[P008]: unexpected '...'"), "{text}");
    assert!(!text.contains("M00"), "{text}");
}

#[test]
fn a_move_glued_to_the_result_or_a_nag_is_read() {
    let games = games_seen(&["testdata/lexer/glued.pgn"], None);
    assert_eq!(
        games,
        [
            seen(5, "*", &[]),
            seen(4, "*", &["R012"]),
            seen(5, "*", &[])
        ]
    );
}

#[test]
fn a_result_glued_to_the_next_game_ends_its_game() {
    let games = games_seen(&["testdata/lexer/star-next-game.pgn"], None);
    assert_eq!(
        games,
        [seen(0, "*", &[]), seen(2, "1-0", &[]), seen(1, "*", &[])]
    );
}

#[test]
fn a_tag_pasted_into_the_movetext_is_reported_once() {
    let games = games_seen(&["testdata/lexer/pasted-tag.pgn"], None);
    assert_eq!(games, [seen(4, "*", &["P017", "P017"])]);
}

/// `input` with every `\n` replaced by `ending`.
fn with_line_ending(input: &[u8], ending: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in input {
        if b == b'\n' {
            out.extend_from_slice(ending);
        } else {
            out.push(b);
        }
    }
    out
}

/// Old Mac files end lines with a `\r` alone: the same games give the same report, lines and
/// columns included, as with `\n` or `\r\n`.
#[test]
fn every_line_ending_gives_the_same_report() {
    let lf = std::fs::read("testdata/lexer/line-endings.pgn").unwrap();
    let report = |input: &[u8]| {
        let run = |jobs: &str| {
            let args = [
                "validate",
                "-j",
                jobs,
                "--format",
                "json",
                "--game-records",
                "-",
            ];
            stdout(&pgnkit(&args, Some(input)))
        };
        let one = run("1");
        assert_eq!(run("2"), one, "-j 2 differs from -j 1");
        one
    };
    let expected = report(&lf);
    assert!(expected.contains("\"line\":14,\"column\":8"), "{expected}");
    assert!(expected.contains("\"line\":34,\"column\":21"), "{expected}");
    for ending in [&b"\r\n"[..], b"\r"] {
        assert_eq!(
            report(&with_line_ending(&lf, ending)),
            expected,
            "{ending:?}"
        );
    }
}

/// Games that share a line are read game by game, however many there are.
#[test]
fn games_on_one_line_are_read_game_by_game() {
    let lf = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    let games = games_seen(&["testdata/validate/two-games.pgn"], None);
    assert_eq!(games.len(), 2);
    let line = with_line_ending(&lf.repeat(3), b" ");
    let got = games_seen(&["-"], Some(&line));
    let expected: Vec<&GameSeen> = games.iter().cycle().take(6).collect();
    assert_eq!(got.iter().collect::<Vec<_>>(), expected);
    // A line longer than the game-size limit once made one game of it all, skipped (P012).
    let mut long = Vec::new();
    for _ in 0..2 {
        long.extend_from_slice(&line);
        long.extend_from_slice(b" {");
        long.resize(long.len() + (600 << 10), b'x');
        long.extend_from_slice(b"} ");
    }
    let args = ["validate", "--max-game-size", "1", "--format", "json", "-"];
    let o = pgnkit(&args, Some(&long));
    let err = stderr(&o);
    assert!(err.contains("12 games"), "{err}");
    assert!(!stdout(&o).contains("P012"), "{}", stdout(&o));
}

/// `cat a.pgn b.pgn` leaves `b.pgn`'s byte order mark before its first game: that game is
/// read like the others, after a game with a result or without.
#[test]
fn a_byte_order_mark_between_files_is_a_space() {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let file = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    let games = games_seen(&["testdata/validate/two-games.pgn"], None);
    let cat = [BOM, &file[..], BOM, &file[..]].concat();
    let got = games_seen(&["-"], Some(&cat));
    let expected: Vec<&GameSeen> = games.iter().cycle().take(4).collect();
    assert_eq!(got.iter().collect::<Vec<_>>(), expected);
    let no_result = [&b"1. e4 e5\n"[..], BOM, &file[..]].concat();
    let got = games_seen(&["-"], Some(&no_result));
    assert_eq!(got[0], seen(2, "", &["P007"]));
    assert_eq!(&got[1..], &games[..]);
}

#[test]
fn moves_glued_together_are_reported() {
    let games = games_seen(&["testdata/diagnostics/P019.pgn"], None);
    assert_eq!(games, [seen(6, "*", &["P019"])]);
    let o = pgnkit(&["validate", "testdata/diagnostics/P019.pgn"], None);
    assert!(stdout(&o).contains("warning[P019]"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("write them apart: Nf3 Nc6"),
        "{}",
        stdout(&o)
    );
    let o = pgnkit(
        &["validate", "--strict", "testdata/diagnostics/P019.pgn"],
        None,
    );
    assert!(stdout(&o).contains("error[P019]"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_dashed_evaluation_is_reported() {
    let games = games_seen(&["testdata/diagnostics/P020.pgn"], None);
    assert_eq!(games, [seen(7, "1-0", &["P020"])]);
}

#[test]
fn a_game_wrapped_for_a_forum_is_read() {
    let games = games_seen(&["testdata/lexer/forum.pgn"], None);
    assert_eq!(games, [seen(7, "1-0", &["P021"]), seen(2, "*", &["P021"])]);
}

/// Regression: every finding was kept and quoted its whole line, so 16 MB of `} ` in one
/// game took gigabytes of memory and output (and the text format quadratic time).
#[test]
fn findings_of_one_code_in_a_game_are_capped_and_counted() {
    let file = "testdata/validate/many-stray-braces.pgn";
    let o = pgnkit(&["validate", "--format", "json", file], None);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    let braces: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"code\":\"P008\""))
        .collect();
    let written = std::fs::read_to_string(file).unwrap();
    let stray = written.matches('}').count();
    assert!(stray > 100, "the example must have more than the cap");
    assert_eq!(braces.len(), 100, "{text}");
    let more = format!(
        "{} more findings like this in this game not shown",
        stray - 100
    );
    assert!(braces[99].contains(&more), "{}", braces[99]);
    assert!(braces[..99].iter().all(|l| !l.contains("not shown")));
    // The moves after them are still replayed.
    let o = pgnkit(
        &["validate", "--format", "json", "--game-records", file],
        None,
    );
    assert!(stdout(&o).contains("\"plies\":3"), "{}", stdout(&o));
}

/// Regression: a long line was decoded whole for each finding on it (quadratic), then not
/// quoted at all. Now a window around the token is quoted, the caret under the token.
#[test]
fn a_long_line_is_quoted_as_a_window_around_the_token() {
    let o = pgnkit(&["validate", "testdata/validate/long-line.pgn"], None);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(" 9 | "))
        .unwrap_or_else(|| panic!("no excerpt: {text}"));
    let excerpt: Vec<char> = lines[at].strip_prefix(" 9 | ").unwrap().chars().collect();
    assert!(excerpt.len() < 300, "{}", lines[at]);
    assert_eq!(excerpt.first(), Some(&'…'));
    assert_eq!(excerpt.last(), Some(&'…'));
    let caret: Vec<char> = lines[at + 1]
        .strip_prefix("   | ")
        .unwrap()
        .chars()
        .collect();
    let col = caret.iter().position(|&c| c == '^').unwrap();
    let underlined: String = excerpt[col..col + 3].iter().collect();
    assert_eq!(underlined, "Ke3");
    assert_eq!(caret.iter().filter(|&&c| c == '^').count(), 3);
}

/// Regression: a token of any length was quoted whole, in the message and the `token` field.
#[test]
fn a_long_token_is_cut_where_it_is_quoted() {
    let o = pgnkit(
        &[
            "validate",
            "--format",
            "json",
            "testdata/validate/long-token.pgn",
        ],
        None,
    );
    let text = stdout(&o);
    let line = text.lines().find(|l| l.contains("M003")).unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let token = v["token"].as_str().unwrap();
    assert_eq!(token, format!("{}…", "&".repeat(60)));
    assert!(v["message"].as_str().unwrap().contains(token), "{line}");
}

/// Regression: the duplicate-tag checks compared each tag with every earlier one, in the
/// lexer (at each tag after a blank line) and in the replay: 100,000 tags took 16 s. Past a
/// few tags both checks use a set of names; this pins what they find there (the time is
/// measured by `benches/linear.sh`, not here).
#[test]
fn duplicates_among_many_tags_are_found() {
    // 18,000 tags, kept under 256 KiB.
    let mut input = String::new();
    for i in 0..18_000 {
        input.push_str(&format!("[T{i} \"\"]\n"));
        match i {
            // Repeated on the next line: the same game, a duplicate.
            4_999 => input.push_str("[T7 \"again\"]\n"),
            17_999 => input.push_str("[T9001 \"again\"]\n"),
            // Repeated after a blank line: a new game.
            8_999 => input.push_str("\n[T100 \"next game\"]\n"),
            _ => {}
        }
        input.push('\n');
    }
    input.push_str("1. e4 *\n");
    assert!(input.len() < 256 << 10);
    let o = pgnkit(
        &["validate", "--format", "json", "--game-records", "-"],
        Some(input.as_bytes()),
    );
    let text = stdout(&o);
    let dups: Vec<&str> = text.lines().filter(|l| l.contains("T004")).collect();
    assert_eq!(dups.len(), 2, "{text}");
    assert!(
        dups[0].contains("tag T7 ") && dups[0].contains("\"game\":1"),
        "{text}"
    );
    assert!(
        dups[1].contains("tag T9001 ") && dups[1].contains("\"game\":2"),
        "{text}"
    );
    let games = text
        .lines()
        .filter(|l| l.contains("\"type\":\"game\""))
        .count();
    assert_eq!(games, 2, "{text}");
}

/// Spans within a game are `u32` byte offsets: a `--max-game-size` of 4 GiB or more would let
/// them wrap, so it is refused as a bad argument (exit 2) with the range; 4095 MiB is taken.
/// 0 was taken and made each tag line a game of its own, too large.
#[test]
fn max_game_size_is_bounded_so_offsets_cannot_wrap() {
    let game = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    for bad in ["4096", "0"] {
        let o = pgnkit(&["validate", "--max-game-size", bad, "-"], Some(&game));
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("1..=4095"), "{}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    }
    let ok = pgnkit(&["validate", "-"], Some(&game));
    for good in ["4095", "1"] {
        let o = pgnkit(&["validate", "--max-game-size", good, "-"], Some(&game));
        assert_eq!(o.status.code(), ok.status.code(), "{}", stderr(&o));
        assert_eq!(stdout(&o), stdout(&ok));
    }
}

/// `--jobs` takes 1 to 1024 threads in every command: 0 was taken, 100,000 aborted the
/// process setting up their stacks, and 4294967296 aborted on a 1.2 TB allocation. Outside
/// the range it is a bad argument (exit 2) that names the range, before any input is read.
#[test]
fn jobs_outside_their_range_are_refused() {
    let game = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    for command in [
        &["validate"][..],
        &["convert", "--format", "csv"],
        &["stats"],
    ] {
        for bad in ["0", "1025", "100000", "4294967296", "-1"] {
            let jobs = format!("--jobs={bad}");
            let args = [command, &[&jobs, "-"]].concat();
            let o = pgnkit(&args, Some(&game));
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("--jobs"), "{args:?}: {}", stderr(&o));
            assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        }
    }
    let one = pgnkit(&["validate", "-j", "1", "-"], Some(&game));
    let most = pgnkit(&["validate", "-j", "1024", "-"], Some(&game));
    assert_eq!(most.status.code(), one.status.code(), "{}", stderr(&most));
    assert_eq!(stdout(&most), stdout(&one));
}

/// Every way the pipeline shares out the work gives what one job gives: pieces cut after
/// game ends (many small games), batches of games split by the reader (a first game of a
/// comment longer than the first read, so that the first piece holds no game end), and
/// pieces read in order (a game in the middle longer than a piece may grow).
#[test]
fn each_pipeline_strategy_matches_one_job() {
    let games = |out: &mut Vec<u8>, from: usize| {
        for i in from..from + 3000 {
            let moves = ["Nf3 Nf6 ", "Nf3 Nf9 ", "Bb5 "][i % 3].repeat(1 + i % 4);
            let result = ["1-0", "*", "1/2-1/2"][i % 3];
            out.extend(format!("[Event \"{i}\"]\n\n1. e4 e5 {moves}{result}\n\n").bytes());
        }
    };
    let big = |size: usize| format!("[Event \"big\"]\n\n1. e4 {{{}}} *\n\n", "x".repeat(size));
    let mut small = Vec::new();
    games(&mut small, 0);
    let mut huge_first = big(2 << 20).into_bytes();
    games(&mut huge_first, 1);
    let mut huge_middle = small.clone();
    huge_middle.extend(big(9 << 20).bytes());
    games(&mut huge_middle, 3001);
    let args = |jobs| {
        [
            "validate",
            "--format",
            "json",
            "--notes",
            "--game-records",
            "-j",
            jobs,
            "-",
        ]
    };
    for input in [&small, &huge_first, &huge_middle] {
        let one = pgnkit(&args("1"), Some(input));
        assert!(stdout(&one).contains("M001"), "{}", stderr(&one));
        let two = pgnkit(&args("2"), Some(input));
        assert_eq!(two.status.code(), one.status.code());
        assert_eq!(stdout(&two), stdout(&one));
    }
}

#[test]
fn a_long_tag_section_with_blank_lines_is_one_game_with_any_jobs() {
    // Past the reader's first 256 KiB: a read that ended inside a tag name (`[Tag1` of
    // `[Tag17078 ...]`) after a blank line once started a second game there.
    let mut input = String::new();
    for i in 0..20000 {
        input.push_str(&format!("[Tag{i} \"v\"]\n\n"));
    }
    input.push_str("1. e4 *\n");
    let dir = std::env::temp_dir().join(format!("pgnkit-long-tags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long-tags.pgn");
    std::fs::write(&path, &input).unwrap();
    let path = path.to_str().unwrap();
    for jobs in ["1", "2"] {
        let o = pgnkit(&["validate", "-j", jobs, "--format", "csv", path], None);
        let out = stdout(&o);
        let err = stderr(&o);
        assert!(err.contains("1 file, 1 game:"), "-j {jobs}: {err}");
        assert!(!out.contains("P007"), "-j {jobs}: {out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_date_off_the_standard_is_reported_with_what_is_wrong() {
    let dates: Vec<(u64, String)> = diagnostics("testdata/stats/dates.pgn")
        .into_iter()
        .filter(|d| d.1 == "T002")
        .map(|d| (d.0, d.4))
        .collect();
    let want = [
        (1, "Date \"2024.3.7\" is not in YYYY.MM.DD form"),
        (
            2,
            "Date \"2024.+3.17\" has characters other than digits and '?'",
        ),
        (3, "Date \"2024.13.05\" has a month or day out of range"),
        (4, "Date \"2024.03\" is not in YYYY.MM.DD form"),
        (5, "Date \"24.03.17\" is not in YYYY.MM.DD form"),
        (7, "Date \"2024.03.32\" has a month or day out of range"),
    ];
    let want: Vec<(u64, String)> = want.iter().map(|&(g, m)| (g, m.to_owned())).collect();
    assert_eq!(dates, want);
}

/// A game over `--max-game-size` is one game: reported once (P012) at its first line with
/// its players, and the games after it are read whole, with `-j 1` and `-j 2` alike. A 36 MB
/// comment once made 5 games (a P012 for each of its tag lines, players `? – ?`), and 2
/// million tag lines made each tag line an oversized game of its own, in quadratic time.
#[test]
fn an_oversized_game_is_skipped_once_with_its_players() {
    let two = std::fs::read_to_string("testdata/validate/two-games.pgn").unwrap();
    let players = "[Event \"big\"]\n[White \"Alice\"]\n[Black \"Bob\"]\n\n";
    let comment = format!("{players}1. e4 {{{}}} e5 1-0\n\n", "x\n".repeat(600 << 10));
    let mut tags = String::from("[White \"Alice\"]\n[Black \"Bob\"]\n");
    for i in 0..80_000 {
        tags.push_str(&format!("[Tag{i} \"v\"]\n"));
    }
    tags.push_str("\n1. e4 *\n\n");
    let one_line =
        format!("{players}1. e4 {}1-0 ", "Nf3 Nf6 Ng1 Ng8 ".repeat(70_000)).replace('\n', " ");
    for big in [comment, tags, one_line] {
        assert!(big.len() > 1 << 20);
        let input = format!("{two}\n{big}{two}");
        let first_line = two.lines().count() + 2;
        let mut outputs = Vec::new();
        for jobs in ["1", "2"] {
            let args = [
                "validate",
                "--max-game-size",
                "1",
                "-j",
                jobs,
                "--format",
                "json",
                "-",
            ];
            let o = pgnkit(&args, Some(input.as_bytes()));
            assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
            assert!(stderr(&o).contains(", 5 games:"), "{}", stderr(&o));
            let out = stdout(&o);
            let too_large: Vec<&str> = out.lines().filter(|l| l.contains("P012")).collect();
            assert_eq!(too_large.len(), 1, "{out}");
            let line = format!("\"line\":{first_line},");
            assert!(too_large[0].contains(&line), "{}", too_large[0]);
            assert!(too_large[0].contains("\"game\":3,"), "{}", too_large[0]);
            assert!(
                too_large[0].contains("\"white\":\"Alice\",\"black\":\"Bob\""),
                "{out}"
            );
            outputs.push(out);
        }
        assert_eq!(outputs[0], outputs[1], "-j 2 differs from -j 1");
        // The games around it are those of the file read alone, found again.
        let alone = stdout(&pgnkit(
            &["validate", "--format", "json", "-"],
            Some(two.as_bytes()),
        ));
        let codes = |out: &str, skip: u64| -> Vec<(u64, String)> {
            common::json_lines(out)
                .iter()
                .filter(|v| v["type"] == "diagnostic" && v["code"] != "P012")
                .map(|v| {
                    let game = v["game"].as_u64().unwrap();
                    (
                        if game > 3 { game - skip } else { game },
                        v["code"].to_string(),
                    )
                })
                .collect()
        };
        let around = codes(&outputs[0], 3);
        let alone = codes(&alone, 0);
        assert!(!alone.is_empty());
        assert_eq!(around, [alone.clone(), alone].concat(), "{}", outputs[0]);
    }
}

/// Issue 40: every text cell of `--format csv` (file, players, token, message, help) is
/// spreadsheet-safe, as `convert` and `stats` cells are: a cell a spreadsheet would run as a
/// formula gets a leading `'`.
#[test]
fn csv_cells_are_spreadsheet_safe() {
    // Run where the file is, so that its name starts the `file` cell.
    let dir = common::scratch("validate/injection");
    std::fs::copy("testdata/validate/injection.pgn", dir.join("=cmd.pgn")).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .args(["validate", "--format", "csv", "-q", "=cmd.pgn"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let mut reader = csv::Reader::from_reader(o.stdout.as_slice());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "{}", stdout(&o));
    for row in &rows {
        for cell in row {
            assert!(
                !cell.starts_with(['=', '+', '@', '\t', '\r']),
                "live formula {cell:?} in {row:?}"
            );
        }
        assert_eq!(&row[0], "'=cmd.pgn");
    }
    let at = |r: usize, c: usize| rows[r][c].to_owned();
    assert_eq!([at(0, 4), at(0, 5), at(0, 10)], ["'=cmd", "'@b", "'=1+1"]);
    assert_eq!([at(1, 4), at(1, 5)], ["'\t=1+1", "'-2+3"]);
    // What a spreadsheet only shows is kept.
    assert_eq!(at(1, 10), "Kf3");
}

/// The diagnostics of `pgnkit validate --format json FILE`: (game, code, column, notes).
fn findings(file: &str) -> Vec<(u64, String, u64, Vec<String>)> {
    let o = pgnkit(&["validate", "--format", "json", "-q", file], None);
    common::json_lines(&stdout(&o))
        .into_iter()
        .filter(|d| d["type"] == "diagnostic" && d["code"] != "T001")
        .map(|d| {
            let notes = d["notes"].as_array().cloned().unwrap_or_default();
            (
                d["game"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_owned(),
                d["column"].as_u64().unwrap(),
                notes
                    .iter()
                    .map(|n| n.as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect()
}

/// Issue 39: move numbers off the same way all through a game, and moves in UCI all through
/// it, are one finding a game, with the count of the others in a note; not one a move.
#[test]
fn a_pattern_through_a_game_is_reported_once_with_its_count() {
    let numbers = findings("testdata/validate/numbers-off-by-one.pgn");
    assert_eq!(
        numbers,
        [
            (
                1,
                "P015".to_owned(),
                1,
                vec![
                    "4 more move numbers of this game are off the same way (1 too high); this \
                     finding stands for all of them"
                        .to_owned()
                ]
            ),
            (
                2,
                "P015".to_owned(),
                10,
                vec![
                    "1 more move number of this game is off the same way (1 too high); this \
                     finding stands for all of them"
                        .to_owned()
                ]
            ),
        ]
    );
    let uci = findings("testdata/validate/uci-moves.pgn");
    assert_eq!(
        uci,
        [(
            1,
            "N010".to_owned(),
            4,
            vec![
                "6 more moves of this game are in UCI notation; this finding stands for all of \
                 them"
                    .to_owned()
            ]
        )]
    );
}

/// Issue 39: a `)` that closes no variation is one finding (P006), not also P008 at the same
/// place.
#[test]
fn a_stray_closing_parenthesis_is_reported_once() {
    let found: Vec<(String, u64)> = findings("testdata/validate/stray-paren.pgn")
        .into_iter()
        .map(|(_, code, column, _)| (code, column))
        .collect();
    assert_eq!(found, [("P006".to_owned(), 7), ("P006".to_owned(), 28)]);
}

/// Regression: with `--lang` a book-layout game whose first move is in ASCII was lexed again
/// whole without its header read, so the header lines were reported as stray tokens of the
/// movetext (P008); its header is its tags with any `--lang`.
#[test]
fn a_book_header_is_read_with_lang_too() {
    let book = "白方:张三 黑方:李四\n1.e4 e5 2.马f3 马c6 *\n".as_bytes();
    for args in [&["validate", "-"][..], &["validate", "--lang", "de", "-"]] {
        let o = pgnkit(args, Some(book));
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stdout(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
    }
}
