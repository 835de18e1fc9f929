//! Table-driven rule tests: every game in `testdata/rules/cases.pgn` carries an `Expect` tag
//! saying which diagnostics and results pgnkit must find.

use std::collections::BTreeSet;

use pgnkit::pgn::{book, GameReader, Lexed, Movetext};
use pgnkit::rules::game::{check_game, CheckOptions};
use pgnkit::rules::visit::NoVisitor;

#[test]
fn rule_cases() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/rules/cases.pgn");
    let file = std::fs::File::open(path).unwrap();
    let mut reader = GameReader::new(file);
    let mut lexed = Lexed::default();
    let mut failures = Vec::new();
    let mut games = 0;
    while let Some(game) = reader.next_game(&mut lexed).unwrap() {
        games += 1;
        book::extract_header(game.bytes, &mut lexed);
        let expect = lexed
            .tag("Expect")
            .expect("every case has an Expect tag")
            .to_string();
        let name = lexed.tag("Event").unwrap_or("?").to_string();
        let report = check_game(
            game.bytes,
            &lexed,
            Movetext::Tokens,
            &CheckOptions::default(),
            &mut NoVisitor,
        );
        for item in expect.split(';') {
            let (key, want) = item.split_once('=').expect("key=value");
            let (key, want) = (key.trim(), want.trim());
            let got = match key {
                "codes" => {
                    let got: BTreeSet<&str> = report
                        .findings
                        .iter()
                        .map(|f| f.code.as_str())
                        .filter(|c| *c != "T001")
                        .collect();
                    let want_set: BTreeSet<&str> = want.split_whitespace().collect();
                    if got != want_set {
                        let detail: Vec<String> = report
                            .findings
                            .iter()
                            .map(|f| format!("{} {}", f.code.as_str(), f.message))
                            .collect();
                        failures.push(format!(
                            "{path}:{}: {name}: codes {got:?}, want {want_set:?}\n    {}",
                            game.line,
                            detail.join("\n    ")
                        ));
                    }
                    continue;
                }
                "termination" => report.termination.as_str().to_string(),
                "result_by_rule" => report
                    .result_by_rule
                    .map_or("none", |r| r.as_str())
                    .to_string(),
                "threefold_ply" => report
                    .threefold_ply
                    .map_or("none".into(), |p| p.to_string()),
                "fifty_ply" => report.fifty_ply.map_or("none".into(), |p| p.to_string()),
                "termination_ply" => report
                    .termination_ply
                    .map_or("none".into(), |p| p.to_string()),
                "perpetual" => report.perpetual_check.to_string(),
                "legal" => report.legal.to_string(),
                "plies" => report.plies.to_string(),
                "final_fen" => report.final_fen().unwrap_or_default(),
                other => panic!("{path}:{}: unknown expectation {other}", game.line),
            };
            if got != want {
                failures.push(format!(
                    "{path}:{}: {name}: {key} = {got}, want {want}",
                    game.line
                ));
            }
        }
    }
    assert!(games >= 20, "only {games} cases read");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
