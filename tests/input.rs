//! The input loop the three commands share, run as a user runs it: inputs opened once (pipes,
//! process substitutions), truncated archives, files that are not PGN, runs that read no game,
//! standard input by default, outputs that cannot be written, rewrites in place.

use std::io::Read;
use std::process::{Command, Stdio};

mod common;

use common::{pgnkit, stderr, stdout};

/// `validate --format json --game-records` on `file` (or stdin when `-`), with the file's
/// name replaced: the games as read, one record each, and their diagnostics.
fn records(file: &str, stdin: Option<&[u8]>) -> (String, String, Option<i32>) {
    let o = pgnkit(
        &[
            "validate",
            "-j",
            "1",
            "--format",
            "json",
            "--game-records",
            file,
        ],
        stdin,
    );
    let name = if file == "-" { "<stdin>" } else { file };
    (
        stdout(&o).replace(name, "FILE"),
        stderr(&o),
        o.status.code(),
    )
}

fn game_records(json: &str) -> usize {
    json.lines()
        .filter(|l| l.contains("\"type\":\"game\""))
        .count()
}

/// Runs `bash -c SCRIPT` in the package folder, with `$PGNKIT` the binary; `None` without
/// bash.
fn bash(script: &str) -> Option<std::process::Output> {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("PGNKIT", env!("CARGO_BIN_EXE_pgnkit"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
}

#[test]
fn a_process_substitution_is_read_once_whole() {
    // The size pre-pass read a pipe's first bytes, and the run then missed them.
    for file in [
        "testdata/validate/clean.pgn",
        "testdata/input/compressed/games.pgn.gz",
    ] {
        let (want, _, code) = records(file, None);
        let Some(o) = bash(&format!(
            "\"$PGNKIT\" validate -j 1 --format json --game-records <(cat {file})"
        )) else {
            return;
        };
        let got = stdout(&o);
        let name = got
            .lines()
            .find_map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).ok()?;
                v["file"].as_str().map(str::to_owned)
            })
            .expect("a record names its file");
        assert_eq!(got.replace(&name, "FILE"), want, "{file}: {}", stderr(&o));
        assert_eq!(o.status.code(), code, "{file}");
    }
}

#[test]
fn a_truncated_archive_loses_no_game_before_the_cut() {
    for ext in ["gz", "bz2", "zst", "xz"] {
        let file = format!("testdata/input/truncated/games.pgn.{ext}");
        // What the decompressor gives before it breaks off, as `zcat file |` would pass on.
        let raw = std::fs::File::open(&file).unwrap();
        let mut decoder: Box<dyn Read> = match ext {
            "gz" => Box::new(flate2::read::MultiGzDecoder::new(raw)),
            "bz2" => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
            "zst" => Box::new(zstd::stream::read::Decoder::new(raw).unwrap()),
            _ => Box::new(xz2::read::XzDecoder::new_multi_decoder(raw)),
        };
        let mut text = Vec::new();
        let mut buf = [0; 4096];
        while let Ok(n) = decoder.read(&mut buf) {
            if n == 0 {
                break;
            }
            text.extend_from_slice(&buf[..n]);
        }
        let (want, _, _) = records("-", Some(&text));
        let (got, err, code) = records(&file, None);
        // The break is one diagnostic, P025, after the games: at the line of the text it
        // falls on.
        let (breaks, games): (Vec<&str>, Vec<&str>) =
            got.lines().partition(|l| l.contains("\"code\":\"P025\""));
        let games: String = games.iter().map(|l| format!("{l}\n")).collect();
        assert_eq!(games, want, "{ext}: {err}");
        assert_eq!(breaks.len(), 1, "{ext}: {got}");
        assert!(got.ends_with(&format!("{}\n", breaks[0])), "{ext}: {got}");
        let cut: serde_json::Value = serde_json::from_str(breaks[0]).unwrap();
        let line = text.iter().filter(|&&b| b == b'\n').count() + 1;
        assert_eq!(cut["line"], line, "{ext}: {cut}");
        assert_eq!(cut["game"], 0, "{ext}: {cut}");
        assert!(
            cut["message"]
                .as_str()
                .unwrap()
                .contains("stream breaks off after"),
            "{ext}: {cut}"
        );
        assert!(!err.contains("cannot open"), "{ext}: {err}");
        assert_eq!(code, Some(1), "{ext}: {err}");
        if matches!(ext, "gz" | "xz") {
            // These decompress in small steps: most of the games come before the cut.
            assert!(game_records(&got) > 100, "{ext}: {}", game_records(&got));
        }
    }
}

