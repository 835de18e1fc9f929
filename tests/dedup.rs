//! `pgnkit dedup`, run as a user runs it: duplicates made from games of
//! `testdata/dedup/feed-a.pgn` by re-wrapping, re-tagging, truncating and changing the result.

use std::path::Path;

mod common;

use common::{pgn_games as games, pgnkit, scratch, stderr};

/// The game's movetext, and its tags.
fn parts(game: &str) -> (&str, &str) {
    game.split_once("\n\n").map_or(("", game), |(t, m)| (m, t))
}

/// The smallest `--memory-budget`, which dedup's docs name.
const FLOOR: &str = "1M";

/// A run of dedup on `files` (written into `dir`) with `extra` options: the report's rows
/// (without the header) and the output's games. Run twice: with the default budget, and with
/// the smallest, which must give the same answers (what is kept of the games goes to sorted
/// runs on disk there past a few thousand games: see the test of the budget below).
fn dedup(dir: &Path, files: &[(&str, String)], extra: &[&str]) -> (Vec<Vec<String>>, Vec<String>) {
    let in_memory = dedup_once(dir, files, extra);
    let floor = dedup_once(dir, files, &[extra, &["--memory-budget", FLOOR]].concat());
    assert_eq!(in_memory, floor, "--memory-budget {FLOOR}");
    in_memory
}

fn dedup_once(
    dir: &Path,
    files: &[(&str, String)],
    extra: &[&str],
) -> (Vec<Vec<String>>, Vec<String>) {
    let mut args = vec!["dedup".to_owned(), "-q".to_owned()];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write an input");
        args.push(path.display().to_string());
    }
    let (out, report) = (dir.join("out.pgn"), dir.join("report.csv"));
    args.extend([
        "-o".to_owned(),
        out.display().to_string(),
        "--report".to_owned(),
        report.display().to_string(),
    ]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = pgnkit(&args, None);
    assert!(run.status.code().is_some_and(|c| c < 2), "{}", stderr(&run));
    let report = std::fs::read_to_string(&report).expect("the report");
    let rows = report
        .lines()
        .skip(1)
        .map(|l| {
            let mut cells: Vec<String> = l.split(',').map(str::to_owned).collect();
            // File names are the scratch folder's: keep their last part.
            for i in [0, 2] {
                cells[i] = cells[i].rsplit('/').next().unwrap_or_default().to_owned();
            }
            cells
        })
        .collect();
    let written = games(&std::fs::read_to_string(&out).expect("the output"));
    (rows, written)
}

fn base() -> Vec<String> {
    games(&std::fs::read_to_string("testdata/dedup/feed-a.pgn").expect("feed-a.pgn"))
}

fn row(file: &str, game: usize, of_file: &str, of_game: usize, kind: &str) -> Vec<String> {
    vec![
        file.to_owned(),
        game.to_string(),
        of_file.to_owned(),
        of_game.to_string(),
        kind.to_owned(),
    ]
}

