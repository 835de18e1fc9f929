//! `pgnkit convert` run as a user runs it: notations, formats, rejects, repair, encodings,
//! atomic output, round trips, and the examples of docs/notation.md.

use std::path::Path;

mod common;

use common::{pgnkit, pgnkit_ok, stderr, stdout};

/// Runs convert and insists on exit status 0.
fn convert(args: &[&str], stdin: Option<&[u8]>) -> String {
    let mut all = vec!["convert", "-q"];
    all.extend_from_slice(args);
    let o = pgnkit(&all, stdin);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

const PRIMER: &str = "testdata/notation/primer-legall.txt";
const CHINESE: &str = "testdata/convert/chinese-games.txt";
const ANNOTATED: &str = "testdata/convert/annotated.pgn";

#[test]
fn primer_game_is_repaired_and_ends_in_legalls_mate() {
    let o = pgnkit_ok(
        &[
            "convert",
            "--repair",
            "--fix-results",
            "--to",
            "san",
            PRIMER,
        ],
        None,
    );
    let out = stdout(&o);
    assert!(out.contains("8.Nd5# 1-0"), "{out}");
    assert!(out.contains("[Result \"1-0\"]"), "{out}");
    assert!(out.contains("[White \"○○○\"]"), "{out}");
    // The replacement is marked in the output and reported as a warning.
    assert!(out.contains("{7.象e4×f7+"), "{out}");
    assert!(out.contains("read as Bxf7+}"), "{out}");
    let err = stderr(&o);
    assert!(err.contains("warning[M005]"), "{err}");
    assert!(
        err.contains("1 game: 1 written (1 repaired), 0 rejected"),
        "{err}"
    );
}

#[test]
fn game_that_does_not_replay_goes_to_rejects_byte_for_byte() {
    let dir = tempdir("rejects");
    let rejects = dir.join("rejects.txt");
    let o = pgnkit(
        &["convert", PRIMER, "--rejects", rejects.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("error[M001]"), "{err}");
    assert!(err.contains("did you mean 象c4×f7+ (Bxf7+)?"), "{err}");
    assert!(
        err.contains("1 game: 0 written (0 repaired), 1 rejected"),
        "{err}"
    );
    let original = std::fs::read(PRIMER).unwrap();
    let rejected = std::fs::read(&rejects).unwrap();
    assert!(
        rejected.starts_with(original.trim_ascii_end()),
        "rejects differ"
    );
}

#[test]
fn every_game_is_accounted_for() {
    let mut input = std::fs::read(CHINESE).unwrap();
    input.extend_from_slice(b"\n\n");
    input.extend(std::fs::read(PRIMER).unwrap());
    let o = pgnkit(&["convert", "-"], Some(&input));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("6 games: 5 written (0 repaired), 1 rejected"),
        "{}",
        stderr(&o)
    );
}

/// Each notation on the Chinese test set: (arguments, moves that must appear).
const NOTATIONS: &[(&[&str], &[&str])] = &[
    (
        &["--to", "san"],
        &["10.Rfe1 O-O-O", "4.Qxf7# 1-0", "5.gxh8=Q", "1.e8=Q Kf6"],
    ),
    (
        &["--to", "lan"],
        &["10.Rf1-e1 O-O-O", "4.Qh5xf7# 1-0", "5.g7xh8=Q", "3.e5xf6"],
    ),
    (
        &["--to", "uci"],
        &["10.f1e1 e8c8", "4.h5f7 1-0", "5.g7h8q", "9.e1g1"],
    ),
    (
        &["--to", "fan"],
        &["10.♖fe1 O-O-O", "4.♕xf7# 1-0", "5.gxh8=♕"],
    ),
    (
        &["--to", "zh"],
        &[
            "10.车fe1 0-0-0",
            "4.后×f7≠ 1-0",
            "5.g×h8=后",
            "2.马f3 马c6 3.象b5",
        ],
    ),
    (
        &["--to", "zh-long"],
        &[
            "10.车f1-e1 0-0-0",
            "4.后h5×f7≠",
            "1.e7-e8=后 王g7-f6",
            "2.马g1-f3",
        ],
    ),
    (
        &["--to", "zh-long", "--traditional"],
        &["10.車f1-e1", "2.馬g1-f3", "7.后h8×g8"],
    ),
    (
        &["--to", "zh", "--capture-sign", "x", "--mate-sign", "#"],
        &["4.后xf7# 1-0", "12.象xc3"],
    ),
    (&["--to", "zh", "--capture-sign", ":"], &["12.象:c3"]),
    (
        &["--to", "san", "--lang", "de"],
        &["10.Tfe1", "4.Dxf7#", "2.Sf3 Sc6 3.Lb5"],
    ),
    (
        &["--to", "lan", "--lang", "fr"],
        &["2.Cg1-f3 Cb8-c6 3.Ff1-b5"],
    ),
];

#[test]
fn each_notation_writes_its_moves() {
    for (args, expected) in NOTATIONS {
        let mut all = args.to_vec();
        all.push(CHINESE);
        let out = convert(&all, None);
        for e in *expected {
            assert!(out.contains(e), "{args:?}: '{e}' not in\n{out}");
        }
    }
}

#[test]
fn every_notation_reads_back_to_the_same_san() {
    let san = convert(&["--to", "san", CHINESE], None);
    for to in ["lan", "uci", "fan", "zh", "zh-long"] {
        let there = convert(&["--to", to, CHINESE], None);
        assert_ne!(there, san, "{to} is not SAN");
        let back = convert(&["--to", "san", "-"], Some(there.as_bytes()));
        assert_eq!(back, san, "san -> {to} -> san");
    }
    let trad = convert(&["--to", "zh", "--traditional", ANNOTATED], None);
    let back = convert(&["--to", "san", "-"], Some(trad.as_bytes()));
    assert_eq!(back, convert(&[ANNOTATED], None));
}

#[test]
fn other_letters_read_back_with_lang() {
    let san = convert(&[CHINESE], None);
    let de = convert(&["--lang", "de", CHINESE], None);
    assert!(de.contains("2.Sf3 Sc6 3.Lb5"), "{de}");
    // German letters read with --lang de; written without letters, then back to SAN.
    let zh = convert(&["--lang", "de", "--to", "zh", "-"], Some(de.as_bytes()));
    assert_eq!(convert(&["-"], Some(zh.as_bytes())), san);
}

#[test]
fn legacy_encodings_decode_to_the_same_output() {
    for (utf8, copy, encoding) in [
        (CHINESE, "testdata/convert/chinese-games.gbk.txt", "gbk"),
        (
            "testdata/convert/traditional.txt",
            "testdata/convert/traditional.big5.txt",
            "big5",
        ),
    ] {
        for to in ["san", "zh"] {
            let expected = convert(&["--to", to, utf8], None);
            assert_eq!(
                convert(&["--encoding", encoding, "--to", to, copy], None),
                expected,
                "{copy}"
            );
        }
    }
}

#[test]
fn undecodable_bytes_are_reported() {
    let o = pgnkit(
        &[
            "convert",
            "--encoding",
            "big5",
            "testdata/convert/chinese-games.gbk.txt",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not valid Big5"), "{}", stderr(&o));
}

#[test]
fn pgn_format_is_export_layout() {
    let out = convert(&["testdata/convert/traditional.txt"], None);
    // The book game has no tags: the Seven Tag Roster is filled in, in order.
    let second = &out[out.find("\n\n[Event").unwrap() + 2..];
    let tags: Vec<&str> = second.lines().take(7).collect();
    assert_eq!(
        tags,
        [
            "[Event \"?\"]",
            "[Site \"香港\"]",
            "[Date \"1998.08.08\"]",
            "[Round \"?\"]",
            "[White \"陳\"]",
            "[Black \"林\"]",
            "[Result \"1/2-1/2\"]"
        ]
    );
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "too long: {line}");
    }
    // Comments, NAGs and variations are kept; Black's number after a comment or variation.
    let out = convert(&[ANNOTATED], None);
    assert!(
        out.contains("{A comment before the first move.} 1.e4"),
        "{out}"
    );
    assert!(out.contains("2.Nf3 $1 (2.Bc4 Nf6"), "{out}");
    assert!(out.contains("(2...Bc5 3.Qh5) 3.d3) 2...Nc6 $6"), "{out}");
    assert!(out.contains("{a line comment}"), "{out}");
    let bare = convert(
        &["--no-comments", "--no-nags", "--no-variations", ANNOTATED],
        None,
    );
    assert!(
        bare.ends_with("\n\n1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 0-1\n\n"),
        "{bare}"
    );
}

#[test]
fn tags_after_a_comment_between_tags_are_kept() {
    // A comment on a line between tag pairs does not end the tag section: every command
    // reads the tags after it (convert once wrote `Black "?"` here), one job or two.
    let game =
        b"[Event \"e\"]\n[White \"a\"]\n{note}\n[Black \"b\"]\n; x\n[Result \"*\"]\n\n1. e4 *\n";
    for jobs in ["1", "2"] {
        let out = convert(&["-j", jobs, "-"], Some(game));
        assert!(out.contains("[Black \"b\"]\n[Result \"*\"]"), "{out}");
    }
}

#[test]
fn book_format_reads_back() {
    let book = convert(
        &["--format", "book", "--to", "zh-long", PRIMER, "--repair"],
        None,
    );
    assert!(
        book.starts_with(
            "白方:○○○\u{3000}黑方:×××\u{3000}1981年5月1日于北京市勞動人民文化宮\n1.e2-e4 e7-e5 2.马g1-f3"
        ),
        "{book}"
    );
    let again = convert(
        &["--format", "book", "--to", "zh-long", "-"],
        Some(book.as_bytes()),
    );
    // Read back, the repair note is an ordinary comment and the moves are the same.
    assert_eq!(again, book);
}

/// Regression (issue 39): pgnkit's own `--format book --to zh-long` output, read back, gave
/// two warnings a game: T001 (no Round, no Result tag: the layout has no place for a round and
/// its result is the result token) and N011 (Chinese moves: the layout's own notation).
#[test]
fn book_output_reads_back_clean() {
    for file in [
        "testdata/validate/clean.pgn",
        "testdata/convert/plain-annotated.pgn",
        ANNOTATED,
    ] {
        let book = convert(&["--format", "book", "--to", "zh-long", file], None);
        assert!(book.starts_with("白方:"), "{file}: {book}");
        let o = pgnkit(&["validate", "-q", "-"], Some(book.as_bytes()));
        assert_eq!(o.status.code(), Some(0), "{file}");
        assert_eq!(stdout(&o), "", "{file}: read back from\n{book}");
    }
    // A game whose tags the header cannot hold gets tag pairs: the whole roster.
    let book = convert(
        &[
            "--format",
            "book",
            "--to",
            "zh-long",
            "testdata/convert/book-roundtrip.pgn",
        ],
        None,
    );
    assert!(
        book.contains(
            "[Round \"4\"]\n[White \"{braced\"]\n[Black \"乙\u{3000}\"]\n[Result \"1-0\"]"
        ),
        "{book}"
    );
    let o = pgnkit(&["validate", "-q", "-"], Some(book.as_bytes()));
    assert!(!stdout(&o).contains("T001"), "{}", stdout(&o));
}

#[test]
fn jsonl_format_has_every_notation_clock_and_eval() {
    let out = convert(&["--format", "jsonl", ANNOTATED], None);
    assert_eq!(out.lines().count(), 1);
    let game: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(game["tags"]["White"], "Alice");
    assert_eq!(game["comments"][0], "A comment before the first move.");
    let first = &game["moves"][0];
    assert_eq!(first["san"], "e4");
    assert_eq!(first["lan"], "e2-e4");
    assert_eq!(first["uci"], "e2e4");
    assert_eq!(first["clock"], 180.0);
    assert_eq!(first["eval"]["pawns"], 0.17);
    assert_eq!(
        first["fen"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    let nf3 = &game["moves"][2];
    assert_eq!(nf3["zh"], "马f3");
    assert_eq!(nf3["zh_long"], "马g1-f3");
    assert_eq!(nf3["fan"], "♘f3");
    assert_eq!(nf3["nags"][0], 1);
    let variation = &nf3["variations"][0];
    assert_eq!(variation[0]["san"], "Bc4");
    assert_eq!(variation[1]["variations"][0][0]["san"], "Bc5");
    assert_eq!(game["moves"][3]["eval"]["mate"], -3);
    assert_eq!(game["moves"][3]["clock"], 170.5);
    assert_eq!(game["moves"].as_array().unwrap().len(), 6);
    let primer = convert(&["--format", "jsonl", "--repair", PRIMER], None);
    let primer: serde_json::Value = serde_json::from_str(primer.trim()).unwrap();
    assert_eq!(primer["result_by_rule"], "1-0");
    assert_eq!(primer["termination"], "checkmate");
    assert_eq!(primer["moves"][12]["repaired_from"], "象e4×f7+");
}

#[test]
fn csv_format_has_one_row_a_ply() {
    let out = convert(&["--format", "csv", ANNOTATED, CHINESE], None);
    let mut rows = csv::Reader::from_reader(out.as_bytes());
    let header = rows.headers().unwrap().clone();
    assert_eq!(&header[8], "san");
    let rows: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    // 6 plies, then 28 + 14 + 7 + 24 + 3 in the Chinese set.
    assert_eq!(rows.len(), 6 + 28 + 14 + 7 + 24 + 3);
    assert_eq!(&rows[3][0], ANNOTATED);
    assert_eq!(&rows[3][8], "Nc6");
    assert_eq!(&rows[3][15], "170.5");
    assert_eq!(&rows[3][16], "#-3");
    assert_eq!(&rows[3][17], "$6");
}

#[test]
fn epd_format_has_one_position_a_line() {
    let out = convert(&["--format", "epd", "--to", "uci", ANNOTATED], None);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7);
    assert_eq!(
        lines[0],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - sm e2e4; hmvc 0; fmvn 1; id \"testdata/convert/annotated.pgn game 1 ply 0\";"
    );
    assert!(lines[6].starts_with(
        "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - hmvc 0; fmvn 4;"
    ));
}

#[test]
fn fix_results_only_where_the_rules_decide() {
    // A mate recorded as a draw is fixed; an undecided game keeps its result.
    let input = b"[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1/2-1/2\n\n\
        [Result \"0-1\"]\n\n1. e4 e5 0-1\n";
    let out = convert(&["--fix-results", "-"], Some(input));
    assert!(out.contains("[Result \"1-0\"]"), "{out}");
    assert!(out.contains("4.Qxf7# 1-0"), "{out}");
    assert!(out.contains("[Result \"0-1\"]"), "{out}");
    assert!(out.contains("1.e4 e5 0-1"), "{out}");
    let kept = convert(&["-"], Some(input));
    assert!(kept.contains("4.Qxf7# 1/2-1/2"), "{kept}");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    common::scratch(&format!("convert-{name}"))
}

/// Runs `convert -q --format parquet -o OUT EXTRA INPUT`.
fn to_parquet(out: &Path, extra: &[&str], input: &str) -> std::process::Output {
    let mut args = vec![
        "convert",
        "-q",
        "--format",
        "parquet",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args.push(input);
    pgnkit(&args, None)
}

/// Converts `input` with `convert -q --format parquet EXTRA`, which must exit with status 0,
/// into a fresh folder for the test `name`; the folder.
fn parquet_folder(name: &str, extra: &[&str], input: &str) -> std::path::PathBuf {
    let out = tempdir(name).join("out");
    let o = to_parquet(&out, extra, input);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    out
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn output_file_is_written_atomically() {
    let dir = tempdir("atomic");
    let target = dir.join("out.pgn");
    let o = pgnkit_ok(&["convert", CHINESE, "-o", target.to_str().unwrap()], None);
    assert!(stdout(&o).is_empty());
    assert_eq!(names(&dir), ["out.pgn"]);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        convert(&[CHINESE], None)
    );

    // A failed run leaves neither the target nor a temporary file, and an old target alone.
    let o = pgnkit(
        &[
            "convert",
            CHINESE,
            "no/such/file.pgn",
            "-o",
            target.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(names(&dir), ["out.pgn"]);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        convert(&[CHINESE], None)
    );
    let fresh = dir.join("fresh.pgn");
    let o = pgnkit(
        &["convert", "no/such/file.pgn", "-o", fresh.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(names(&dir), ["out.pgn"]);
}

/// `-o` onto something that is not a regular file writes into it: a named pipe stays a pipe
/// (renaming a file over it would turn `/dev/null` into a file), and a symbolic link stays a
/// link while the file it points to is replaced, keeping its permissions.
#[cfg(unix)]
#[test]
fn output_into_a_pipe_or_through_a_link_keeps_it() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = tempdir("special");
    let expected = convert(&[CHINESE], None);

    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success());
    // Held open for writing until pgnkit is done, so the reader sees the end of the pipe then,
    // and does not hang if pgnkit never writes into it.
    let keep = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    // Opened here, not in the thread: a thread slow to start would open the pipe only after
    // `keep` is dropped, and then wait for a writer forever.
    let reader = {
        let mut pipe = std::fs::File::open(&fifo).unwrap();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut pipe, &mut text).unwrap();
            text
        })
    };
    let o = pgnkit(&["convert", CHINESE, "-o", fifo.to_str().unwrap()], None);
    drop(keep);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(reader.join().unwrap(), expected);
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the pipe was replaced: {kind:?}");
    std::fs::remove_file(&fifo).unwrap();

    let real = dir.join("real.pgn");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.join("link.pgn");
    std::os::unix::fs::symlink("real.pgn", &link).unwrap();
    pgnkit_ok(&["convert", CHINESE, "-o", link.to_str().unwrap()], None);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), expected);
    let mode = std::fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    assert_eq!(names(&dir), ["link.pgn", "real.pgn"]);

    // A folder is refused before any work, and left as it was.
    let o = pgnkit(&["convert", CHINESE, "-o", dir.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    assert_eq!(names(&dir), ["link.pgn", "real.pgn"]);
}

/// The examples of docs/notation.md: every table row `| `input` | `--to …` | `output` |` is
/// run through the binary.
#[test]
fn notation_guide_examples_hold() {
    let doc = std::fs::read_to_string("docs/notation.md").unwrap();
    let mut checked = 0;
    for (n, line) in doc.lines().enumerate() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !cells[1].starts_with('`') || !cells[2].starts_with("`--") {
            continue;
        }
        let unquote = |s: &str| s.trim_matches('`').to_string();
        let (input, args, output) = (unquote(cells[1]), unquote(cells[2]), unquote(cells[3]));
        let mut all: Vec<&str> = args.split_whitespace().collect();
        all.push("-");
        let out = convert(&all, Some(input.as_bytes()));
        let moves: Vec<&str> = out
            .split("\n\n")
            .nth(1)
            .unwrap_or("")
            .split_whitespace()
            .filter(|w| *w != "*")
            .collect();
        assert_eq!(
            moves.join(" "),
            output,
            "docs/notation.md:{}: {input} with {args}",
            n + 1
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} examples found");
}

#[test]
fn jobs_do_not_change_the_output() {
    let mut input = Vec::new();
    for i in 0..300 {
        let game = match i % 3 {
            0 => "1. e4 e5 2. Nf3 {a comment} Nc6 (2... d6 3. d4) 3. Bb5 a6 $1 1-0",
            1 => "1. f3 e5 2. g4 Qh4# 0-1",
            _ => "1. d4 d5 2. Nf3 Nf9 *",
        };
        input.extend(
            format!("[Event \"{i}\"]\n[White \"W{i}\"]\n[Black \"B\"]\n\n{game}\n\n").bytes(),
        );
    }
    for to in ["san", "zh"] {
        for format in ["pgn", "jsonl", "csv", "epd"] {
            let run = |jobs: &str| {
                pgnkit(
                    &["convert", "-j", jobs, "--to", to, "--format", format, "-"],
                    Some(&input),
                )
                .stdout
            };
            let one = run("1");
            assert!(!one.is_empty());
            assert_eq!(run("2"), one, "{to} {format}");
            assert_eq!(run("3"), one, "{to} {format}");
        }
    }
}

#[test]
fn strict_san_tokens_are_copied_and_others_rewritten() {
    // `e:d5`, `Pe4`-style and over-disambiguated moves are rewritten; canonical SAN is kept.
    let out = convert(
        &["--to", "san", "-"],
        Some(b"1. Pe4 d5 2. e:d5 Qd8xd5 3. Ngf3 Qe4+ 4. Qe2 Qxe2+ 5. Bxe2 *\n"),
    );
    assert!(
        out.contains("1.e4 d5 2.exd5 Qxd5 3.Nf3 Qe4+ 4.Qe2 Qxe2+ 5.Bxe2 *"),
        "{out}"
    );
}

#[test]
fn a_line_comment_with_braces_stays_a_line_comment() {
    // TCEC files end games with `; { Game Nr. 1 ... }`: a brace comment cannot hold `}`.
    let input =
        b"[Event \"a\"]\n\n1. e4 e5 1-0 ; { Game Nr. 1 : A wins }\n\n[Event \"b\"]\n\n1. d4 d5 *\n";
    let out = convert(&["--to", "san", "-"], Some(input));
    assert!(!out.contains("}}"), "{out}");
    let back = pgnkit(
        &["validate", "--format", "json", "--game-records", "-"],
        Some(out.as_bytes()),
    );
    let text = String::from_utf8_lossy(&back.stdout);
    assert!(!text.contains("\"severity\":\"error\""), "{out}\n{text}");
    assert_eq!(text.matches("\"type\":\"game\"").count(), 2, "{text}");
}

#[test]
fn chess960_king_step_is_not_castling() {
    // Black's king on d8 with a rook on a8: Kd8-c8 / d8c8 is the king's step (in Chess960 UCI
    // castling is written as the king taking its rook, d8a8).
    let input = b"[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"r2k3r/8/8/8/8/8/8/R2K3R b KQkq - 0 1\"]\n\n1... Kc8 2. Kc1 *\n";
    for to in ["lan", "uci"] {
        let written = convert(&["--to", to, "-"], Some(input));
        let back = convert(&["--to", "san", "-"], Some(written.as_bytes()));
        assert!(back.contains("1...Kc8 2.Kc1 *"), "{to}: {written}\n{back}");
    }
}

/// Plain movetext (strict SAN, move numbers, brace comments, NAGs and glyphs glued to moves)
/// is converted by the replay's fast path, which tells the writer the comments and NAGs in
/// order with the moves. The expected text is what the general path (lexing every token)
/// wrote before the fast path took these games; debug builds also compare the two paths on
/// every game.
#[test]
fn plain_movetext_keeps_comments_and_nags_in_place() {
    const PLAIN: &str = "testdata/convert/plain-annotated.pgn";
    for jobs in ["1", "2"] {
        let out = convert(&["-j", jobs, "--to", "san", PLAIN], None);
        assert!(
            out.contains(
                "{Before the first move.} 1.e4 $5 {[%clk 0:03:00]} 1...e5 $1 2.Nf3 Nc6 $6 {A\n\
                 comment over two lines.} 3.Bb5 $14 a6 4.Ba4 Nf6 5.O-O $1 Be7 6.Re1 b5 7.Bb3 d6\n\
                 8.c3 O-O 9.h3 Nb8 10.d4 Nbd7 {Breyer.} 1-0\n"
            ),
            "{out}"
        );
        assert!(out.contains("\n1.f3 e5 2.g4 $4 Qh4# 0-1\n"), "{out}");
    }
    let out = convert(&["--to", "uci", "--no-comments", PLAIN], None);
    assert!(
        out.contains("1.e2e4 $5 e7e5 $1 2.g1f3 b8c6 $6 3.f1b5 $14 a7a6"),
        "{out}"
    );
    let out = convert(&["--to", "san", "--no-nags", PLAIN], None);
    assert!(
        out.contains("{Before the first move.} 1.e4 {[%clk 0:03:00]} 1...e5 2.Nf3 Nc6 {A"),
        "{out}"
    );
}

/// Clocks and evaluations of every game in `testdata/convert/engine-comments.pgn`, by ply,
/// from the CSV rows (`clock`, `eval` columns) and the JSON lines alike.
#[test]
fn wrapped_commands_and_engine_evaluations_are_read() {
    const FILE: &str = "testdata/convert/engine-comments.pgn";
    let csv_out = convert(&["--format", "csv", FILE], None);
    let mut reader = csv::Reader::from_reader(csv_out.as_bytes());
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (clock, eval) = (col("clock"), col("eval"));
    let rows: Vec<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[clock].to_string(), r[eval].to_string())
        })
        .collect();
    let want = [
        // Commands broken over lines by the writer.
        ("180", "0.2"),
        ("178", "-0.1"),
        ("175", ""),
        // cutechess-cli: book moves, then the mover's score (Black's +0.12 is -0.12 for
        // White); -M6 by White: Black mates in 3 moves.
        ("", ""),
        ("", ""),
        ("", "0.35"),
        ("", "-0.12"),
        ("", "#-3"),
        // TCEC's wv= is White's view; M9 plies: mate in 4 moves.
        ("", "0.31"),
        ("", "0.4"),
        ("", "#4"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(c, e)| (c.to_string(), e.to_string()))
        .collect();
    assert_eq!(rows, want);
    let jsonl = convert(&["--format", "jsonl", FILE], None);
    let games = common::json_lines(&jsonl);
    assert_eq!(games[0]["moves"][1]["clock"], 178.0);
    assert_eq!(games[1]["moves"][4]["eval"]["mate"], -3);
    assert_eq!(games[2]["moves"][1]["eval"]["pawns"], 0.4);
}