#[test]
fn a_file_that_is_not_pgn_gets_one_error() {
    for command in [
        &["validate", "testdata/input/not-pgn.png"][..],
        &["convert", "testdata/input/not-pgn.png"],
        &["stats", "--report", "summary", "testdata/input/not-pgn.png"],
    ] {
        let o = pgnkit(command, None);
        // validate reports it with the games' diagnostics, the others on standard error.
        let text = if command[0] == "validate" {
            stdout(&o)
        } else {
            stderr(&o)
        };
        assert_eq!(o.status.code(), Some(1), "{command:?}: {}", stderr(&o));
        assert_eq!(
            text.matches("error[P026]: does not look like PGN: a PNG image")
                .count(),
            1,
            "{command:?}: {text}"
        );
        assert_eq!(text.matches("error[").count(), 1, "{command:?}: {text}");
        // About the file, not a game: no game number or players.
        assert!(
            text.contains("  --> testdata/input/not-pgn.png:1:1\n"),
            "{command:?}: {text}"
        );
    }
}

#[test]
fn a_run_that_reads_no_game_says_so_and_is_not_clean() {
    let o = pgnkit(&["validate", "testdata/input/empty.pgn"], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no game read in 1 input"),
        "{}",
        stderr(&o)
    );

    let empty = common::scratch("empty-dir");
    let o = pgnkit(&["validate", empty.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no input"), "{}", stderr(&o));

    // Every file of the directory skipped: the summary counts them, --ext takes them.
    for command in ["validate", "convert", "stats"] {
        let mut args = vec![command, "testdata/input/txt-only"];
        if command == "stats" {
            args.extend(["--report", "summary"]);
        }
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("1 file in the directories skipped: not named .pgn"),
            "{command}: {}",
            stderr(&o)
        );
        args.extend(["--ext", "pgn,txt"]);
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(0), "{command}: {}", stderr(&o));
        assert!(!stderr(&o).contains("skipped"), "{command}: {}", stderr(&o));
    }
}

#[test]
fn no_file_reads_standard_input() {
    let game = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    let o = pgnkit(&["validate", "-j", "1"], Some(&game));
    let dash = pgnkit(&["validate", "-j", "1", "-"], Some(&game));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&dash));
    assert!(stdout(&o).contains("<stdin>:19:69"), "{}", stdout(&o));
    let o = pgnkit(&["convert", "--to", "uci"], Some(&game));
    assert!(stdout(&o).contains("f2f3 e7e5"), "{}", stdout(&o));
}

