//! `pgnkit tree`, run as a user runs it: rows worked out by hand on small files (the corpus is
//! compared with python-chess by .ci/tree-pychess.py), transpositions, en passant keys, the
//! options, and the same tree however the work is cut.

mod common;

use common::{pgnkit, pgnkit_ok, scratch, stderr, stdout};

/// `pgnkit tree -q --format csv ARGS`: its rows, the header first.
fn csv(args: &[&str]) -> Vec<String> {
    let mut all = vec!["tree", "-q", "--format", "csv"];
    all.extend(args);
    stdout(&pgnkit_ok(&all, None))
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The rows of `rows` for the position `epd`, as `uci:games:white_wins:draws:black_wins`.
fn moves_of(rows: &[String], epd: &str) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            let c: Vec<&str> = r.split(',').collect();
            (c[1] == epd).then(|| format!("{}:{}:{}:{}:{}", c[2], c[4], c[5], c[6], c[7]))
        })
        .collect()
}

/// `pgnkit tree -q -o OUT ARGS`, which must succeed.
fn tree_to(out: &std::path::Path, args: &[&str]) {
    let mut all = vec!["tree", "-q", "-o", out.to_str().unwrap()];
    all.extend(args);
    pgnkit_ok(&all, None);
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

#[test]
fn three_games_to_two_plies_by_hand() {
    let rows = csv(&["--max-ply", "2", "testdata/tree/three.pgn"]);
    assert_eq!(
        rows,
        [
            "key,epd,uci,san,games,white_wins,draws,black_wins,mover_elo,mover_rated,opponent_elo,opponent_rated,first_date,last_date,example_file,example_game,speed,rating_band",
            // 1. d4 in game 2 (drawn, unrated, 2023), 1. e4 in games 1 and 3 (both won by
            // White rated 2000 and 2200 against 1800 and 2100).
            "463b96181691fc9c,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -,d2d4,d4,1,0,1,0,,0,,0,2023.??.??,2023.??.??,testdata/tree/three.pgn,2,,",
            "463b96181691fc9c,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -,e2e4,e4,2,2,0,0,2100.0,2,1950.0,2,2024.01.05,2024.02.01,testdata/tree/three.pgn,1,,",
            "823c9b50fd114196,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -,c7c5,c5,1,1,0,0,2100.0,1,2200.0,1,2024.02.01,2024.02.01,testdata/tree/three.pgn,3,,",
            "823c9b50fd114196,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -,e7e5,e5,1,1,0,0,1800.0,1,2000.0,1,2024.01.05,2024.01.05,testdata/tree/three.pgn,1,,",
            "830eb9b20758d1de,rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -,d7d5,d5,1,0,1,0,,0,,0,2023.??.??,2023.??.??,testdata/tree/three.pgn,2,,",
        ]
    );
}

#[test]
fn min_games_and_only_one_side() {
    let rows = csv(&[
        "--max-ply",
        "2",
        "--min-games",
        "2",
        "testdata/tree/three.pgn",
    ]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(moves_of(&rows, START), ["e2e4:2:2:0:0"]);
    let black = csv(&[
        "--max-ply",
        "4",
        "--only",
        "black",
        "testdata/tree/three.pgn",
    ]);
    assert_eq!(black.len(), 1 + 4, "{black:?}");
    assert!(
        black[1..].iter().all(|r| r.contains(" b KQkq -")),
        "{black:?}"
    );
    let white = csv(&[
        "--max-ply",
        "4",
        "--only",
        "white",
        "testdata/tree/three.pgn",
    ]);
    assert_eq!(white.len(), 1 + 3, "{white:?}");
}

#[test]
fn a_transposition_is_one_position_and_a_repetition_counts_twice() {
    let rows = csv(&["--max-ply", "12", "testdata/tree/positions.pgn"]);
    // 1. Nf3 Nf6 2. Nc3 and 1. Nc3 Nf6 2. Nf3: one position, 2...d5 in both games.
    assert_eq!(
        moves_of(
            &rows,
            "rnbqkb1r/pppppppp/5n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R b KQkq -"
        ),
        ["d7d5:2:1:0:1"]
    );
    // 1. Nf3 from the start: game 1, and twice in the repetition game (plies 1 and 5).
    assert!(moves_of(&rows, START).contains(&"g1f3:3:1:2:0".to_owned()));
}

#[test]
fn en_passant_is_in_the_key_when_a_pawn_could_take_as_polyglot_says() {
    let rows = csv(&["--max-ply", "12", "testdata/tree/positions.pgn"]);
    let key_of = |epd: &str| {
        rows.iter()
            .find(|r| r.split(',').nth(1) == Some(epd))
            .map(|r| r[..16].to_owned())
    };
    // Keys from python-chess's chess.polyglot.zobrist_hash.
    assert_eq!(
        key_of("rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6").as_deref(),
        Some("2158459ff499f8e3")
    );
    // The pawn on b5 is pinned: the capture is not legal, so the EPD has no square, but
    // Polyglot keys the file all the same.
    assert_eq!(
        key_of("4k3/8/8/KPp4r/8/8/8/8 w - -").as_deref(),
        Some("35166a62c9d2edc7")
    );
}

#[test]
fn a_game_with_an_error_adds_its_plies_before_it_and_exits_1() {
    let out = pgnkit(
        &[
            "tree",
            "-q",
            "--format",
            "csv",
            "--max-ply",
            "8",
            "testdata/tree/illegal.pgn",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(moves_of(&rows, START), ["e2e4:2:1:0:1"]);
    // 2. Ke3 cannot be played: the first game stops there, the second goes on with 2. Nf3.
    assert_eq!(
        moves_of(
            &rows,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"
        ),
        ["g1f3:1:0:0:1"]
    );
    assert_eq!(rows.len(), 1 + 3, "{rows:?}");
    // The error is said, where it is and what to do, as `convert` says it; warnings are
    // `validate`'s to give.
    let said = stderr(&out);
    assert!(
        said.contains("error[M001]: 'Ke3' is not a legal move for White")
            && said.contains("testdata/tree/illegal.pgn:")
            && said.contains("help: did you mean Ke2?"),
        "{said}"
    );
    assert!(!said.contains("warning"), "{said}");
}

#[test]
fn the_same_tree_for_any_jobs_and_any_number_of_sorted_runs() {
    let base = [
        "--max-ply",
        "12",
        "testdata/tree/positions.pgn",
        "testdata/tree/three.pgn",
    ];
    let one = csv(&[&base[..], &["-j", "1"]].concat());
    let two = csv(&[&base[..], &["-j", "2"]].concat());
    let spilled = csv(&[&base[..], &["--run-records", "3"]].concat());
    assert_eq!(one, two);
    assert_eq!(one, spilled);
}

#[test]
fn jsonl_holds_the_same_rows_as_csv() {
    let dir = scratch("tree-jsonl");
    let out = dir.join("tree.jsonl");
    tree_to(&out, &["--max-ply", "2", "testdata/tree/three.pgn"]);
    let text = std::fs::read_to_string(&out).unwrap();
    let rows = common::json_lines(&text);
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[1]["uci"], "e2e4");
    assert_eq!(rows[1]["games"], 2);
    assert_eq!(rows[1]["mover_elo"], 2100.0);
    assert_eq!(rows[0]["mover_elo"], serde_json::Value::Null);
}

#[test]
fn wrong_options_are_refused() {
    for (args, says) in [
        (&["--max-ply", "0"][..], "--max-ply"),
        (&["--min-games", "0"][..], "--min-games"),
        (&["--memory-budget", "10"][..], "memory budget"),
    ] {
        let mut all = vec!["tree", "--format", "csv", "testdata/tree/three.pgn"];
        all.extend(args);
        let out = pgnkit(&all, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn parquet_holds_the_rows_of_csv_and_is_looked_up_alike() {
    let dir = scratch("tree-parquet");
    let files = ["testdata/tree/three.pgn", "testdata/tree/positions.pgn"];
    let mut rows_of = Vec::new();
    let mut tables = Vec::new();
    for name in ["tree.parquet", "tree.csv", "tree.jsonl"] {
        let out = dir.join(name);
        let mut args = vec!["tree", "-q", "--max-ply", "6", "-o", out.to_str().unwrap()];
        args.extend(files);
        pgnkit_ok(&args, None);
        let format = pgnkit::tree::read::format_of(&out).unwrap();
        let mut reader = pgnkit::tree::read::TreeRows::open(&out, format).unwrap();
        let mut rows = Vec::new();
        while let Some(r) = reader.next_row().unwrap() {
            rows.push(r);
        }
        rows_of.push(rows);
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        tables.push(stdout(&pgnkit_ok(
            &["tree", "--fen", fen, out.to_str().unwrap()],
            None,
        )));
    }
    assert_eq!(rows_of[0].len(), 26);
    assert_eq!(rows_of[0], rows_of[1]);
    assert_eq!(rows_of[0], rows_of[2]);
    assert_eq!(tables[0], tables[1]);
    assert_eq!(tables[0], tables[2]);
    assert!(
        tables[0]
            .lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("Nf3 ")),
        "{}",
        tables[0]
    );
    // A position the tree does not hold: exit status 1.
    let out = pgnkit(
        &[
            "tree",
            "--fen",
            "8/8/8/8/8/8/8/K6k w - -",
            dir.join("tree.csv").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("not in the tree"), "{}", stdout(&out));
}

/// The entries of a Polyglot book: key, move, weight (the learning bytes must be 0).
fn book_entries(bytes: &[u8]) -> Vec<(u64, u16, u16)> {
    assert_eq!(bytes.len() % 16, 0);
    bytes
        .chunks(16)
        .map(|e| {
            assert_eq!(&e[12..], [0, 0, 0, 0]);
            (
                u64::from_be_bytes(e[..8].try_into().unwrap()),
                u16::from_be_bytes([e[8], e[9]]),
                u16::from_be_bytes([e[10], e[11]]),
            )
        })
        .collect()
}

#[test]
fn a_polyglot_book_weighs_as_make_book_does() {
    let dir = scratch("tree-book");
    let book = dir.join("book.bin");
    let make = |extra: &[&str]| {
        let mut args = vec![
            "tree",
            "-q",
            "--max-ply",
            "40",
            "-o",
            book.to_str().unwrap(),
        ];
        args.extend(extra);
        args.push("testdata/tree/book.pgn");
        pgnkit_ok(&args, None);
        book_entries(&std::fs::read(&book).unwrap())
    };
    let entries = make(&[]);
    assert!(
        entries.windows(2).all(|w| w[0].0 <= w[1].0),
        "sorted by key"
    );
    let start: Vec<(u16, u16)> = entries
        .iter()
        .filter(|e| e.0 == 0x463b96181691fc9c)
        .map(|e| (e.1, e.2))
        .collect();
    // e4 in five games (1-0, 0-1, 1/2, 1-0, 0-1): 2 + 0 + 1 + 2 + 0. h4 won once, Nf3 drawn
    // twice in one game (a repetition), d4 once without a result (as a draw); h4 and Nf3
    // weigh the same and come in the order of their first games. (Polyglot moves: from * 64
    // + to.)
    let code = |from: u16, to: u16| from * 64 + to;
    assert_eq!(
        start,
        [
            (code(12, 28), 5),
            (code(15, 31), 2),
            (code(6, 21), 2),
            (code(11, 27), 1)
        ]
    );
    // Castling long is the king taking its rook: 8. O-O-O is e1a1 (4 to 0). (Black's 6...
    // O-O-O lost: weight 0, left out, as make-book leaves it.)
    assert!(entries.iter().any(|e| e.1 == code(4, 0)));
    assert!(!entries.iter().any(|e| e.1 == code(60, 56)));
    // The promotion to a queen: h7 to g8, queen (4) in bits 12 to 14.
    assert!(entries.iter().any(|e| e.1 == code(55, 62) | 4 << 12));
    // --min-games 3 keeps 1. e4 (5 games), then 1... e5 2. Nf3 Nc6 3. Bb5 (3 games each).
    assert_eq!(make(&["--min-games", "3"]).len(), 5);
    // --min-score 60: only the moves scoring 60% or more for the side to move.
    let scored = make(&["--min-score", "60"]);
    assert!(scored.iter().all(|e| e.1 != code(12, 28)), "e4 scores 50%");
    // --uniform: every weight 1.
    assert!(make(&["--uniform"]).iter().all(|e| e.2 == 1));
    // The book is looked up as a tree is.
    make(&[]);
    let table = stdout(&pgnkit_ok(
        &[
            "tree",
            "--fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            book.to_str().unwrap(),
        ],
        None,
    ));
    assert!(table.contains("e4            5    50%"), "{table}");
}

#[test]
fn book_options_without_a_book_are_refused() {
    let out = pgnkit(
        &[
            "tree",
            "--format",
            "csv",
            "--uniform",
            "testdata/tree/three.pgn",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Polyglot book"), "{}", stderr(&out));
}

#[test]
fn merged_parts_are_the_tree_of_one_run() {
    let dir = scratch("tree-merge");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let inputs = [
        "testdata/tree/three.pgn",
        "testdata/tree/positions.pgn",
        "testdata/tree/book.pgn",
    ];
    let parts = ["a.parquet", "b.jsonl", "c.csv"];
    for (input, part) in inputs.iter().zip(parts) {
        pgnkit_ok(
            &["tree", "-q", "--max-ply", "12", "-o", &path(part), input],
            None,
        );
    }
    let mut one = vec!["tree", "-q", "--max-ply", "12", "--format", "csv"];
    one.extend(inputs);
    let want = stdout(&pgnkit_ok(&one, None));
    let merged = pgnkit_ok(
        &[
            "tree",
            "merge",
            &path("a.parquet"),
            &path("b.jsonl"),
            &path("c.csv"),
            "--format",
            "csv",
        ],
        None,
    );
    assert_eq!(stdout(&merged), want);
    assert!(
        stderr(&merged).starts_with("pgnkit: 3 parts, 89 rows read: 73 rows of 63 positions in "),
        "{}",
        stderr(&merged)
    );
    // --min-games applies to the merged rows; a book from the parts is the book of one run.
    let one_book = path("one.bin");
    tree_to(
        std::path::Path::new(&one_book),
        &[&["--max-ply", "12", "--min-games", "2"][..], &inputs[..]].concat(),
    );
    let merged_book = path("merged.bin");
    pgnkit_ok(
        &[
            "tree",
            "merge",
            "-q",
            "--min-games",
            "2",
            "-o",
            &merged_book,
            &path("a.parquet"),
            &path("b.jsonl"),
            &path("c.csv"),
        ],
        None,
    );
    let (a, b) = (
        std::fs::read(&one_book).unwrap(),
        std::fs::read(&merged_book).unwrap(),
    );
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn a_part_that_is_no_sorted_tree_is_refused() {
    let dir = scratch("tree-merge-wrong");
    let tree = dir.join("tree.csv");
    tree_to(&tree, &["--max-ply", "2", "testdata/tree/three.pgn"]);
    let text = std::fs::read_to_string(&tree).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    let shuffled = dir.join("shuffled.csv");
    std::fs::write(&shuffled, lines.join("\n") + "\n").unwrap();
    let out = pgnkit(
        &[
            "tree",
            "merge",
            "--format",
            "csv",
            shuffled.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not in a tree's order"),
        "{}",
        stderr(&out)
    );
    let out = pgnkit(
        &[
            "tree",
            "merge",
            "--format",
            "csv",
            "testdata/tree/three.pgn",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not a row of a tree"),
        "{}",
        stderr(&out)
    );
}

/// The rows of `rows` as `uci:games:white_wins:draws:black_wins:speed:rating_band`.
fn split_rows(rows: &[String]) -> Vec<String> {
    rows[1..]
        .iter()
        .map(|r| {
            let c: Vec<&str> = r.split(',').collect();
            format!(
                "{}:{}:{}:{}:{}:{}:{}",
                c[2], c[4], c[5], c[6], c[7], c[16], c[17]
            )
        })
        .collect()
}

#[test]
fn rows_split_by_speed_and_rating_band_as_lichess_does() {
    let split = |by: &str| {
        split_rows(&csv(&[
            "--max-ply",
            "1",
            "--split",
            by,
            "testdata/tree/split.pgn",
        ]))
    };
    // 60+0 is bullet, 180+2 blitz (180 + 40 * 2 = 260 s), 600+5 rapid, `-` correspondence.
    assert_eq!(
        split("speed"),
        [
            "d2d4:1:1:0:0:correspondence:",
            "e2e4:1:1:0:0:bullet:",
            "e2e4:1:0:0:1:blitz:",
            "e2e4:1:0:1:0:rapid:"
        ]
    );
    // Averages 1525 and 1510 are in the 1400 band, 2525 in the 2500 one; unrated in none.
    assert_eq!(
        split("rating"),
        ["d2d4:1:1:0:0::", "e2e4:2:1:1:0::1400", "e2e4:1:0:0:1::2500"]
    );
    assert_eq!(split("speed,rating").len(), 4);
    // A lookup sums a move's rows.
    let dir = scratch("tree-split");
    let out = dir.join("split.parquet");
    tree_to(
        &out,
        &[
            "--max-ply",
            "1",
            "--split",
            "speed",
            "testdata/tree/split.pgn",
        ],
    );
    let table = stdout(&pgnkit_ok(
        &["tree", "--fen", START, out.to_str().unwrap()],
        None,
    ));
    assert!(
        table
            .lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("e4            3 ")),
        "{table}"
    );
    // Split trees merge as the others do.
    let merged = pgnkit_ok(
        &[
            "tree",
            "merge",
            "-q",
            "--format",
            "csv",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        split_rows(
            &stdout(&merged)
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        ),
        split("speed")
    );
}

#[test]
fn where_keeps_the_games_a_select_expression_matches() {
    // By the tags alone: only the blitz game has White rated 2000 or more.
    let rows = csv(&[
        "--max-ply",
        "1",
        "--where",
        "WhiteElo >= 2000",
        "testdata/tree/split.pgn",
    ]);
    assert_eq!(moves_of(&rows, START), ["e2e4:1:0:0:1"]);
    // By the replay: only the first game ends in checkmate; its first two plies.
    let out = pgnkit_ok(
        &[
            "tree",
            "--format",
            "csv",
            "--max-ply",
            "2",
            "--where",
            "termination = checkmate",
            "testdata/tree/split.pgn",
        ],
        None,
    );
    let rows: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(moves_of(&rows, START), ["e2e4:1:1:0:0"]);
    assert_eq!(rows.len(), 1 + 2);
    assert!(
        stderr(&out).contains("4 games: 1 game selected, 2 plies"),
        "{}",
        stderr(&out)
    );
    // A wrong expression is refused before any game is read.
    let out = pgnkit(
        &["tree", "--where", "WhiteElo >=", "testdata/tree/split.pgn"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--where"), "{}", stderr(&out));
}