/// Each way of making a duplicate of every game of feed-a.pgn, and the kind dedup must find.
#[test]
fn duplicates_made_every_way_are_found_with_their_kind() {
    let dir = scratch("dedup/kinds");
    let originals = base();
    type Make = fn(&str) -> String;
    let makers: [(&str, Make); 5] = [
        ("identical", |g| {
            format!("{}  \r\n", g.replace('\n', "  \r\n"))
        }),
        ("same-moves", |g| {
            // Re-wrapped: one move a line; re-tagged: a tag added.
            let (moves, tags) = parts(g);
            format!(
                "{tags}\n[Annotator \"feed\"]\n\n{}",
                moves.replace(' ', "\n")
            )
        }),
        ("same-moves", |g| {
            let (moves, tags) = parts(g);
            let first = moves.split_once(' ').map_or(moves.to_owned(), |(a, b)| {
                format!("{a} {{a comment}} $1 {b}")
            });
            format!("{tags}\n\n{first}")
        }),
        ("prefix", |g| {
            // The feed stopped after the first three moves.
            let (moves, tags) = parts(g);
            let kept: Vec<&str> = moves.split(' ').take(5).collect();
            format!(
                "{}\n\n{} *",
                tags.replace("[Result \"", "[Result \"*\"]\n[X \""),
                kept.join(" ")
            )
        }),
        ("conflicting-result", |g| {
            let (moves, tags) = parts(g);
            let swap = |s: &str| {
                s.replace("1-0", "@")
                    .replace("0-1", "1-0")
                    .replace("1/2-1/2", "0-1")
                    .replace('@', "0-1")
            };
            format!("{}\n\n{}", swap(tags), swap(moves))
        }),
    ];
    for (kind, make) in makers {
        let copies: Vec<String> = originals.iter().map(|g| make(g)).collect();
        let a = originals.join("\n\n") + "\n";
        let b = copies.join("\n\n") + "\n";
        let (rows, written) = dedup(&dir, &[("a.pgn", a), ("b.pgn", b)], &[]);
        let want: Vec<Vec<String>> = (1..=originals.len())
            .map(|n| row("b.pgn", n, "a.pgn", n, kind))
            .collect();
        assert_eq!(rows, want, "{kind}: copies\n{}", copies.join("\n\n"));
        assert_eq!(
            written, originals,
            "{kind}: the originals are written, as read"
        );
    }
}

/// The longer game is the original, whichever comes first.
#[test]
fn a_prefix_before_its_game_is_dropped_for_the_longer() {
    let dir = scratch("dedup/prefix-first");
    let full = base()[0].clone();
    let (moves, tags) = parts(&full);
    let short = format!(
        "{tags}\n\n{} *",
        moves.split(' ').take(5).collect::<Vec<_>>().join(" ")
    );
    let shorter = format!(
        "{tags}\n\n{} *",
        moves.split(' ').take(2).collect::<Vec<_>>().join(" ")
    );
    let input = [short, shorter, full.clone()].join("\n\n");
    let (rows, written) = dedup(&dir, &[("in.pgn", input)], &[]);
    assert_eq!(
        rows,
        vec![
            row("in.pgn", 1, "in.pgn", 3, "prefix"),
            row("in.pgn", 2, "in.pgn", 3, "prefix")
        ]
    );
    assert_eq!(written, vec![full]);
}

#[test]
fn keep_best_keeps_the_copy_with_a_result_and_more_tags() {
    let dir = scratch("dedup/best");
    let full = base()[1].clone();
    let (moves, tags) = parts(&full);
    let poor = format!(
        "[White \"Cedar, Cy\"]\n[Black \"Dogwood, Di\"]\n\n{}",
        moves.replace("1/2-1/2", "*")
    );
    let rich = format!("{tags}\n[Annotator \"z\"]\n\n{{start}} {moves}");
    let input = [poor.clone(), full.clone(), rich.clone()].join("\n\n");
    let (rows, written) = dedup(&dir, &[("in.pgn", input.clone())], &["--keep", "best"]);
    assert_eq!(
        rows,
        vec![
            row("in.pgn", 1, "in.pgn", 3, "same-moves"),
            row("in.pgn", 2, "in.pgn", 3, "same-moves")
        ]
    );
    assert_eq!(written, vec![rich]);
    let (_, written) = dedup(&dir, &[("in.pgn", input)], &["--keep", "first"]);
    assert_eq!(written, vec![poor]);
}

#[test]
fn fuzzy_ply_finds_transpositions() {
    let dir = scratch("dedup/fuzzy");
    let a = "[White \"a\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 *";
    let b = "[White \"b\"]\n[Result \"*\"]\n\n1. c4 e6 2. d4 d5 3. Nf3 *";
    let input = format!("{a}\n\n{b}\n");
    let (rows, written) = dedup(&dir, &[("in.pgn", input.clone())], &[]);
    assert!(rows.is_empty(), "{rows:?}");
    assert_eq!(written.len(), 2);
    let (rows, written) = dedup(&dir, &[("in.pgn", input.clone())], &["--fuzzy-ply", "4"]);
    assert_eq!(rows, vec![row("in.pgn", 2, "in.pgn", 1, "same-position")]);
    assert_eq!(written, vec![a.to_owned()]);
    // After three plies the positions differ.
    let (rows, _) = dedup(&dir, &[("in.pgn", input)], &["--fuzzy-ply", "3"]);
    assert!(rows.is_empty(), "{rows:?}");
}

