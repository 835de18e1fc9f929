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

/// `standings.csv` of `stats PGN --report standings` with `--tiebreaks LIST` when given, its
/// rows without the `site` column (a joined event shows the site of most games).
fn standings_without_site(pgn: &str, list: Option<&str>) -> Vec<Vec<String>> {
    let mut args = vec!["stats", pgn, "--report", "standings"];
    if let Some(list) = list {
        args.extend(["--tiebreaks", list]);
    }
    let o = common::pgnkit_ok(&args, None);
    let report = common::Report::parse(&o.stdout);
    report
        .records
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter(|&(i, _)| i != 1)
                .map(|(_, c)| c.to_owned())
                .collect()
        })
        .collect()
}

/// Issue 39: a Swiss whose boards carry two spellings of the venue is one event (its sites
/// are joined), and its tie-breaks count the games of both sites, as with one `Site`: the
/// tie-break log once filed games by their own site, so the joined table's values (and
/// players) were those of the site it is named after alone.
#[test]
fn tiebreaks_of_sites_joined_into_one_event_count_every_site_s_games() {
    let one_site = "testdata/stats/tiebreaks/swiss.pgn";
    let text = std::fs::read_to_string(one_site).unwrap();
    // Every other game is played at "Testville RUS": no player plays one round at both.
    let mut n = 0;
    let two_sites: Vec<String> = text
        .lines()
        .map(|l| {
            if l != "[Site \"Testville\"]" {
                return l.to_owned();
            }
            n += 1;
            if n % 2 == 0 {
                "[Site \"Testville RUS\"]".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect();
    assert!(n >= 8, "the games of the Swiss");
    let dir = common::scratch("tiebreaks/joined-sites");
    let pgn = dir.join("swiss.pgn");
    std::fs::write(&pgn, two_sites.join("\n") + "\n").unwrap();
    let pgn = pgn.to_str().unwrap();
    // The sites are one event: without tie-breaks, one table as with one site.
    let plain = standings_without_site(one_site, None);
    assert_eq!(standings_without_site(pgn, None), plain);
    for list in [
        "ARO-C1,BH-C1,BH,DE",
        "DE,BH",
        "WIN,WON,BPG,BWG,PS,PS-C1,BH-C2,BH-M1,FB,AOB,SB,ARO,TPR,PTP,APRO,APPO",
    ] {
        let want = standings_without_site(one_site, Some(list));
        assert!(want.len() >= 5, "{list}: the players of the Swiss");
        assert_eq!(standings_without_site(pgn, Some(list)), want, "{list}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes the games of `pgn` as two files in `dir`, the first `first` games and the rest.
fn split_in_two(pgn: &str, first: usize, dir: &Path) -> [String; 2] {
    let games = common::pgn_games(&std::fs::read_to_string(pgn).unwrap());
    assert!(games.len() > first, "{pgn}: more than {first} games");
    let (a, b) = games.split_at(first);
    [("a.pgn", a), ("b.pgn", b)].map(|(name, games)| {
        let path = dir.join(name);
        std::fs::write(&path, games.join("\n")).unwrap();
        path.to_str().unwrap().to_owned()
    })
}

/// Issue 42: `stats merge --tiebreaks` gives one machine's tables. A Swiss (a bye, a
/// forfeit, a withdrawal) and a team cup, each cut into two inputs written as two partial
/// results, merged with `--tiebreaks` (and the team and forfeit options), give
/// `standings.csv` byte for byte as one `stats` run over both inputs.
#[test]
fn merged_partials_rank_as_one_run() {
    let dir = common::scratch("tiebreaks/merged");
    for (pgn, first, options) in [
        (
            "testdata/stats/tiebreaks/swiss.pgn",
            5,
            &["--tiebreaks", "ARO-C1,BH-C1,BH,DE"][..],
        ),
        (
            "testdata/stats/tiebreaks/swiss.pgn",
            3,
            &[
                "--tiebreaks",
                "WIN,WON,BPG,BWG,PS,PS-C1,BH-C2,BH-M1,FB,AOB,SB,ARO,TPR,PTP,APRO,APPO,DE,KS",
                "--played-without-moves",
            ][..],
        ),
        (
            "testdata/stats/teams/boards.pgn",
            7,
            &[
                "--tiebreaks",
                "DE,BH",
                "--team-tiebreaks",
                "DE,GP,BC,TBR,BBE",
            ][..],
        ),
    ] {
        let inputs = split_in_two(pgn, first, &dir);
        let mut args = vec!["stats", "--report", "standings"];
        args.extend(inputs.iter().map(String::as_str));
        args.extend(options);
        let one = common::pgnkit_ok(&args, None);
        let parts = ["a.part", "b.part"].map(|p| dir.join(p).to_str().unwrap().to_owned());
        for (input, part) in inputs.iter().zip(&parts) {
            common::pgnkit_ok(&["stats", "-q", input, "--partial", part], None);
        }
        let mut args = vec!["stats", "merge", "--report", "standings"];
        args.extend(parts.iter().map(String::as_str));
        args.extend(options);
        let merged = common::pgnkit_ok(&args, None);
        assert!(
            common::stdout(&one).lines().count() > 4,
            "{pgn} {options:?}"
        );
        assert_eq!(
            common::stdout(&merged),
            common::stdout(&one),
            "{pgn} {options:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A partial result of the version before tie-breaks went into partial files merges as
/// before, but not with `--tiebreaks`: the message says to rebuild the partial results.
#[test]
fn an_older_partial_is_refused_by_merge_with_tiebreaks() {
    let dir = common::scratch("tiebreaks/older-partial");
    let part = dir.join("old.part");
    let part = part.to_str().unwrap();
    common::pgnkit_ok(
        &[
            "stats",
            "-q",
            "testdata/stats/tiebreaks/swiss.pgn",
            "--partial",
            part,
        ],
        None,
    );
    let text = std::fs::read_to_string(part).unwrap();
    let old = text.replacen("\"version\":5", "\"version\":4", 1);
    assert_ne!(old, text, "the header names version 5");
    std::fs::write(part, old).unwrap();
    let o = common::pgnkit(
        &[
            "stats",
            "merge",
            part,
            "--report",
            "standings",
            "--tiebreaks",
            "BH",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = common::stderr(&o);
    assert!(err.contains("rebuild the partial results"), "{err}");
    common::pgnkit_ok(&["stats", "merge", part, "--report", "standings"], None);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `stats merge --tiebreaks` tells the decisive games without moves it took as forfeits, as
/// `stats` does, and ranks as `stats` does with and without `--played-without-moves`.
#[test]
fn merge_tells_moveless_games_taken_as_forfeits() {
    let dir = common::scratch("tiebreaks/merged-moveless");
    let part = dir.join("moveless.part");
    let part = part.to_str().unwrap();
    let pgn = "testdata/stats/moveless.pgn";
    common::pgnkit_ok(&["stats", "-q", pgn, "--partial", part], None);
    let note = "pgnkit: --tiebreaks counted 3 decisive game(s) without moves as forfeits";
    for extra in [&[][..], &["--played-without-moves"][..]] {
        let mut one = vec![
            "stats",
            pgn,
            "--report",
            "standings",
            "--tiebreaks",
            "WON,WIN",
        ];
        one.extend(extra);
        let one = common::pgnkit_ok(&one, None);
        let mut merged = vec!["stats", "merge", part, "--report", "standings"];
        merged.extend(["--tiebreaks", "WON,WIN"]);
        merged.extend(extra);
        let merged = common::pgnkit_ok(&merged, None);
        assert_eq!(common::stdout(&merged), common::stdout(&one), "{extra:?}");
        let told = common::stderr(&merged).contains(note);
        assert_eq!(told, extra.is_empty(), "{}", common::stderr(&merged));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
