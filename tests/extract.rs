//! pgn-extract's own test suite as a conformance step (issue 44): each case of
//! `testdata/extract/cases.tsv` runs pgnkit on `testdata/extract/games.pgn` and compares its
//! output with what pgn-extract wrote for the same case (`expected/NAME.pgn`, made once by
//! `.ci/extract-suite.sh --regenerate`): byte for byte for rewrites, the same games in the same
//! order for selections, and where they put their marks (`--mark-matches MATCH`: after which
//! main-line move of each game, and its `MatchLabel` tag). Where pgnkit differs on purpose, the case says why, pgnkit's output
//! is `expected/NAME.pgnkit.pgn`, and it must differ from pgn-extract's. No pgn-extract is
//! needed here.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One line of cases.tsv.
struct Case {
    name: String,
    target: String,
    compare: String,
    pgnkit: Vec<String>,
    note: String,
}

/// The words of an argument list: blanks split, single quotes group.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("testdata/extract/cases.tsv")).expect("cases");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(n, line)| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 6, "cases.tsv:{}: six columns", n + 1);
            Case {
                name: f[0].to_owned(),
                target: f[1].to_owned(),
                compare: f[2].to_owned(),
                pgnkit: words(f[3]),
                note: f[5].to_owned(),
            }
        })
        .collect()
}

/// The games of a PGN text, each as its White, Black, Date and Round tags.
fn games(text: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("[Event ") {
            games.push(String::new());
        }
        if ["[White ", "[Black ", "[Date ", "[Round "]
            .iter()
            .any(|t| line.starts_with(t))
        {
            if let Some(game) = games.last_mut() {
                game.push_str(line);
            }
        }
    }
    games
}

/// Each game's `MatchLabel` tag and the main-line plies before its `{MATCH}` comment (none
/// when it has none): variations, other comments, move numbers, NAGs and the layout aside.
fn marks(text: &str) -> Vec<(Option<String>, Option<usize>)> {
    let mut games: Vec<(Option<String>, Option<usize>)> = Vec::new();
    let (mut depth, mut plies) = (0usize, 0usize);
    let mut comment: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("[Event ") {
            games.push((None, None));
            plies = 0;
        }
        if line.starts_with('[') && comment.is_none() && depth == 0 {
            if let (Some(label), Some(game)) = (line.strip_prefix("[MatchLabel "), games.last_mut())
            {
                game.0 = Some(label.to_owned());
            }
            continue;
        }
        let mut word = String::new();
        for c in line.chars().chain([' ']) {
            if let Some(text) = comment.as_mut() {
                if c == '}' {
                    if text.trim() == "MATCH" && depth == 0 {
                        if let Some(game) = games.last_mut() {
                            game.1 = Some(plies);
                        }
                    }
                    comment = None;
                } else {
                    text.push(c);
                }
                continue;
            }
            match c {
                '{' | '(' | ')' | ' ' => {
                    let w = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                    let result = ["1-0", "0-1", "1/2-1/2", "*"].contains(&word.as_str());
                    if depth == 0 && !w.is_empty() && !w.starts_with('$') && !result {
                        plies += 1;
                    }
                    word.clear();
                    match c {
                        '{' => comment = Some(String::new()),
                        '(' => depth += 1,
                        ')' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                }
                c => word.push(c),
            }
        }
    }
    games
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn pgnkit_writes_what_pgn_extract_wrote_case_by_case() {
    let cases = cases();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let expected = root().join("testdata/extract/expected");
    for case in &cases {
        let out = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
            .args(&case.pgnkit)
            .args(["-q", "testdata/extract/games.pgn"])
            .current_dir(root())
            .output()
            .expect("run pgnkit");
        let got = String::from_utf8(out.stdout).expect("utf-8");
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{} ({}): {}",
            case.name,
            case.target,
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs = read(&expected.join(format!("{}.pgn", case.name)));
        let same = |a: &str, b: &str| match case.compare.as_str() {
            "bytes" => a == b,
            "games" => games(a) == games(b),
            "marks" => games(a) == games(b) && marks(a) == marks(b),
            other => panic!("{}: unknown comparison '{other}'", case.name),
        };
        if case.note == "same" {
            assert!(
                same(&got, &theirs),
                "{} ({}): pgnkit {:?} writes otherwise than pgn-extract\n--- pgnkit\n{got}\n\
                 --- pgn-extract\n{theirs}",
                case.name,
                case.target,
                case.pgnkit
            );
        } else {
            // A difference on purpose: pgnkit's documented output, and not pgn-extract's.
            let ours = read(&expected.join(format!("{}.pgnkit.pgn", case.name)));
            assert!(same(&got, &ours), "{}: pgnkit now writes\n{got}", case.name);
            assert!(
                !same(&ours, &theirs),
                "{}: pgnkit now writes what pgn-extract does: the note '{}' is out of date",
                case.name,
                case.note
            );
        }
    }
}

#[test]
fn every_case_is_in_the_mapping_of_docs() {
    let doc = read(&root().join("docs/pgn-extract.md"));
    for case in cases() {
        assert!(
            doc.contains(&format!("`{}`", case.name)),
            "docs/pgn-extract.md does not name the case `{}` ({})",
            case.name,
            case.target
        );
    }
}

#[test]
fn marks_are_counted_in_plies_of_the_main_line() {
    let pgnkit = "[Event \"E\"]\n[MatchLabel \"p\"]\n\n{c} 1. e4 {MATCH} e5 (1... c5) 2. Nf3 *\n";
    let extract = "[Event \"E\"]\n[MatchLabel \"p\"]\n\n{ c }\n\n1. e4 { MATCH } 1... e5 (1... c5 { MATCH })\n2. Nf3 *\n";
    assert_eq!(marks(pgnkit), [(Some("\"p\"]".to_owned()), Some(1))]);
    assert_eq!(marks(pgnkit), marks(extract));
    assert_ne!(
        marks(pgnkit),
        marks("[Event \"E\"]\n\n1. e4 e5 {MATCH} *\n")
    );
}

#[test]
fn words_group_in_single_quotes() {
    assert_eq!(
        words("select --where 'player = \"A*\"' -q"),
        ["select", "--where", "player = \"A*\"", "-q"]
    );
}
