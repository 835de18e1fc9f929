//! `pgnkit split`, run as a user runs it: every mode, nothing lost or reordered, many groups.

use std::collections::BTreeMap;
use std::path::Path;

mod common;

use common::{pgn_games as games, pgnkit, scratch, stderr};

/// Splits `input` with `--by by` into a fresh folder: each file's name and games.
fn split(dir: &Path, input: &Path, by: &str, extra: &[&str]) -> BTreeMap<String, Vec<String>> {
    let out = dir.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let mut args = vec!["split", "-q", input.to_str().unwrap(), "--by", by, "-o"];
    args.push(out.to_str().unwrap());
    args.extend(extra);
    let run = pgnkit(&args, None);
    assert!(run.status.success(), "{}", stderr(&run));
    std::fs::read_dir(&out)
        .expect("the folder")
        .map(|e| {
            let e = e.expect("an entry");
            let text = std::fs::read_to_string(e.path()).expect("a file");
            (e.file_name().to_string_lossy().into_owned(), games(&text))
        })
        .collect()
}

/// Every game of the input is in exactly one file, and each file has its games in input
/// order.
fn assert_union_is_the_input(input: &[String], files: &BTreeMap<String, Vec<String>>) {
    let mut all: Vec<&String> = files.values().flatten().collect();
    let mut want: Vec<&String> = input.iter().collect();
    all.sort();
    want.sort();
    assert_eq!(all, want, "the files hold the input's games, each once");
    for (name, games) in files {
        let mut at = input.iter();
        for g in games {
            assert!(at.any(|x| x == g), "{name}: games out of input order");
        }
    }
}

fn tag<'a>(game: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("[{name} \"");
    let line = game.lines().find(|l| l.starts_with(&open))?;
    Some(&line[open.len()..line.len() - 2])
}

#[test]
fn every_mode_puts_each_game_in_its_file_and_loses_none() {
    let dir = scratch("split/modes");
    let path = Path::new("testdata/split/mixed.pgn");
    let input = games(&std::fs::read_to_string(path).unwrap());
    for (by, names) in [
        ("games:4", vec!["games-0001.pgn", "games-0002.pgn"]),
        (
            "event",
            vec![
                "event-Open_2024-2.pgn",
                "event-Open_2024.pgn",
                "event-Tata_Steel_2024.pgn",
                "event-etc_passwd.pgn",
                "event-unknown.pgn",
            ],
        ),
        (
            "eco-letter",
            vec!["eco-A.pgn", "eco-B.pgn", "eco-C.pgn", "eco-D.pgn"],
        ),
        (
            "tag:White",
            vec![
                "tag-White-A.pgn",
                "tag-White-C.pgn",
                "tag-White-E.pgn",
                "tag-White-G.pgn",
                "tag-White-I.pgn",
                "tag-White-K.pgn",
            ],
        ),
    ] {
        let files = split(&dir, path, by, &[]);
        assert_eq!(files.keys().collect::<Vec<_>>(), names, "--by {by}");
        assert_union_is_the_input(&input, &files);
    }
    // Each game with an ECO tag where its tag says (the others are classified: below).
    let files = split(&dir, path, "eco-letter", &[]);
    for (name, games) in &files {
        for g in games {
            let letter = tag(g, "ECO")
                .and_then(|e| e.chars().next())
                .map(|c| c.to_ascii_uppercase());
            if let Some(c @ 'A'..='E') = letter {
                assert_eq!(*name, format!("eco-{c}.pgn"), "{g}");
            }
        }
    }
    let files = split(&dir, path, "games:4", &[]);
    assert_eq!(files["games-0001.pgn"], input[..4]);
    assert_eq!(files["games-0002.pgn"], input[4..]);
}

/// More groups than files open at once: the files closed early are reopened to append, and
/// nothing is lost or reordered.
#[test]
fn many_groups_with_bounded_open_files() {
    let dir = scratch("split/many");
    let mut text = String::new();
    for i in 0..600 {
        text.push_str(&format!(
            "[Event \"e{}\"]\n[Round \"{i}\"]\n[Result \"*\"]\n\n1. e4 *\n\n",
            i % 150
        ));
    }
    let path = dir.join("in.pgn");
    std::fs::write(&path, &text).unwrap();
    let input = games(&text);
    for jobs in ["1", "3"] {
        let files = split(&dir, &path, "event", &["-j", jobs]);
        assert_eq!(files.len(), 150);
        assert_union_is_the_input(&input, &files);
        assert!(files.values().all(|g| g.len() == 4));
    }
}

#[test]
fn a_file_as_the_folder_is_refused() {
    let dir = scratch("split/file");
    let not_a_folder = dir.join("x.pgn");
    std::fs::write(&not_a_folder, "x").unwrap();
    let run = pgnkit(
        &[
            "split",
            "testdata/split/mixed.pgn",
            "--by",
            "event",
            "-o",
            not_a_folder.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("is not a folder"), "{}", stderr(&run));
}

#[test]
fn a_wrong_mode_says_which_there_are() {
    let run = pgnkit(
        &[
            "split",
            "testdata/split/mixed.pgn",
            "--by",
            "colour",
            "-o",
            "x",
        ],
        None,
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("games:N, event, eco, eco-letter or tag:NAME"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn standard_input_is_split_too() {
    let dir = scratch("split/stdin");
    let out = dir.join("out");
    let text = std::fs::read_to_string("testdata/split/mixed.pgn").unwrap();
    let run = pgnkit(
        &[
            "split",
            "-q",
            "-",
            "--by",
            "games:5",
            "-o",
            out.to_str().unwrap(),
        ],
        Some(text.as_bytes()),
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let first = std::fs::read_to_string(out.join("games-0001.pgn")).unwrap();
    let second = std::fs::read_to_string(out.join("games-0002.pgn")).unwrap();
    assert_eq!([games(&first), games(&second)].concat(), games(&text));
}

/// By ECO, a game without a usable ECO tag goes where its moves lead: each game of
/// classify.pgn says in its `Want` tag which file it belongs in.
#[test]
fn by_eco_classifies_the_games_without_a_usable_tag() {
    let dir = scratch("split/classify");
    let path = Path::new("testdata/split/classify.pgn");
    let input = games(&std::fs::read_to_string(path).unwrap());
    for jobs in ["1", "2"] {
        let files = split(&dir, path, "eco", &["-j", jobs]);
        assert_union_is_the_input(&input, &files);
        for (name, games) in &files {
            for g in games {
                assert_eq!(Some(name.as_str()), tag(g, "Want"), "{g}");
            }
        }
    }
    let files = split(&dir, path, "eco-letter", &[]);
    assert_union_is_the_input(&input, &files);
    for (name, games) in &files {
        for g in games {
            let want = tag(g, "Want").unwrap();
            let letter = want.strip_prefix("eco-").and_then(|w| w.get(..1)).unwrap();
            let want = if want == "eco-unknown.pgn" {
                want.to_owned()
            } else {
                format!("eco-{letter}.pgn")
            };
            assert_eq!(*name, want, "{g}");
        }
    }
}
