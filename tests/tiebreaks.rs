//! `pgnkit stats --tiebreaks` and `--team-tiebreaks` on PGN files whose hand-computed
//! standings are the `.tsv` tables beside them (the tables docs/stats.md shows).

use std::path::Path;

mod common;

use common::{cells, tsv_rows};

/// The team rows of `standings.csv` for `pgn` with `--team-tiebreaks` the `team:` columns of
/// `expected`, in its columns ("-" for an empty cell).
fn team_rows(pgn: &str, expected: &[Vec<String>]) -> Vec<Vec<String>> {
    let list: Vec<&str> = expected[0]
        .iter()
        .filter_map(|h| h.strip_prefix("team:"))
        .collect();
    let report = common::team_standings(pgn, &list);
    let at = report.columns(&expected[0]);
    report.of_kind("teams").map(|r| cells(r, &at)).collect()
}

/// Board count, top-board result and bottom-board elimination (C.07 12) on a three-board
/// cup where three teams tie on match and game points and drew their matches: the boards
/// are numbered by the `Board` tag (one match is written bottom board first), and the
/// hand-computed tables in `testdata/stats/teams/boards.*.tsv` come out.
#[test]
fn board_tiebreaks_rank_teams_tied_on_match_and_game_points() {
    for name in ["fide", "bbe"] {
        let path = format!("testdata/stats/teams/boards.{name}.tsv");
        let expected = tsv_rows(Path::new(&path));
        let got = team_rows("testdata/stats/teams/boards.pgn", &expected);
        assert_eq!(got, expected[1..], "{path}");
    }
}

/// Without `Board` tags the boards of a match are numbered in the order they are read: the
/// same cup with its tags taken out and the games of every match in board order gives the
/// same table.
#[test]
fn boards_without_a_board_tag_are_numbered_in_input_order() {
    let text = std::fs::read_to_string("testdata/stats/teams/boards.pgn").unwrap();
    // Split into games, drop the Board tags, and sort each match's games by board.
    let mut games: Vec<(String, String)> = text
        .split("\n\n[Event")
        .enumerate()
        .map(|(i, g)| {
            let g = if i == 0 {
                g.to_owned()
            } else {
                format!("[Event{g}")
            };
            let board = g
                .lines()
                .find_map(|l| l.strip_prefix("[Board \""))
                .expect("a Board tag")
                .trim_end_matches("\"]")
                .to_owned();
            let kept: Vec<&str> = g.lines().filter(|l| !l.starts_with("[Board ")).collect();
            (board, kept.join("\n"))
        })
        .collect();
    // Games of one match are consecutive; a stable sort within runs of three keeps matches.
    for chunk in games.chunks_mut(3) {
        chunk.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let dir = common::scratch("tiebreaks/untagged");
    let pgn = dir.join("boards.pgn");
    let body: Vec<String> = games.into_iter().map(|g| g.1).collect();
    std::fs::write(&pgn, body.join("\n\n") + "\n").unwrap();
    let expected = tsv_rows(Path::new("testdata/stats/teams/boards.fide.tsv"));
    let got = team_rows(pgn.to_str().unwrap(), &expected);
    assert_eq!(got, expected[1..]);
    std::fs::remove_dir_all(&dir).unwrap();
}
