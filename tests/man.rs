//! `pgnkit man [COMMAND]` run as a user runs it: roff pages for pgnkit and each command.

mod common;

use common::{pgnkit, stderr, stdout};

/// Runs `pgnkit man ARGS` and insists on exit status 0.
fn man(args: &[&str]) -> String {
    let mut all = vec!["man"];
    all.extend_from_slice(args);
    let o = pgnkit(&all, None);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The `.TH` line of a page: its title and section.
fn title_line(page: &str) -> &str {
    page.lines()
        .find(|l| l.starts_with(".TH "))
        .unwrap_or_else(|| panic!("no .TH line:\n{page}"))
}

#[test]
fn pgnkit_page_lists_every_command_page() {
    let page = man(&[]);
    assert!(
        title_line(&page).starts_with(".TH pgnkit 1 "),
        "{}",
        title_line(&page)
    );
    assert!(page.contains(".SH SYNOPSIS"));
    for command in ["validate", "convert", "stats", "completions", "man"] {
        assert!(
            page.contains(&format!("pgnkit\\-{command}(1)")),
            "no pgnkit-{command}(1) in the page"
        );
    }
}

#[test]
fn a_command_page_has_its_options() {
    let page = man(&["validate"]);
    assert!(title_line(&page).starts_with(".TH pgnkit-validate 1 "));
    assert!(page.contains("\\-\\-game\\-records"), "{page}");
    let page = man(&["convert"]);
    assert!(page.contains("\\-\\-traditional"), "{page}");
}

#[test]
fn a_subcommand_page_names_pgnkits_version() {
    let page = man(&["stats", "merge"]);
    let title = title_line(&page);
    assert!(title.starts_with(".TH pgnkit-stats-merge 1 "), "{title}");
    assert!(title.contains(env!("CARGO_PKG_VERSION")), "{title}");
}

#[test]
fn unknown_command_is_refused_with_the_list() {
    let o = pgnkit(&["man", "check"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("no subcommand `check`") && err.contains("validate"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}