#[test]
fn stats_reads_its_inputs_as_the_others_do() {
    // --encoding, and bytes that do not decode, reported and counted.
    let o = pgnkit(
        &[
            "stats",
            "--report",
            "summary",
            "--encoding",
            "gbk",
            "testdata/input/chinese-gbk-badbyte.pgn",
        ],
        None,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 byte sequence is not valid GBK (at byte offset 115)"),
        "{err}"
    );
    let o = pgnkit(
        &["stats", "--report", "summary", "--encoding", "klingon", "-"],
        Some(b""),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown encoding 'klingon'"),
        "{}",
        stderr(&o)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_a_failed_write() {
    for (command, out) in [
        (
            &["validate", "testdata/validate/two-games.pgn"][..],
            "stdout",
        ),
        (&["convert", "testdata/validate/two-games.pgn"], "stdout"),
        (
            &[
                "stats",
                "--report",
                "games",
                "testdata/validate/two-games.pgn",
            ],
            "stdout",
        ),
        (&["validate", "testdata/validate/two-games.pgn"], "stderr"),
        (
            &[
                "stats",
                "--report",
                "games",
                "testdata/validate/two-games.pgn",
            ],
            "stderr",
        ),
    ] {
        let full = || {
            std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap()
        };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pgnkit"));
        cmd.args(command).current_dir(env!("CARGO_MANIFEST_DIR"));
        if out == "stdout" {
            cmd.stdout(full()).stderr(Stdio::piped());
        } else {
            cmd.stdout(Stdio::null()).stderr(full());
        }
        let o = cmd.output().unwrap();
        // Never a panic (101); the failure of pgnkit's own.
        assert_eq!(
            o.status.code(),
            Some(2),
            "{command:?} {out}: {}",
            stderr(&o)
        );
        if out == "stdout" {
            let err = stderr(&o);
            assert!(
                err.contains("cannot write standard output: No space left"),
                "{command:?}: {err}"
            );
            assert!(!err.contains("cannot read"), "{command:?}: {err}");
        }
    }
}

#[test]
fn a_closed_pipe_exits_with_what_was_found() {
    // Many games with an error each: far more output than a pipe holds.
    let bad = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    let clean = std::fs::read("testdata/validate/clean.pgn").unwrap();
    for (input, expected) in [(bad, 1), (clean, 0)] {
        let mut many = Vec::new();
        for _ in 0..3000 {
            many.extend_from_slice(&input);
            many.extend_from_slice(b"\n\n");
        }
        // Clean games give no diagnostics: convert's output fills the pipe instead.
        let command = if expected == 1 { "validate" } else { "convert" };
        let mut child = common::spawn(&[command, "-q", "-j", "1", "-"]);
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&many);
        });
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The reader is gone: the next write meets a closed pipe.
        let o = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert_eq!(o.status.code(), Some(expected), "{command}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
}

#[test]
fn a_rewrite_in_place_keeps_every_game() {
    let dir = common::scratch("in-place");
    let file = dir.join("games.pgn");
    let original = std::fs::read("testdata/validate/two-games.pgn").unwrap();
    std::fs::write(&file, &original).unwrap();
    let path = file.to_str().unwrap();
    let o = pgnkit(&["convert", "-q", "-o", path, path], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rewritten = std::fs::read_to_string(&file).unwrap();
    // Game 1 converted, game 2 (an illegal move) kept byte for byte.
    let o = pgnkit(
        &["validate", "-q", "--format", "json", "--game-records", path],
        None,
    );
    assert_eq!(game_records(&stdout(&o)), 2, "{rewritten}");
    let second = String::from_utf8_lossy(&original);
    let second = &second[second.rfind("[Event").unwrap()..];
    assert!(rewritten.contains(second.trim_end()), "{rewritten}");

    // Other formats cannot keep a game as it was: refused, the file left alone.
    std::fs::write(&file, &original).unwrap();
    let o = pgnkit(&["convert", "--format", "jsonl", "-o", path, path], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("refusing to rewrite"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&file).unwrap(), original);
    // With --rejects, the rejected games go there.
    let rejects = dir.join("rejects.pgn");
    let o = pgnkit(
        &[
            "convert",
            "-q",
            "--format",
            "jsonl",
            "--rejects",
            rejects.to_str().unwrap(),
            "-o",
            path,
            path,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&rejects)
        .unwrap()
        .contains(second.trim_end()));
}

#[test]
fn every_command_ends_its_summary_with_the_same_lines_about_inputs() {
    // Convert's summary once named neither its files nor the problems of its inputs.
    let tail = |args: &[&str]| -> Vec<String> {
        let mut all = args.to_vec();
        all.push("testdata/input/chinese-gbk-badbyte.pgn");
        let err = stderr(&pgnkit(&all, None));
        let lines: Vec<String> = err
            .lines()
            .filter(|l| l.starts_with("pgnkit: "))
            .map(str::to_owned)
            .collect();
        let own = lines
            .iter()
            .position(|l| l.contains(" in ") && l.contains("MB/s"))
            .unwrap_or_else(|| panic!("{args:?}: no summary in {err}"));
        assert!(lines[own].starts_with("pgnkit: 1 file"), "{args:?}: {err}");
        lines[own + 1..].to_vec()
    };
    let stats_dir = std::env::temp_dir().join(format!("pgnkit-tail-{}", std::process::id()));
    let stats_out = stats_dir.to_str().unwrap();
    let validate = tail(&["validate"]);
    assert_eq!(
        validate,
        [
            "pgnkit: encodings other than UTF-8: GBK (1 file)",
            "pgnkit: 1 problem of inputs as a whole (breaks, bytes that do not decode, not PGN), reported above",
        ]
    );
    assert_eq!(tail(&["convert"]), validate);
    // Stats writes no report when an input cannot be read; the other two go on and say so.
    for command in ["validate", "convert"] {
        let lines = tail(&[command, "testdata/no-such-file.pgn"]);
        assert_eq!(
            lines.last().map(String::as_str),
            Some("pgnkit: 1 input could not be read, reported above"),
            "{command}"
        );
    }
    assert_eq!(
        tail(&["stats", "--report", "summary", "-o", stats_out]),
        validate
    );
    let _ = std::fs::remove_dir_all(&stats_dir);
}

#[test]
fn a_fifo_in_a_walked_directory_is_skipped_and_named() {
    // A FIFO named `*.pgn` in a folder blocked the walk forever: it was opened and read, and
    // nobody writes to it. `timeout` ends the run should it block again.
    let dir = std::env::temp_dir().join(format!("pgnkit-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("testdata/validate/clean.pgn", dir.join("a.pgn")).unwrap();
    let Some(o) = bash(&format!(
        "mkfifo {d}/b.pgn && timeout 20 \"$PGNKIT\" validate -j 1 {d}",
        d = dir.display()
    )) else {
        return;
    };
    let err = stderr(&o);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("b.pgn skipped: not a regular file"),
        "the FIFO is named: {err}"
    );
}

/// The White and Black names of `convert --to san`'s output.
fn players(o: &std::process::Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter(|l| l.starts_with("[White ") || l.starts_with("[Black "))
        .map(str::to_string)
        .collect()
}

/// Regression (issue 39): one byte that is not UTF-8 in a UTF-8 file turned the whole file
/// into Windows-1252 mojibake (`Müller` read as `MÃ¼ller`). A merged database mixes UTF-8
/// and Latin-1 games: each reads in its own encoding, and a note says where.
#[test]
fn utf8_and_latin1_games_in_one_file_both_read_right() {
    let utf8 = ["Müller", "Hübner", "Gonçalves", "Ørnstein", "Sørensen"];
    let latin = ["Pérez", "Genève", "Ibáñez", "Jäger", "Åkesson"];
    for (n_utf8, n_latin) in [(1, 1), (1, 3), (3, 1), (5, 5), (2, 0)] {
        let mut bytes = Vec::new();
        let mut want = Vec::new();
        for (i, name) in utf8.iter().take(n_utf8).enumerate() {
            let game = format!(
                "[White \"{name}\"]\n[Black \"Smith\"]\n[Result \"1-0\"]\n\n1. e4 e5 {{UTF-8 {i}}} 1-0\n\n"
            );
            bytes.extend(game.as_bytes());
            want.extend([format!("[White \"{name}\"]"), "[Black \"Smith\"]".into()]);
        }
        for name in latin.iter().take(n_latin) {
            let game = format!(
                "[White \"Smith\"]\n[Black \"{name}\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n"
            );
            // Latin-1: every character of these names is one byte.
            bytes.extend(game.chars().map(|c| u8::try_from(u32::from(c)).unwrap()));
            want.extend(["[White \"Smith\"]".into(), format!("[Black \"{name}\"]")]);
        }
        let o = pgnkit(&["convert", "--to", "san", "-"], Some(&bytes));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(players(&o), want, "{n_utf8} UTF-8, {n_latin} Latin-1 games");
        if n_latin > 0 {
            assert!(
                stderr(&o).contains("note[P028]"),
                "{n_utf8}/{n_latin}: {}",
                stderr(&o)
            );
        } else {
            assert!(!stderr(&o).contains("P028"), "{}", stderr(&o));
        }
    }
}

/// Regression (issue 39): a small GBK file whose only non-ASCII text is two player names was
/// read as EUC-JP, silently. It is read as GBK, and a warning says the guess rests on little
/// text, with the `--encoding` that reads it the other way.
#[test]
fn a_small_gbk_file_is_read_as_gbk_and_the_guess_is_flagged() {
    let o = pgnkit(
        &["convert", "--to", "san", "testdata/diagnostics/P029.pgn"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(players(&o)[..2], ["[White \"李超\"]", "[Black \"倪华\"]"]);
    let err = stderr(&o);
    assert!(err.contains("warning[P029]"), "{err}");
    assert!(err.contains("--encoding big5"), "{err}");
    // Forced, the file is read as told, and nothing is said about guessing.
    let o = pgnkit(
        &[
            "convert",
            "--to",
            "san",
            "--encoding",
            "gbk",
            "testdata/diagnostics/P029.pgn",
        ],
        None,
    );
    assert!(!stderr(&o).contains("P029"), "{}", stderr(&o));
}