#[test]
fn games_without_moves_are_duplicates_only_when_identical() {
    let dir = scratch("dedup/no-moves");
    let f1 = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1-0";
    let f2 = "[White \"c\"]\n[Black \"d\"]\n[Result \"1-0\"]\n\n1-0";
    let input = [f1, f2, f1].join("\n\n");
    let (rows, written) = dedup(&dir, &[("in.pgn", input)], &[]);
    assert_eq!(rows, vec![row("in.pgn", 3, "in.pgn", 1, "identical")]);
    assert_eq!(written, vec![f1.to_owned(), f2.to_owned()]);
}

#[test]
fn a_game_with_an_error_is_compared_up_to_it_and_never_dropped_silently() {
    let dir = scratch("dedup/error");
    let full = base()[0].clone();
    let broken = full.replace("4. Ba4", "4. Bh8");
    let input = [broken, full.clone()].join("\n\n");
    let path = dir.join("in.pgn");
    std::fs::write(&path, &input).expect("write");
    let out = dir.join("out.pgn");
    let run = pgnkit(
        &["dedup", path.to_str().unwrap(), "-o", out.to_str().unwrap()],
        None,
    );
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(err.contains("1 prefix"), "{err}");
    assert!(err.contains("1 game with errors"), "{err}");
    let (rows, _) = dedup(&dir, &[("in.pgn", input)], &[]);
    assert_eq!(rows, vec![row("in.pgn", 1, "in.pgn", 2, "prefix")]);
}

#[test]
fn output_and_report_are_the_same_for_any_number_of_jobs() {
    let dir = scratch("dedup/jobs");
    let a = std::fs::read_to_string("testdata/dedup/feed-a.pgn").unwrap();
    let b = std::fs::read_to_string("testdata/dedup/feed-b.pgn").unwrap();
    // Many games, many of them copies or prefixes of each other.
    let mut many = String::new();
    for i in 0..300 {
        many.push_str(if i % 3 == 0 { &a } else { &b });
        many.push('\n');
    }
    let one = dedup(&dir, &[("many.pgn", many.clone())], &["-j", "1"]);
    let three = dedup(&dir, &[("many.pgn", many)], &["-j", "3"]);
    assert_eq!(one, three);
    assert_eq!(
        one.1.len(),
        4,
        "the four games of feed-a and the new one of feed-b"
    );
    let read = 100 * games(&a).len() + 200 * games(&b).len();
    assert_eq!(
        one.0.len(),
        read - 4,
        "one row for every game but the four kept"
    );
}

