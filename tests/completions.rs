//! `pgnkit completions SHELL` run as a user runs it: a script for each shell that knows every
//! command and option.

mod common;

use common::{pgnkit, stderr, stdout};

/// Commands a script must offer, `stats merge` included.
const COMMANDS: &[&str] = &[
    "validate",
    "convert",
    "stats",
    "merge",
    "completions",
    "man",
];

/// Long options a script must offer, one of each command.
const OPTIONS: &[&str] = &[
    "game-records",
    "traditional",
    "opening-plies",
    "initial-elo",
];

/// Whether `script` offers the long option `name` (fish spells it `-l name`).
fn offers(script: &str, name: &str) -> bool {
    script.contains(&format!("--{name}")) || script.contains(&format!("-l {name}"))
}

#[test]
fn every_shell_gets_a_script_with_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = pgnkit(&["completions", shell], None);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        for command in COMMANDS {
            assert!(
                script.contains(command),
                "{shell}: the script lacks {command}"
            );
        }
        for option in OPTIONS {
            assert!(
                offers(&script, option),
                "{shell}: the script lacks --{option}"
            );
        }
    }
}

#[test]
fn bash_script_defines_the_completion() {
    let o = pgnkit(&["completions", "bash"], None);
    let script = stdout(&o);
    assert!(
        script.contains("complete -F _pgnkit") || script.contains("-F _pgnkit"),
        "no `complete` line:\n{script}"
    );
    // Where bash is installed, the script must also parse.
    if let Ok(check) = std::process::Command::new("bash")
        .args(["-n", "-c", &script])
        .output()
    {
        assert!(
            check.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

#[test]
fn unknown_shell_is_refused_with_the_list() {
    let o = pgnkit(&["completions", "tcsh"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bash"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}