const NULLS: &str = "testdata/convert/null-moves.pgn";
const ENGINE: &str = "testdata/convert/engine-comments.pgn";

/// The position after `san` (`--` passes the turn, as PGN's null move does).
fn play_san(pos: &shakmaty::Chess, san: &str) -> shakmaty::Chess {
    use shakmaty::{FromSetup, Position, Setup};
    if san == "--" {
        let mut setup: Setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
        setup.ep_square = None;
        setup.halfmoves += 1;
        if setup.turn == shakmaty::Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        setup.turn = !setup.turn;
        return shakmaty::Chess::from_setup(setup, shakmaty::CastlingMode::Standard).unwrap();
    }
    let mv = san
        .parse::<shakmaty::san::San>()
        .unwrap()
        .to_move(pos)
        .unwrap();
    pos.clone().play(mv).unwrap()
}

fn fen_of(pos: &shakmaty::Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

#[test]
fn castling_after_a_null_move_keeps_standard_uci() {
    // The position after a null move was made in Chess960's castling mode, so a standard
    // game's castling after it was written e1h1 (the king onto its rook).
    let out = convert(
        &["--to", "uci", "-"],
        Some(b"1. e4 e5 2. Nf3 Nc6 3. Bc4 -- 4. O-O Nf6 *\n"),
    );
    assert!(out.contains("4.e1g1 g8f6"), "{out}");
}

#[test]
fn null_moves_are_kept_so_the_moves_still_replay() {
    // CSV: the main line, null moves included, replays to each row's FEN.
    let out = convert(&["--format", "csv", "--to", "uci", NULLS], None);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut pos = shakmaty::Chess::default();
    let mut nulls = 0;
    for row in &rows {
        pos = play_san(&pos, &row[col("san")]);
        assert_eq!(row[col("fen")], fen_of(&pos), "{row:?}");
        if &row[col("san")] == "--" {
            nulls += 1;
            assert_eq!(&row[col("uci")], "0000");
            assert_eq!(&row[col("move")], "0000", "--to uci writes UCI's null move");
        }
    }
    assert_eq!((rows.len(), nulls), (6, 2));

    // JSON lines: the variation's null move too.
    let out = convert(&["--format", "jsonl", NULLS], None);
    let game: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let variation = game["moves"][2]["variations"][0].as_array().unwrap();
    let sans: Vec<&str> = variation
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    assert_eq!(sans, ["Nf3", "--", "d4"]);
    assert_eq!(variation[1]["move"], "--");
    assert_eq!(variation[1]["side"], "b");

    // EPD: one line a position, the null move's with `sm --`, each line's position the one
    // after the line before.
    let out = convert(&["--format", "epd", NULLS], None);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7);
    let mut pos = shakmaty::Chess::default();
    for line in &lines[..6] {
        let epd = fen_of(&pos);
        let board_turn_castling_ep: Vec<&str> = epd.split(' ').take(4).collect();
        assert!(
            line.starts_with(&board_turn_castling_ep.join(" ")),
            "{line}"
        );
        let sm = line.split("sm ").nth(1).unwrap().split(';').next().unwrap();
        pos = play_san(&pos, sm);
    }
    assert!(lines[1].contains("sm --;"), "{}", lines[1]);
}