/// Standard input is read once, as every input is: the games wait in temporary files.
#[test]
fn standard_input_is_deduplicated_as_a_file_is() {
    let dir = scratch("dedup/stdin");
    let a = std::fs::read_to_string("testdata/dedup/feed-a.pgn").unwrap();
    let b = std::fs::read_to_string("testdata/dedup/feed-b.pgn").unwrap();
    let text = format!("{a}\n{b}");
    let (from_file, written) = dedup(&dir, &[("in.pgn", text.clone())], &[]);
    let (out, report) = (dir.join("stdin.pgn"), dir.join("stdin.csv"));
    let run = pgnkit(
        &[
            "dedup",
            "-q",
            "-",
            "-o",
            out.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
        Some(text.as_bytes()),
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(games(&std::fs::read_to_string(&out).unwrap()), written);
    let report = std::fs::read_to_string(&report).unwrap();
    let rows: Vec<Vec<String>> = report
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    assert_eq!(rows.len(), from_file.len(), "{report}");
    for (got, want) in rows.iter().zip(&from_file) {
        assert_eq!(got[1..2], want[1..2]);
        assert_eq!(got[3..], want[3..]);
    }
    // No temporary folder is left beside the output.
    no_temporary_left(&dir);
}

#[test]
fn legacy_encodings_are_written_as_utf8() {
    let dir = scratch("dedup/gbk");
    let out = dir.join("out.pgn");
    let run = pgnkit(
        &[
            "dedup",
            "-q",
            "testdata/input/chinese-gbk.pgn",
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(run.status.code().is_some_and(|c| c < 2), "{}", stderr(&run));
    let written = std::fs::read(&out).expect("the output");
    let text = String::from_utf8(written).expect("UTF-8");
    let utf8 = std::fs::read_to_string("testdata/input/chinese-utf8.pgn").expect("the UTF-8 copy");
    assert_eq!(games(&text), games(&utf8));
}

/// Games that share only their first moves are distinct unless the same players played them
/// (at the same event, round and date where both say): a time forfeit `1. e4 1-0` is no
/// start of every game that opens 1. e4. A live-board copy cut short, of the same players
/// under names written another way, is still a prefix.
#[test]
fn games_sharing_an_opening_are_distinct_and_a_truncated_feed_is_found() {
    let dir = scratch("dedup/openings");
    let text = std::fs::read_to_string("testdata/dedup/shared-openings.pgn").expect("the input");
    let input = games(&text);
    let (rows, written) = dedup(&dir, &[("in.pgn", text)], &[]);
    assert_eq!(rows, vec![row("in.pgn", 7, "in.pgn", 5, "prefix")]);
    assert_eq!(written, input[..6]);
}

/// Issue 39: moves alone cannot tell short games apart. A game of fewer than 20 plies is a
/// copy only of a game of the same players, and of the same web address in `Site` where both
/// give one: `1. e4 1-0` of other players, or of the same players at another address, is
/// another game, and so is a four-move mate of another pair. A game of 20 plies is found by
/// its moves under names written another way.
#[test]
fn short_games_of_other_players_or_addresses_are_kept() {
    let dir = scratch("dedup/short");
    let text = std::fs::read_to_string("testdata/dedup/short-games.pgn").expect("the input");
    let input = games(&text);
    let (rows, written) = dedup(&dir, &[("in.pgn", text)], &[]);
    assert_eq!(
        rows,
        vec![
            row("in.pgn", 3, "in.pgn", 1, "same-moves"),
            row("in.pgn", 8, "in.pgn", 7, "same-moves")
        ]
    );
    assert_eq!(written, [&input[..2], &input[3..7]].concat());
}

/// Many games made by the test (re-tagged, cut short and with results changed), some of
/// them by the same players, decided within the smallest budget: the output and the report
/// are those of the run in memory, with one thread or two, from a file or standard input,
/// and the summary says the runs went to disk.
#[test]
fn past_the_memory_budget_the_runs_spill_to_disk_with_the_same_answers() {
    let dir = scratch("dedup/budget");
    let originals = base();
    let mut many = Vec::new();
    let swap = |s: &str| {
        s.replace("1-0", "@")
            .replace("0-1", "1-0")
            .replace("1/2-1/2", "0-1")
            .replace('@', "0-1")
    };
    // Enough games for every sort to spill several runs within the smallest budget.
    for i in 0..6000usize {
        let k = i % originals.len();
        let (moves, tags) = parts(&originals[k]);
        let tags: String = tags
            .lines()
            .filter(|l| !l.starts_with("[White ") && !l.starts_with("[Black "))
            .map(|l| format!("{l}\n"))
            .collect();
        // Each original game, by players of its own (its round's), in six variants.
        let (round, variant) = (i / originals.len() / 6, i / originals.len() % 6);
        let players = |p: &str| format!("[White \"{p}{k}x{round}\"]\n[Black \"{p}{k}y{round}\"]\n");
        let cut = |n: usize| moves.split(' ').take(n).collect::<Vec<_>>().join(" ") + " *";
        let unknown = tags.replace("[Result \"", "[Result \"*\"]\n[X \"");
        many.push(match variant {
            0 | 4 => format!("{tags}{}\n{moves}", players("A")),
            1 => format!("{unknown}{}\n{}", players("A"), cut(3 + round % 5)),
            2 => format!("{}{}\n{}", swap(&tags), players("A"), swap(moves)),
            3 => format!("{tags}{}[Annotator \"B\"]\n\n{moves}", players("A")),
            _ => format!("{unknown}{}\n{}", players("C"), cut(4)),
        });
    }
    let text = many.join("\n\n") + "\n";
    let (rows, written) = dedup(&dir, &[("many.pgn", text.clone())], &["-j", "1"]);
    let two = dedup(&dir, &[("many.pgn", text.clone())], &["-j", "2"]);
    assert_eq!((rows.clone(), written.clone()), two);
    assert_eq!(rows.len() + written.len(), many.len());
    for kind in ["identical", "same-moves", "prefix", "conflicting-result"] {
        assert!(rows.iter().any(|r| r[4] == kind), "no {kind} in {rows:?}");
    }
    // Standard input, spilled, and the summary says how many runs went to disk.
    let (out, report) = (dir.join("stdin.pgn"), dir.join("stdin.csv"));
    let run = pgnkit(
        &[
            "dedup",
            "-",
            "-o",
            out.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            "--memory-budget",
            FLOOR,
            "--keep",
            "best",
        ],
        Some(text.as_bytes()),
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let err = stderr(&run);
    let runs: u64 = err
        .split("; ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no runs spilled in the summary: {err}"));
    assert!(runs >= 8, "{err}");
    let best = dedup(&dir, &[("many.pgn", text)], &["--keep", "best"]);
    assert_eq!(games(&std::fs::read_to_string(&out).unwrap()), best.1);
    let rows: Vec<String> = std::fs::read_to_string(&report)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1.to_owned())
        .collect();
    let want: Vec<String> = best
        .0
        .iter()
        .map(|r| format!("{},many.pgn,{},{}", r[1], r[3], r[4]).replacen("many.pgn", "-", 1))
        .collect();
    assert_eq!(rows.len(), want.len());
    // In memory, nothing goes to disk.
    let run = pgnkit(
        &["dedup", "-", "-o", out.to_str().unwrap()],
        Some(b"1. e4 e5 *\n\n1. e4 e5 *\n"),
    );
    assert!(!stderr(&run).contains("spilled"), "{}", stderr(&run));
    no_temporary_left(&dir);
}

/// A run of dedup on one game from standard input to `out`, within `budget`.
fn with_budget(out: &Path, budget: &str) -> std::process::Output {
    let out = out.to_str().unwrap();
    let args = ["dedup", "-q", "-", "-o", out, "--memory-budget", budget];
    pgnkit(&args, Some(b"1. e4 *\n"))
}

/// Issue 40: a budget below the floor made a sorted run of a few records, and merged
/// hundreds of thousands of them in quadratic time. It is refused, and the message names
/// the smallest budget; the smallest is taken.
#[test]
fn a_memory_budget_below_what_the_merges_need_is_refused_naming_the_least() {
    let out = scratch("dedup/small-budget").join("out.pgn");
    for small in ["1K", "64K", "1023K", "1048575"] {
        let run = with_budget(&out, small);
        assert_eq!(run.status.code(), Some(2), "{small}");
        let err = stderr(&run);
        assert!(err.contains(&format!("at least {FLOOR}")), "{small}: {err}");
        assert!(!out.exists(), "{small}: no output");
    }
    for least in [FLOOR, "1024K", "1048576"] {
        let run = with_budget(&out, least);
        assert_eq!(run.status.code(), Some(0), "{least}: {}", stderr(&run));
    }
}

#[test]
fn a_memory_budget_that_is_no_size_is_refused_with_an_example() {
    let out = scratch("dedup/bad-budget").join("out.pgn");
    for bad in ["64X", "lots", "10", "99999999999T"] {
        let run = with_budget(&out, bad);
        assert_eq!(run.status.code(), Some(2), "{bad}");
        let err = stderr(&run);
        assert!(err.contains("as in"), "{bad}: {err}");
    }
    for good in ["64M", "2g", "1MiB", "4194304"] {
        let run = with_budget(&out, good);
        assert_eq!(run.status.code(), Some(0), "{good}: {}", stderr(&run));
    }
}

/// Asserts that no temporary file or folder of dedup's (`.pgnkit…`) is left in `dir`.
fn no_temporary_left(dir: &std::path::Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".pgnkit"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The games of a plain file are copied from the file itself, those of standard input and of
/// a compressed file from dedup's temporary files: the output and the report are the same
/// byte for byte, whatever lies between the games (CRLF lines, blank lines, commentary), with
/// one thread or two, and from a byte range of the file as from those bytes piped in.
#[test]
fn a_plain_file_standard_input_and_gzip_give_the_same_bytes() {
    use std::io::Write;
    let dir = scratch("dedup/verbatim");
    let a = std::fs::read_to_string("testdata/dedup/feed-a.pgn").unwrap();
    let b = std::fs::read_to_string("testdata/dedup/feed-b.pgn").unwrap();
    let mut text = String::new();
    for i in 0..40 {
        match i % 4 {
            0 => text.push_str(&a),
            1 => text.push_str(&b.replace('\n', "\r\n")),
            2 => text.push_str(&format!("\n\n{{ between games {i} }}\n\n{b}  \n")),
            _ => text.push_str(&a.replace("\n\n", "\n\n\n")),
        }
        text.push('\n');
    }
    let plain = dir.join("in.pgn");
    std::fs::write(&plain, &text).unwrap();
    let gzip = dir.join("in.pgn.gz");
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gzip, z.finish().unwrap()).unwrap();
    // The output's bytes and the report's rows without their file names.
    let run = |inputs: &[&str], stdin: Option<&[u8]>, extra: &[&str]| {
        let (out, report) = (dir.join("out.pgn"), dir.join("report.csv"));
        let mut args = vec!["dedup", "-q"];
        args.extend(inputs);
        args.extend(["-o", out.to_str().unwrap()]);
        args.extend(["--report", report.to_str().unwrap()]);
        args.extend(extra);
        let done = pgnkit(&args, stdin);
        assert_eq!(done.status.code(), Some(0), "{args:?}: {}", stderr(&done));
        let rows: Vec<String> = std::fs::read_to_string(&report)
            .unwrap()
            .lines()
            .map(|l| {
                let cells: Vec<&str> = l.split(',').collect();
                format!("{},{},{}", cells[1], cells[3], cells[4])
            })
            .collect();
        no_temporary_left(&dir);
        (std::fs::read(&out).unwrap(), rows)
    };
    let (plain_in, gzip_in) = (plain.to_str().unwrap(), gzip.to_str().unwrap());
    let from_file = run(&[plain_in], None, &[]);
    assert!(
        from_file.1.len() > 90,
        "many duplicates: {}",
        from_file.1.len()
    );
    let written = String::from_utf8(from_file.0.clone()).unwrap();
    assert_eq!(
        games(&written).len(),
        4,
        "the four games of feed-a and the new one of feed-b"
    );
    for jobs in ["1", "2"] {
        let j = ["-j", jobs];
        assert_eq!(run(&[plain_in], None, &j), from_file, "a file, -j {jobs}");
        assert_eq!(
            run(&["-"], Some(text.as_bytes()), &j),
            from_file,
            "stdin, -j {jobs}"
        );
        assert_eq!(run(&[gzip_in], None, &j), from_file, "gzip, -j {jobs}");
        // Two inputs, one copied from, one spilled, in either order.
        let mixed = run(&[plain_in, gzip_in], None, &j);
        assert_eq!(run(&[gzip_in, plain_in], None, &j), mixed, "-j {jobs}");
        assert_eq!(run(&[gzip_in, gzip_in], None, &j), mixed, "-j {jobs}");
    }
    // From the fifth game on: the range's first game lies past the file's first byte.
    let start = text.match_indices("[Event ").nth(4).unwrap().0;
    let range = format!("{start}:{}", text.len());
    assert_eq!(
        run(&[plain_in], None, &["--range", &range]),
        run(&["-"], Some(&text.as_bytes()[start..]), &[]),
        "--range {range}"
    );
}
