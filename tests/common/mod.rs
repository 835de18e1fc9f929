//! Running the `pgnkit` binary as a user does, for the command tests.

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};

/// Starts `pgnkit ARGS` in the package folder, its standard input, output and error piped,
/// for a test that talks to it while it runs (closes its output, interrupts it).
pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pgnkit runs")
}

/// Runs `pgnkit ARGS` in the package folder, feeding `stdin` when given.
pub fn pgnkit(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = spawn(args);
    let mut input = child.stdin.take().expect("stdin is piped");
    let data = stdin.map(<[u8]>::to_vec);
    // Write from another thread: a large input would otherwise fill the pipe while pgnkit
    // waits for us to read its output.
    let writer = std::thread::spawn(move || {
        if let Some(d) = data {
            let _ = input.write_all(&d);
        }
    });
    let out = child.wait_with_output().expect("pgnkit finishes");
    writer.join().expect("the stdin writer finishes");
    out
}

/// Runs `pgnkit ARGS` as [`pgnkit`] does; it must exit with status 0 (the failure shows the
/// command and what it printed on standard error).
#[allow(dead_code)] // not every test file runs only commands that succeed
pub fn pgnkit_ok(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let o = pgnkit(args, stdin);
    assert_eq!(
        o.status.code(),
        Some(0),
        "pgnkit {}: {}",
        args.join(" "),
        stderr(&o)
    );
    o
}

#[allow(dead_code)] // not every test file looks at stdout
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[allow(dead_code)] // not every test file looks at stderr
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh, empty directory `name` (a relative path) under the target directory, for one test.
#[allow(dead_code)] // not every test file writes files
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Each line of JSON Lines output as a value; a line that is not JSON fails the test.
#[allow(dead_code)] // not every test file reads JSON Lines
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The games of a PGN text, each its tag section and movetext as written (line endings made
/// `\n`, blank lines at its ends trimmed): what to compare the games a command writes with.
#[allow(dead_code)] // not every test file reads games back
pub fn pgn_games(text: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n");
    let mut out: Vec<String> = Vec::new();
    for para in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        match out.last_mut() {
            Some(last) if !para.starts_with('[') => {
                last.push_str("\n\n");
                last.push_str(para);
            }
            _ => out.push(para.to_owned()),
        }
    }
    out
}