#[test]
fn records_over_several_files_name_the_file() {
    let jsonl = convert(&["--format", "jsonl", NULLS, ENGINE], None);
    let files: Vec<(String, u64)> = jsonl
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["file"].as_str().unwrap().to_string(),
                v["game"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [(NULLS, 1), (ENGINE, 1), (ENGINE, 2), (ENGINE, 3)];
    let want: Vec<(String, u64)> = want.iter().map(|(f, g)| (f.to_string(), *g)).collect();
    assert_eq!(files, want);

    let out = convert(&["--format", "csv", NULLS, ENGINE], None);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    assert_eq!(&reader.headers().unwrap()[0], "file");
    let firsts: std::collections::BTreeSet<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[1].to_string())
        })
        .collect();
    assert_eq!(firsts.len(), 4, "{firsts:?}");

    let epd = convert(&["--format", "epd", NULLS, ENGINE], None);
    assert!(epd
        .lines()
        .next()
        .unwrap()
        .ends_with(&format!("id \"{NULLS} game 1 ply 0\";")));
    assert!(epd
        .lines()
        .last()
        .unwrap()
        .contains(&format!("id \"{ENGINE} game 3 ")));
    // Standard input is named as validate names it.
    let bytes = std::fs::read(NULLS).unwrap();
    let stdin = convert(&["--format", "jsonl", "-"], Some(&bytes));
    let v: serde_json::Value = serde_json::from_str(stdin.trim()).unwrap();
    assert_eq!(v["file"], "<stdin>");
}

#[test]
fn csv_cells_are_spreadsheet_safe_and_harmless_text_kept() {
    let out = convert(&["--format", "csv", NULLS], None);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let row = reader.records().next().unwrap().unwrap();
    // [White "=HYPERLINK(…)"] would run; [Black "-"] is shown as text.
    assert_eq!(&row[2], "'=HYPERLINK(\"http://x.example\")");
    assert_eq!(&row[3], "-");
    assert!(!out.starts_with('\u{feff}'));

    let raw = convert(&["--format", "csv", "--raw-csv", NULLS], None);
    let mut reader = csv::Reader::from_reader(raw.as_bytes());
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[2], "=HYPERLINK(\"http://x.example\")");

    let excel = convert(&["--format", "csv", "--excel", NULLS], None);
    assert_eq!(excel.strip_prefix('\u{feff}'), Some(out.as_str()));
}

/// The file is not read as Windows-1252 (which would make `Müller` `MÃ¼ller`); only its stray
/// byte is (issue 39: merged databases mix UTF-8 and Latin-1 games).
#[test]
fn utf8_with_a_stray_byte_is_not_read_as_windows_1252() {
    let o = pgnkit(&["convert", "testdata/input/latin-utf8-badbyte.pgn"], None);
    let out = stdout(&o);
    assert!(out.contains("[White \"Müller, Jörg\"]"), "{out}");
    assert!(out.contains("{Najdorf, the ü year after}"), "{out}");
    assert!(!out.contains('Ã'), "{out}");
    assert!(
        stderr(&o)
            .contains("1 byte sequence is not UTF-8 (at byte offset 169) and read as windows-1252"),
        "{}",
        stderr(&o)
    );
}

/// A tag of a JSON Lines game, `-` when the game has none.
fn tag_of(game: &serde_json::Value, tag: &str) -> String {
    game["tags"][tag].as_str().unwrap_or("-").to_string()
}

#[test]
fn book_header_names_hold_spaces_digits_and_dots() {
    let out = convert(
        &["--format", "jsonl", "testdata/convert/book-names.txt"],
        None,
    );
    let games = common::json_lines(&out);
    let tag = |g: usize, t: &str| tag_of(&games[g], t);
    assert_eq!(games.len(), 3, "{out}");
    assert_eq!(tag(0, "White"), "M4sseur 1.0");
    assert_eq!(tag(0, "Black"), "Stockfish_15_3k");
    assert_eq!(games[0]["moves"].as_array().unwrap().len(), 4);
    assert_eq!(tag(1, "White"), "Ding Liren");
    assert_eq!(tag(1, "Black"), "Stockfish dev-20231106");
    assert_eq!(tag(1, "Date"), "2023.11.06");
    assert_eq!(tag(1, "Site"), "Shanghai");
    assert_eq!(tag(2, "White"), "?");
    assert_eq!(games[2]["result"], "1/2-1/2");
}

#[test]
fn every_book_game_reads_back_to_the_same_game() {
    let file = "testdata/convert/book-roundtrip.pgn";
    let records = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let want = records(&convert(&["--format", "jsonl", file], None));
    assert_eq!(want.len(), 7);
    // What a game is, as the book layout can carry it: names, date, place, event, moves
    // (with comments, NAGs, variations) and result.
    let essence = |g: &serde_json::Value| {
        let tag = |t: &str, unknown: &str| {
            g["tags"][t]
                .as_str()
                .filter(|v| !v.is_empty())
                .unwrap_or(unknown)
                .to_string()
        };
        (
            ["White", "Black", "Site", "Event"].map(|t| tag(t, "?")),
            tag("Date", "????.??.??"),
            g["moves"].clone(),
            g["result"].clone(),
        )
    };
    for to in [
        &["--to", "san"][..],
        &["--to", "zh"],
        &["--to", "zh-long", "--traditional"],
    ] {
        let mut args = vec!["--format", "book"];
        args.extend_from_slice(to);
        args.push(file);
        let book = convert(&args, None);
        let got = records(&convert(&["--format", "jsonl", "-"], Some(book.as_bytes())));
        assert_eq!(got.len(), want.len(), "{to:?}\n{book}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(essence(g), essence(w), "{to:?} game {}\n{book}", w["game"]);
        }
        // Written again, the book is the same book.
        let mut again = vec!["--format", "book"];
        again.extend_from_slice(to);
        again.push("-");
        assert_eq!(convert(&again, Some(book.as_bytes())), book, "{to:?}");
    }
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--traditional"],
            "--traditional applies to Chinese moves only, and --to san writes none",
        ),
        (
            &["--to", "uci", "--capture-sign", "x"],
            "--capture-sign applies to Chinese moves only, and --to uci writes none",
        ),
        (
            &["--format", "jsonl", "--mate-sign", "#"],
            "--mate-sign applies to Chinese moves only",
        ),
        (
            &["--format", "csv", "--no-variations"],
            "--no-variations changes nothing with --format csv",
        ),
        (
            &["--format", "epd", "--no-variations"],
            "--no-variations changes nothing with --format epd",
        ),
        (
            &["--format", "epd", "--no-comments"],
            "--no-comments changes nothing with --format epd",
        ),
        (
            &["--format", "epd", "--no-nags"],
            "--no-nags changes nothing with --format epd",
        ),
        (
            &["--format", "csv", "--fix-results"],
            "--fix-results changes nothing with --format csv",
        ),
        (
            &["--format", "epd", "--fix-results"],
            "--fix-results changes nothing with --format epd",
        ),
    ];
    for (extra, why) in cases {
        let mut args = vec!["convert"];
        args.extend_from_slice(extra);
        args.push(ANNOTATED);
        let o = pgnkit(&args, None);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{extra:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{extra:?}: {}", stdout(&o));
    }
    // Where they apply, the same options run.
    for extra in [
        &["--to", "zh-long", "--traditional", "--mate-sign", "#"][..],
        &["--to", "zh", "--format", "csv", "--capture-sign", "x"],
        &["--format", "csv", "--no-comments", "--no-nags"],
        &["--format", "jsonl", "--no-variations", "--fix-results"],
    ] {
        let mut args = extra.to_vec();
        args.push(ANNOTATED);
        convert(&args, None);
    }
}

#[test]
fn comment_that_is_not_utf8_is_written_with_replacement_and_named() {
    // Passed through undecoded: the comment once came out as `{}`, silently.
    let o = pgnkit(
        &[
            "convert",
            "--encoding",
            "utf-8",
            "testdata/input/comment-not-utf8.pgn",
        ],
        None,
    );
    let out = stdout(&o);
    assert!(out.contains("{bad \u{FFFD}\u{FFFD} here}"), "{out}");
    let err = stderr(&o);
    assert!(
        err.contains("comment-not-utf8.pgn:1: game 1: movetext bytes that are not UTF-8"),
        "{err}"
    );
    let o = pgnkit(
        &[
            "convert",
            "--encoding",
            "utf-8",
            "--format",
            "jsonl",
            "testdata/input/comment-not-utf8.pgn",
        ],
        None,
    );
    assert!(stdout(&o).contains("\"comments\":[\"bad \u{FFFD}\u{FFFD} here\"]"));
}

#[test]
fn book_header_names_holding_a_result_or_an_open_brace_stay_names() {
    // Written by another tool: the lexer once ended the game at the `1-0` in the name, or
    // read the rest of the file as the comment the `{` opened.
    let out = convert(
        &["--format", "jsonl", "testdata/convert/book-stray-names.txt"],
        None,
    );
    let games = common::json_lines(&out);
    let tag = |g: usize, t: &str| tag_of(&games[g], t);
    assert_eq!(games.len(), 2, "{out}");
    assert_eq!(tag(0, "White"), "Team 1-0 A");
    assert_eq!(tag(0, "Black"), "Club {B");
    assert_eq!(games[0]["moves"].as_array().unwrap().len(), 4);
    assert_eq!(games[0]["result"], "1-0");
    assert_eq!(tag(1, "White"), "(Old) Guard");
    assert_eq!(tag(1, "Black"), "Kid 0-1 Z");
    assert_eq!(games[1]["moves"].as_array().unwrap().len(), 2);
}

/// Reads every row of a Parquet file back with the `parquet` crate, as JSON objects (column
/// name → value), and the file's schema as `name: type` lines.
fn read_parquet(path: &Path) -> (Vec<serde_json::Map<String, serde_json::Value>>, Vec<String>) {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).expect("the Parquet file exists");
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).expect("a Parquet file");
    let schema: Vec<String> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| format!("{}: {}", f.name(), f.data_type()))
        .collect();
    let mut rows = Vec::new();
    for batch in builder.build().expect("a reader") {
        let batch = batch.expect("a record batch");
        let mut buf = Vec::new();
        arrow_json_lines(&mut buf)(&batch);
        for line in String::from_utf8(buf).unwrap().lines() {
            rows.push(serde_json::from_str(line).unwrap());
        }
    }
    (rows, schema)
}

/// Turns a batch into JSON lines by hand (arrow's JSON writer is not a dependency): the
/// scalar columns this test looks at, by type.
fn arrow_json_lines(out: &mut Vec<u8>) -> impl FnMut(&arrow_array::RecordBatch) + '_ {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{
        Date32Type, Float64Type, Int32Type, Int8Type, UInt32Type, UInt64Type, UInt8Type,
    };
    use arrow_array::Array;
    use arrow_schema::DataType;
    move |batch| {
        for row in 0..batch.num_rows() {
            let mut obj = serde_json::Map::new();
            for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
                let v = if col.is_null(row) {
                    serde_json::Value::Null
                } else {
                    match col.data_type() {
                        DataType::Utf8 => col.as_string::<i32>().value(row).into(),
                        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(row).into(),
                        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(row).into(),
                        DataType::Int32 => col.as_primitive::<Int32Type>().value(row).into(),
                        DataType::Date32 => col.as_primitive::<Date32Type>().value(row).into(),
                        DataType::Float64 => col.as_primitive::<Float64Type>().value(row).into(),
                        DataType::UInt8 => col.as_primitive::<UInt8Type>().value(row).into(),
                        DataType::Int8 => col.as_primitive::<Int8Type>().value(row).into(),
                        DataType::Boolean => col.as_boolean().value(row).into(),
                        DataType::FixedSizeBinary(_) => serde_json::Value::Array(
                            col.as_fixed_size_binary()
                                .value(row)
                                .iter()
                                .map(|&b| b.into())
                                .collect(),
                        ),
                        DataType::List(_) => {
                            let list = col.as_list::<i32>().value(row);
                            let items = list.as_primitive::<arrow_array::types::UInt16Type>();
                            serde_json::Value::Array(
                                items.values().iter().map(|&n| n.into()).collect(),
                            )
                        }
                        DataType::Map(..) => {
                            let map = col.as_map().value(row);
                            let keys = map.column(0).as_string::<i32>();
                            let values = map.column(1).as_string::<i32>();
                            let mut m = serde_json::Map::new();
                            for i in 0..keys.len() {
                                m.insert(keys.value(i).into(), values.value(i).into());
                            }
                            serde_json::Value::Object(m)
                        }
                        other => panic!("no reader for {other}"),
                    }
                };
                obj.insert(field.name().clone(), v);
            }
            out.extend(serde_json::to_vec(&obj).unwrap());
            out.push(b'\n');
        }
    }
}

/// The rows of the worked example in docs/convert.md's "Moves and positions as numbers": its
/// header's names, then each row's cells.
fn numbers_example() -> (Vec<String>, Vec<Vec<String>>) {
    let doc = std::fs::read_to_string("docs/convert.md").unwrap();
    let (_, after) = doc
        .split_once("<!-- numbers example: testdata/convert/numbers.pgn -->\n")
        .expect("the worked example's marker");
    let cells = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner.split('|').map(|c| c.trim().to_owned()).collect()
    };
    let mut lines = after.lines().take_while(|l| l.starts_with('|'));
    let header = cells(lines.next().unwrap());
    let rows: Vec<_> = lines.skip(1).map(cells).collect();
    (header, rows)
}

#[test]
fn numbers_and_boards_are_those_docs_convert_md_shows() {
    let input = "testdata/convert/numbers.pgn";
    let dir = tempdir("numbers");
    let out = dir.join("out");
    let o = to_parquet(
        &out,
        &["--numbers", "--boards", "--moves-columns", "uci"],
        input,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (moves, schema) = read_parquet(&out.join("moves.parquet"));
    let (header, rows) = numbers_example();
    // The example shows every column but the game's and the board.
    let shown: Vec<String> = schema
        .iter()
        .map(|s| s.split(':').next().unwrap().to_owned())
        .filter(|n| !["file", "game", "board"].contains(&n.as_str()))
        .collect();
    assert_eq!(header, shown);
    assert_eq!(moves.len(), 16);
    assert!(rows.len() >= 8, "{rows:?}");
    for cells in &rows {
        let ply: usize = cells[0].parse().unwrap();
        let row = &moves[ply - 1];
        for (name, cell) in header.iter().zip(cells) {
            let want = if cell.is_empty() {
                serde_json::Value::Null
            } else {
                serde_json::from_str(cell).unwrap_or_else(|_| cell.as_str().into())
            };
            assert_eq!(row[name.as_str()], want, "ply {ply} {name}");
        }
    }
    // The board after 1. e4, as the doc spells it out.
    let board: Vec<u64> = moves[0]["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let mut want = vec![4, 2, 3, 5, 6, 3, 2, 4, 1, 1, 1, 1, 0, 1, 1, 1];
    want.extend([0; 32]);
    want[28] = 1;
    want.extend([7; 8]);
    want.extend([10, 8, 9, 11, 12, 9, 8, 10]);
    assert_eq!(board, want);
    let (games, _) = read_parquet(&out.join("games.parquet"));
    let g = &games[0];
    assert_eq!(g["outcome"], serde_json::Value::Null);
    assert_eq!(g["termination_code"], 0);
    for flag in ["is_checkmate", "is_stalemate", "is_insufficient_material"] {
        assert_eq!(g[flag], false, "{flag}");
    }
    assert_eq!(g["start_turn"], true);
    assert_eq!(g["start_castling"], 15);
    assert_eq!(g["start_ep_square"], serde_json::Value::Null);
    assert_eq!(g["start_halfmove_clock"], 0);
    let mut start = want.clone();
    (start[12], start[28]) = (1, 0);
    assert_eq!(g["start_board"], serde_json::json!(start));
}

#[test]
fn outcomes_are_numbered_and_the_columns_apply_to_parquet_only() {
    let dir = tempdir("outcomes");
    let input = dir.join("ends.pgn");
    std::fs::write(
        &input,
        "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
         [FEN \"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\"]\n[SetUp \"1\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n\
         [FEN \"7k/8/6K1/8/8/8/8/1B6 w - - 0 1\"]\n[SetUp \"1\"]\n[Result \"1-0\"]\n\n1. Kf6 1-0\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = to_parquet(
        &out,
        &["--numbers", "--fix-results"],
        input.to_str().unwrap(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (games, _) = read_parquet(&out.join("games.parquet"));
    let col = |name: &str| -> serde_json::Value { games.iter().map(|g| g[name].clone()).collect() };
    assert_eq!(col("outcome"), serde_json::json!([-1, 0, 0]));
    assert_eq!(col("termination_code"), serde_json::json!([1, 2, 3]));
    assert_eq!(col("is_checkmate"), serde_json::json!([true, false, false]));
    assert_eq!(col("is_stalemate"), serde_json::json!([false, true, false]));
    assert_eq!(
        col("is_insufficient_material"),
        serde_json::json!([false, false, true])
    );
    // Without --boards, no start position; the moves table keeps its default columns.
    assert!(games[0].get("start_board").is_none());
    let (moves, _) = read_parquet(&out.join("moves.parquet"));
    assert_eq!(moves[0]["san"], "f3");
    assert_eq!(moves[0]["from_square"], 13);
    for option in ["--numbers", "--boards"] {
        let o = pgnkit(&["convert", option, input.to_str().unwrap()], None);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(&format!("{option} applies to --format parquet only")),
            "{}",
            stderr(&o)
        );
    }
    let o = to_parquet(
        &out,
        &["--moves-columns", "san,from"],
        input.to_str().unwrap(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no moves column \"from\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn no_movetext_leaves_the_column_out_and_the_rest_as_it_was() {
    let input = "testdata/convert/parquet-games.pgn";
    let dir = tempdir("no-movetext");
    let (full, lean) = (dir.join("full"), dir.join("lean"));
    let o = to_parquet(&full, &["--numbers"], input);
    let o2 = to_parquet(&lean, &["--numbers", "--no-movetext"], input);
    assert_eq!(o.status.code(), o2.status.code());
    assert_eq!(stderr(&o), stderr(&o2));
    let (mut games, _) = read_parquet(&full.join("games.parquet"));
    let (lean_games, schema) = read_parquet(&lean.join("games.parquet"));
    assert!(
        !schema.iter().any(|s| s.starts_with("movetext")),
        "{schema:?}"
    );
    for g in &mut games {
        g.remove("movetext").expect("the full table has it");
    }
    assert_eq!(games, lean_games);
    // The moves table keeps its clocks and comments, read from the movetext's comments.
    let (moves, _) = read_parquet(&full.join("moves.parquet"));
    let (lean_moves, _) = read_parquet(&lean.join("moves.parquet"));
    assert_eq!(moves, lean_moves);
    let o = pgnkit(&["convert", "--no-movetext", input], None);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn parquet_output_holds_what_jsonl_holds_game_by_game() {
    let input = "testdata/convert/parquet-games.pgn";
    let dir = tempdir("parquet");
    let out = dir.join("out");
    let o = to_parquet(&out, &["--fen"], input);
    // The illegal game is rejected, and reported.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("M001"), "{}", stderr(&o));
    let jsonl = stdout(&pgnkit(
        &["convert", "-q", "--format", "jsonl", input],
        None,
    ));
    let json: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (games, schema) = read_parquet(&out.join("games.parquet"));
    let (moves, moves_schema) = read_parquet(&out.join("moves.parquet"));
    for col in [
        "file: Utf8",
        "game: UInt64",
        "White: Utf8",
        "WhiteElo: Int32",
        "BlackRatingDiff: Int32",
        "Date: Date32",
        "UTCDate: Date32",
        "plies: UInt32",
        "final_fen: Utf8",
        "Termination: Utf8",
        "termination_by_rule: Utf8",
        "errors: UInt32",
        "movetext: Utf8",
    ] {
        assert!(schema.iter().any(|s| s == col), "{col} not in {schema:?}");
    }
    for col in [
        "ply: UInt32",
        "fen: Utf8",
        "clock: Float64",
        "eval: Float64",
    ] {
        assert!(
            moves_schema.iter().any(|s| s == col),
            "{col} not in {moves_schema:?}"
        );
    }
    assert_eq!(games.len(), json.len());
    assert_eq!(games.len(), 3);
    let plies: usize = json
        .iter()
        .map(|g| g["moves"].as_array().unwrap().len())
        .sum();
    assert_eq!(moves.len(), plies);
    let mut moves = moves.iter();
    for (g, j) in games.iter().zip(&json) {
        assert_eq!(g["game"], j["game"]);
        assert_eq!(g["file"], j["file"]);
        assert_eq!(g["White"], j["tags"]["White"]);
        assert_eq!(g["Result"], j["tags"]["Result"]);
        assert_eq!(g["final_fen"], j["final_fen"]);
        assert_eq!(g["termination_by_rule"], j["termination"]);
        assert_eq!(g["result_by_rule"], j["result_by_rule"]);
        let jm = j["moves"].as_array().unwrap();
        assert_eq!(g["plies"], jm.len());
        for (i, m) in jm.iter().enumerate() {
            let row = moves.next().unwrap();
            assert_eq!(row["game"], j["game"]);
            assert_eq!(row["ply"], i + 1);
            for key in ["san", "uci", "fen"] {
                assert_eq!(row[key], m[key], "game {} ply {}", j["game"], i + 1);
            }
            assert_eq!(row["clock"], m.get("clock").cloned().unwrap_or_default());
            assert_eq!(
                row["eval"],
                m.get("eval")
                    .and_then(|e| e.get("pawns"))
                    .cloned()
                    .unwrap_or_default()
            );
            assert_eq!(
                row["eval_mate"],
                m.get("eval")
                    .and_then(|e| e.get("mate"))
                    .cloned()
                    .unwrap_or_default()
            );
            let nags = m.get("nags").cloned().unwrap_or(serde_json::json!([]));
            assert_eq!(row["nags"], nags);
            // A ply's comments, joined by a space.
            let comments: Vec<&str> = m
                .get("comments")
                .and_then(|c| c.as_array())
                .map(|c| c.iter().map(|t| t.as_str().unwrap()).collect())
                .unwrap_or_default();
            let comment = (!comments.is_empty()).then(|| comments.join(" "));
            assert_eq!(row["comment"], serde_json::json!(comment));
        }
    }
    // Typed tags: the integers with their sign, dates as days from 1970, incomplete ones null
    // and kept as text in the map.
    assert_eq!(games[0]["WhiteRatingDiff"], 7);
    assert_eq!(games[0]["BlackRatingDiff"], -7);
    assert_eq!(games[0]["UTCDate"], 19_782);
    assert_eq!(games[0]["tags"]["Annotator"], "Me");
    assert_eq!(games[1]["Date"], serde_json::Value::Null);
    assert_eq!(games[1]["tags"]["Date"], "2024.??.??");
    assert_eq!(games[1]["FEN"], "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(games[2]["errors"], 1);
    // The movetext column is `--format pgn`'s movetext on one line, as lichess's is: the
    // first game's takes two lines there.
    let pgn = stdout(&pgnkit(&["convert", "-q", input], None));
    let written: Vec<String> = pgn
        .split("\n\n")
        .skip(1)
        .step_by(2)
        .map(|m| m.trim_end().replace('\n', " "))
        .collect();
    assert!(pgn.contains("3.Qh5\nNf6"), "{pgn}");
    assert_eq!(written.len(), 3, "{pgn}");
    for (game, movetext) in games.iter().zip(&written) {
        assert_eq!(game["movetext"].as_str(), Some(movetext.as_str()));
    }
    assert!(games[0]["movetext"].as_str().unwrap().contains("Qxf7#"));
    // The null move is a row, as UCI's 0000.
    assert!(games[1]["movetext"].as_str().unwrap().contains("--"));
    // No temporary file is left beside them.
    let names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn parquet_has_the_fen_column_only_when_asked() {
    let out = parquet_folder("parquet-nofen", &[], ANNOTATED);
    let (_, schema) = read_parquet(&out.join("moves.parquet"));
    assert!(!schema.iter().any(|s| s.starts_with("fen:")), "{schema:?}");
    assert!(schema.iter().any(|s| s.starts_with("san:")), "{schema:?}");
    // The option that asked for the default before `--fen` is still taken.
    let out = parquet_folder("parquet-no-fen", &["--no-fen"], ANNOTATED);
    let (_, schema) = read_parquet(&out.join("moves.parquet"));
    assert!(!schema.iter().any(|s| s.starts_with("fen:")), "{schema:?}");
    let out = parquet_folder("parquet-fen", &["--fen"], ANNOTATED);
    let (_, schema) = read_parquet(&out.join("moves.parquet"));
    assert!(
        schema.iter().any(|s| s.starts_with("fen: Utf8")),
        "{schema:?}"
    );
}

/// The text columns whose values are nearly all different are written without a dictionary
/// and without minimum and maximum (they cost the writer and help no reader); the others keep
/// both.
#[test]
fn parquet_unique_text_columns_have_no_dictionary_and_no_statistics() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let out = parquet_folder("parquet-unique", &["--fen"], ANNOTATED);
    for (table, unique, kept) in [
        ("games.parquet", &["movetext", "final_fen"][..], "Event"),
        ("moves.parquet", &["fen", "comment"][..], "san"),
    ] {
        let file = std::fs::File::open(out.join(table)).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let group = reader.metadata().row_group(0);
        let column = |name: &str| {
            (0..group.num_columns())
                .map(|i| group.column(i))
                .find(|c| c.column_path().string() == name)
                .unwrap_or_else(|| panic!("{table}: no column {name}"))
        };
        for name in unique {
            let c = column(name);
            assert!(
                c.dictionary_page_offset().is_none(),
                "{table}: {name} has a dictionary"
            );
            assert!(c.statistics().is_none(), "{table}: {name} has statistics");
        }
        let c = column(kept);
        assert!(
            c.dictionary_page_offset().is_some(),
            "{table}: {kept} lost its dictionary"
        );
        assert!(
            c.statistics().is_some(),
            "{table}: {kept} lost its statistics"
        );
    }
}

#[test]
fn parquet_needs_a_folder() {
    let o = pgnkit(
        &[
            "convert",
            "--format",
            "parquet",
            "testdata/convert/annotated.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give -o DIR"), "{}", stderr(&o));
    let o = pgnkit(
        &["convert", "--fen", "testdata/convert/annotated.pgn"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--format parquet"), "{}", stderr(&o));
}

#[test]
fn add_eco_fills_the_parquet_eco_and_opening_columns() {
    let out = parquet_folder("parquet-eco", &["--add-eco"], "testdata/eco/games.pgn");
    let (games, _) = read_parquet(&out.join("games.parquet"));
    assert_eq!(games.len(), 8);
    for g in &games {
        // The games say what they expect in tags of their own, kept in the `tags` map.
        let expected = |name: &str| g["tags"].get(name).cloned().unwrap_or_default();
        assert_eq!(g["ECO"], expected("ExpectECO"), "{g:?}");
        assert_eq!(g["Opening"], expected("ExpectOpening"), "{g:?}");
    }
}

/// A game's moves, variations and comments may take at most 8 times `--max-game-size` while
/// it is converted, in every format: a game of a million sibling variations once took 3.1 GB
/// (2.5 million aborted the process). Past the budget the game is reported (P022) and goes to
/// `--rejects` byte for byte; the games around it are converted as usual. The same game
/// under the budget is converted whole.
#[test]
fn a_game_too_large_to_convert_is_reported_not_converted() {
    let dir = tempdir("budget");
    let rejects = dir.join("rejects.pgn");
    let small = "[Event \"s\"]\n[White \"C\"]\n[Black \"D\"]\n\n1. d4 d5 1-0\n\n";
    let game = |variations: usize| {
        format!(
            "[Event \"v\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 {}e5 1-0\n\n",
            "(1. d4) ".repeat(variations)
        )
    };
    // 8 MiB at 256 + 2048 + 2 * 64 bytes a variation for the records, 264 for PGN.
    for (format, over) in [("jsonl", 4000), ("csv", 4000), ("pgn", 40_000)] {
        let big = game(over);
        assert!(big.len() < 1 << 20, "under the size limit: {}", big.len());
        let input = format!("{small}{big}{small}");
        let args = [
            "convert",
            "-q",
            "--max-game-size",
            "1",
            "--format",
            format,
            "--rejects",
            rejects.to_str().unwrap(),
            "-",
        ];
        let o = pgnkit(&args, Some(input.as_bytes()));
        assert_eq!(o.status.code(), Some(1), "{format}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.matches("error[P022]").count(), 1, "{format}: {err}");
        assert!(err.contains("game 2 (A – B)"), "{format}: {err}");
        assert!(err.contains("raise --max-game-size"), "{format}: {err}");
        let rejected = std::fs::read_to_string(&rejects).unwrap();
        assert_eq!(rejected.trim_end(), big.trim_end(), "{format}");
        // Games 1 and 3 are written, game 2 is not.
        let written = |out: &str| -> Vec<u64> {
            match format {
                "jsonl" => common::json_lines(out)
                    .iter()
                    .map(|v| v["game"].as_u64().unwrap())
                    .collect(),
                "csv" => {
                    let mut games: Vec<u64> = out
                        .lines()
                        .skip(1)
                        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
                        .collect();
                    games.dedup();
                    games
                }
                _ => out.matches("[White \"").zip(1..).map(|(_, n)| n).collect(),
            }
        };
        let out = stdout(&o);
        let expected: &[u64] = if format == "pgn" { &[1, 2] } else { &[1, 3] };
        assert_eq!(written(&out), expected, "{format}: {out:.300}");
        assert!(!out.contains("\"A\""), "{format}: {out:.300}");
        // Well under the budget, the same game is converted with all its variations.
        let fits = format!("{small}{}{small}", game(over / 8));
        let args = ["--max-game-size", "1", "--format", format, "-"];
        let out = convert(&args, Some(fits.as_bytes()));
        assert_eq!(written(&out), [1, 2, 3], "{format}");
        if format != "csv" {
            assert!(out.matches("d4").count() > over / 8, "{format}");
        }
    }
}

/// The keeper's rewrites (issue 44): each case of testdata/convert/keeper/cases.tsv, run on
/// its input there (games.pgn unless it names another), writes its expected/NAME.pgn byte for
/// byte (.ci/convert-extract.sh
/// compares the same cases with pgn-extract).
#[test]
fn keeper_cases_write_their_expected_files() {
    let dir = Path::new("testdata/convert/keeper");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = std::fs::read_to_string(root.join(dir).join("cases.tsv")).unwrap();
    let mut ran = 0;
    for (n, line) in cases.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut fields = line.split('\t');
        let (name, options) = (fields.next().unwrap(), fields.next().unwrap_or(""));
        let input = fields.nth(1).unwrap_or("games.pgn");
        let mut args: Vec<&str> = options.split(' ').filter(|w| !w.is_empty()).collect();
        let games = dir.join(input);
        args.push(games.to_str().unwrap());
        let expected = std::fs::read_to_string(root.join(dir).join(format!("expected/{name}.pgn")))
            .unwrap_or_else(|e| panic!("cases.tsv:{}: {name}: {e}", n + 1));
        assert_eq!(
            convert(&args, None),
            expected,
            "cases.tsv:{}: {name}: convert {options}",
            n + 1
        );
        ran += 1;
    }
    assert!(ran >= 6, "{ran} cases");
}

#[test]
fn cut_options_say_what_they_cannot_do() {
    let o = pgnkit(
        &["convert", "--start-ply", "3", "--drop-ply", "2", ANNOTATED],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let o = pgnkit(
        &["convert", "--ply-limit", "3", "--format", "csv", ANNOTATED],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--format csv is not PGN"),
        "{}",
        stderr(&o)
    );
    let o = pgnkit(
        &["convert", "--start-ply", "9", "--ply-limit", "8", ANNOTATED],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is after --ply-limit 8"),
        "{}",
        stderr(&o)
    );
    // The aliases of pgn-extract's spellings.
    let ours = convert(&["--drop-ply", "2", "--ply-limit", "6", ANNOTATED], None);
    let theirs = convert(&["--dropply", "2", "--plylimit", "6", ANNOTATED], None);
    assert_eq!(ours, theirs);
    assert!(ours.contains("[SetUp \"1\"]"), "{ours}");
}

#[test]
fn added_tags_and_fen_comments_are_refused_where_they_cannot_go() {
    let o = pgnkit(
        &[
            "convert",
            "--add-tags",
            "PlyCount",
            "--format",
            "jsonl",
            ANNOTATED,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let o = pgnkit(&["convert", "--add-tags", "Plies", ANNOTATED], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("PlyCount, TotalPlyCount, Hash, Termination"),
        "{}",
        stderr(&o)
    );
    let o = pgnkit(&["convert", "--fen-comment-at", "0", ANNOTATED], None);
    assert_eq!(o.status.code(), Some(2));
    // A game's own Termination stays; `*` is unterminated.
    let out = convert(
        &["--add-tags", "termination"],
        Some(b"[Termination \"time forfeit\"]\n\n1. e4 1-0\n\n[White \"x\"]\n\n1. d4 *\n"),
    );
    assert!(out.contains("[Termination \"time forfeit\"]"), "{out}");
    assert!(out.contains("[Termination \"unterminated\"]"), "{out}");
}

#[test]
fn keep_broken_writes_the_game_with_its_error_and_the_rest_as_recorded() {
    let input = "testdata/convert/keeper/broken.pgn";
    let o = pgnkit(&["convert", "--keep-broken", input], None);
    // Still an error in the input: exit status 1, the diagnostic on standard error.
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[M001]"), "{err}");
    assert!(
        err.contains("2 games: 1 written (0 repaired), 1 rejected (1 written broken)"),
        "{err}"
    );
    let expected =
        std::fs::read_to_string("testdata/convert/keeper/expected/broken-kept.pgn").unwrap();
    assert_eq!(stdout(&o), expected);
    // What it writes replays, and says what was wrong.
    let back = pgnkit(&["validate", "-q", "-"], Some(&o.stdout));
    assert_eq!(back.status.code(), Some(0), "{}", stdout(&back));
    assert!(
        expected.contains("{pgnkit: error M001 at 4.:"),
        "{expected}"
    );
    assert!(
        expected.contains("{the board missed Ba4 Nf6} {Nf6 5. O-O} 1-0"),
        "{expected}"
    );
    // A cut keeps the error and the rest, whatever it drops.
    let o = pgnkit(
        &["convert", "--keep-broken", "--drop-ply", "20", input],
        None,
    );
    assert!(stdout(&o).contains("{Nf6 5. O-O} 1-0"), "{}", stdout(&o));
    let o = pgnkit(
        &["convert", "--keep-broken", "--format", "jsonl", input],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

/// `--output-encoding`: what is written reads back, with `--encoding`, as the UTF-8 output;
/// a character the encoding cannot hold rejects its game, an error naming game, place and
/// character.
#[test]
fn output_encodings_read_back_and_refuse_what_they_cannot_hold() {
    let games = [
        (
            "latin1",
            "[White \"Réti, Richard\"]\n[Black \"Müller\"]\n\n1. e4 {Æ} e5 1-0\n",
        ),
        (
            "gbk",
            "[White \"丁立人\"]\n[Black \"Nepo\"]\n\n1. e4 {马} e5 1-0\n",
        ),
        (
            "big5",
            "[White \"丁立人\"]\n[Black \"Nepo\"]\n\n1. e4 {馬} e5 1-0\n",
        ),
        (
            "utf-16le",
            "[White \"Őry\"]\n[Black \"丁立人\"]\n\n1. e4 {♘} e5 1-0\n",
        ),
    ];
    for (encoding, game) in games {
        let utf8 = convert(&[], Some(game.as_bytes()));
        let o = pgnkit_ok(
            &["convert", "-q", "--output-encoding", encoding],
            Some(game.as_bytes()),
        );
        assert_ne!(o.stdout, utf8.as_bytes(), "{encoding}");
        let read_as = if encoding == "latin1" {
            "windows-1252"
        } else {
            encoding
        };
        let back = convert(&["--encoding", read_as], Some(&o.stdout));
        assert_eq!(back, utf8, "{encoding}");
    }
    // UTF-16 starts with its byte order mark.
    let o = pgnkit_ok(
        &["convert", "-q", "--output-encoding", "utf-16"],
        Some(games[0].1.as_bytes()),
    );
    assert!(o.stdout.starts_with(&[0xff, 0xfe, b'[', 0]));
    let o = pgnkit(
        &["convert", "-q", "--output-encoding", "latin1"],
        Some("[White \"Őry\"]\n\n1. e4 {马} 1-0\n\n[White \"B\"]\n\n1. d4 *\n".as_bytes()),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("game 1 (Őry – ?): tag White: 'Ő' (U+0150) cannot be written in latin1"),
        "{err}"
    );
    assert!(
        err.contains("game 1 (Őry – ?): movetext near move 1: '马' (U+9A6C)"),
        "{err}"
    );
    assert!(stdout(&o).contains("[White \"B\"]"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("e4"), "{}", stdout(&o));
    let o = pgnkit(
        &[
            "convert",
            "--output-encoding",
            "gbk",
            "--format",
            "jsonl",
            ANNOTATED,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn player_tags_come_by_name_or_fide_id_and_a_bad_table_is_refused() {
    let by_id = "testdata/convert/keeper/players-by-id.tsv";
    let game = b"[White \"Unknown\"]\n[WhiteFideId \"400300\"]\n[WhiteElo \"1800\"]\n\n1. e4 *\n";
    let out = convert(&["--player-tags", by_id], Some(game));
    // The table's value replaces the game's.
    assert!(out.contains("[WhiteElo \"2010\"]"), "{out}");
    assert!(!out.contains("1800"), "{out}");
    let dir = tempdir("players");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "player_name,Elo\nA,1\n").unwrap();
    let o = pgnkit(
        &["convert", "--player-tags", bad.to_str().unwrap(), ANNOTATED],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("must be `name`"), "{}", stderr(&o));
}

#[test]
fn line_width_80_is_the_usual_layout() {
    // The keeper's layout writer, at pgnkit's own width, breaks lines where the usual one does.
    for file in [
        ANNOTATED,
        "testdata/convert/engine-comments.pgn",
        "testdata/convert/keeper/games.pgn",
    ] {
        assert_eq!(
            convert(&["--line-width", "80", file], None),
            convert(&[file], None),
            "{file}"
        );
    }
}

#[test]
fn the_book_layout_in_gbk_reads_back() {
    let args = ["--format", "book", "--to", "zh", CHINESE];
    let utf8 = convert(&args, None);
    let mut gbk_args = vec!["convert", "-q", "--output-encoding", "gbk"];
    gbk_args.extend(args);
    let gbk = pgnkit_ok(&gbk_args, None).stdout;
    assert!(std::str::from_utf8(&gbk).is_err(), "GBK is not UTF-8");
    let back = convert(
        &["--format", "book", "--to", "zh", "--encoding", "gbk"],
        Some(&gbk),
    );
    assert_eq!(back, utf8);
}

#[test]
fn a_roster_file_that_cannot_be_read_stops_the_run() {
    let o = pgnkit(
        &[
            "convert",
            "--tag-order",
            "testdata/extract/no-such-roster.txt",
            "testdata/extract/games.pgn",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read the roster file testdata/extract/no-such-roster.txt"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "");
}

const SELECT_GAMES: &str = "testdata/select/games.pgn";

/// `convert --where EXPR` writes what `select --where EXPR` then `convert` write, for tests
/// of the tags, of the replay (how the game ended, a position, material, the opening) and of
/// both.
#[test]
fn where_converts_the_games_select_selects() {
    let mate = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4";
    let position = format!("position = \"{mate}\"");
    let cases: &[(&str, &str)] = &[
        (SELECT_GAMES, "WhiteElo >= 2000"),
        (SELECT_GAMES, "termination = checkmate"),
        (SELECT_GAMES, &position),
        (SELECT_GAMES, "Event = \"Candidates 2024\" and plies > 7"),
        (SELECT_GAMES, "not WhiteElo >= 2000"),
        ("testdata/select/extract.pgn", "balance = \"R R\""),
        ("testdata/select/extract.pgn", "material_diff <= -1"),
        ("testdata/select/openings.pgn", "eco = \"C20\""),
    ];
    for (file, expr) in cases {
        let picked = pgnkit(&["select", "-q", "--where", expr, file], None);
        let then = pgnkit(&["convert", "-q", "--to", "uci"], Some(&picked.stdout));
        let once = pgnkit(
            &["convert", "-q", "--to", "uci", "--where", expr, file],
            None,
        );
        assert_eq!(stdout(&once), stdout(&then), "{file}: --where {expr}");
    }
}

/// A game left out is neither written nor rejected, and says nothing; a game selected that
/// does not replay is rejected as without `--where`; the summary counts the games selected.
#[test]
fn where_leaves_out_games_and_says_how_many_were_selected() {
    // Game 5 (Oslo) does not replay; game 6, which does not either, is left out.
    let dir = tempdir("where-rejects");
    let rejects = dir.join("rejects.pgn");
    let r = rejects.to_str().unwrap();
    let o = pgnkit(
        &[
            "convert",
            "-w",
            "Site = \"Oslo\"",
            "--rejects",
            r,
            SELECT_GAMES,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("7 games: 2 games selected, 1 written (0 repaired), 1 rejected"),
        "{err}"
    );
    assert!(err.contains("'Bb6' is not a legal move"), "{err}");
    assert!(!err.contains("'@@'"), "{err}");
    let out = stdout(&o);
    assert!(
        out.contains("[Round \"2\"]") && !out.contains("[Round \"1\"]"),
        "{out}"
    );
    let rejected = std::fs::read_to_string(&rejects).unwrap();
    assert!(
        rejected.contains("2. Bb6") && !rejected.contains("@@"),
        "{rejected}"
    );

    // Every game that does not replay left out: exit status 0.
    let o = pgnkit(
        &["convert", "--where", "WhiteElo >= 2800", SELECT_GAMES],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("7 games: 1 game selected, 1 written (0 repaired), 0 rejected"),
        "{}",
        stderr(&o)
    );

    // No game selected: nothing written.
    let o = pgnkit(&["convert", "-w", "WhiteElo > 3000", SELECT_GAMES], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("0 games selected, 0 written"),
        "{}",
        stderr(&o)
    );
}

/// A rewrite in place would lose the games `--where` leaves out: refused, the file as it was.
#[test]
fn where_refuses_to_rewrite_an_input_in_place() {
    let dir = tempdir("where-in-place");
    let file = dir.join("games.pgn");
    std::fs::copy(SELECT_GAMES, &file).unwrap();
    let f = file.to_str().unwrap();
    let o = pgnkit(&["convert", "-w", "WhiteElo >= 2000", "-o", f, f], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the games it leaves out would be lost"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(SELECT_GAMES).unwrap()
    );
}

#[test]
fn where_that_does_not_parse_stops_the_run_with_where_it_is_wrong() {
    let o = pgnkit(&["convert", "-w", "WhiteElo >=", SELECT_GAMES], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty());
    let err = stderr(&o);
    assert!(
        err.contains("--where: expected a value after '>='"),
        "{err}"
    );
    assert!(err.contains("             ^"), "{err}");
}

/// The Parquet tables (the Python package's) keep the selected games only.
#[test]
fn where_selects_the_rows_of_the_parquet_tables() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let out = tempdir("where-rows").join("out");
    let o = to_parquet(&out, &["-w", "WhiteElo >= 2000"], SELECT_GAMES);
    // Game 5 is selected, and does not replay.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = |table: &str| {
        let file = std::fs::File::open(out.join(table)).unwrap();
        SerializedFileReader::new(file)
            .unwrap()
            .metadata()
            .file_metadata()
            .num_rows()
    };
    // Games 1, 4 and 7: 7 + 8 + 7 plies.
    assert_eq!(rows("games.parquet"), 3);
    assert_eq!(rows("moves.parquet"), 22);
}

#[test]
fn checks_legal_finds_no_repetition_but_still_checks_legality() {
    // The start position a fifth time at ply 16, and a result the fivefold contradicts.
    let game = format!(
        "[Event \"x\"]\n[Result \"1-0\"]\n\n{}1-0\n",
        "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(4)
    );
    let run = |checks: &str| {
        let args = ["convert", "--checks", checks, "--format", "jsonl", "-"];
        let out = pgnkit(&args, Some(game.as_bytes()));
        let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            record["termination"].clone(),
            record["result_by_rule"].clone(),
        )
    };
    let fivefold = ("fivefold repetition".into(), "1/2-1/2".into());
    assert_eq!(run("all"), fivefold);
    assert_eq!(run("legal"), ("none".into(), serde_json::Value::Null));
    // Legality is still checked.
    let illegal = b"1. e4 e5 2. Ke3 *\n";
    let out = pgnkit(&["convert", "--checks", "legal", "-"], Some(illegal));
    assert!(stderr(&out).contains("M001"), "{}", stderr(&out));
}

/// A game is written as it is when converted alone, whatever games came before it, on one
/// thread or two: a conversion keeps its collectors (and the rows' ply columns) from game to
/// game, and nothing of one game may reach the next (a start position of its own, variations,
/// a rejected game, a null move, a mate, clocks).
#[test]
fn a_game_converts_as_it_does_alone_whatever_came_before() {
    let path = "testdata/convert/one-after-another.pgn";
    let text = std::fs::read_to_string(path).unwrap();
    let games: Vec<String> = text
        .split("\n\n[Event")
        .enumerate()
        .map(|(i, g)| {
            if i == 0 {
                g.to_owned()
            } else {
                format!("[Event{g}")
            }
        })
        .collect();
    assert_eq!(games.len(), 6);
    // A JSON line without the input's name and the game's number, which differ alone.
    let records = |out: &str| -> Vec<serde_json::Value> {
        out.lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                let record = v.as_object_mut().unwrap();
                record.remove("file");
                record.remove("game");
                v
            })
            .collect()
    };
    for format in ["pgn", "jsonl"] {
        let alone: Vec<String> = games
            .iter()
            .map(|g| {
                stdout(&pgnkit(
                    &["convert", "-q", "--format", format, "-"],
                    Some(g.as_bytes()),
                ))
            })
            .collect();
        // The illegal move's game is rejected, alone or not.
        assert!(alone[2].is_empty(), "{format}: {}", alone[2]);
        for jobs in ["1", "2"] {
            let all = stdout(&pgnkit(
                &["convert", "-q", "-j", jobs, "--format", format, path],
                None,
            ));
            if format == "pgn" {
                assert_eq!(all, alone.concat(), "-j {jobs}");
            } else {
                assert_eq!(records(&all), records(&alone.concat()), "-j {jobs}");
            }
        }
    }
}

/// The codec of every column chunk of a Parquet file (without zstd's level, which the file
/// does not record).
fn codecs(path: &Path) -> std::collections::BTreeSet<String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let meta = reader.metadata();
    (0..meta.num_row_groups())
        .flat_map(|g| {
            let group = meta.row_group(g);
            (0..group.num_columns())
                .map(|c| match group.column(c).compression() {
                    parquet::basic::Compression::ZSTD(_) => "ZSTD".to_owned(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn each_parquet_compression_gives_the_same_rows_in_its_codec() {
    // Games of every kind, one of them rejected (exit status 1).
    let input = "testdata/convert/parquet-games.pgn";
    let folder = |name: &str, extra: &[&str]| {
        let out = tempdir(name).join("out");
        let o = to_parquet(&out, extra, input);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        out
    };
    let default = folder("codec-default", &[]);
    let rows = |dir: &Path| ["games.parquet", "moves.parquet"].map(|f| read_parquet(&dir.join(f)));
    let expected = rows(&default);
    assert!(!expected[1].0.is_empty());
    for (codec, written) in [
        ("", "ZSTD"),
        ("zstd", "ZSTD"),
        ("zstd:9", "ZSTD"),
        ("snappy", "SNAPPY"),
        ("lz4", "LZ4_RAW"),
        ("none", "UNCOMPRESSED"),
    ] {
        let dir = if codec.is_empty() {
            default.clone()
        } else {
            let name = format!("codec-{}", codec.replace(':', "-"));
            folder(&name, &["--parquet-compression", codec])
        };
        for file in ["games.parquet", "moves.parquet"] {
            let got = codecs(&dir.join(file));
            assert_eq!(
                got.into_iter().collect::<Vec<_>>(),
                [written],
                "{codec} {file}"
            );
        }
        assert_eq!(rows(&dir), expected, "{codec}");
    }
    // Refused: a codec pgnkit does not write, a level out of range, another format.
    for (args, says) in [
        (
            &["--format", "parquet", "--parquet-compression", "gzip"][..],
            "`gzip` is no Parquet compression pgnkit writes; give zstd, zstd:LEVEL",
        ),
        (
            &["--format", "parquet", "--parquet-compression", "zstd:23"],
            "`23` is no zstd level",
        ),
        (
            &["--parquet-compression", "snappy"],
            "--parquet-compression applies to --format parquet only",
        ),
    ] {
        let out = tempdir("codec-refused").join("out");
        let mut all = vec!["convert", "-o", out.to_str().unwrap()];
        all.extend_from_slice(args);
        all.push(input);
        let o = pgnkit(&all, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(!out.exists(), "{args:?}: nothing is written");
    }
}
