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

/// The rows of a tab-separated table of expected values (header first), without its `#`
/// comments and blank lines.
#[allow(dead_code)] // not every test file reads expected tables
pub fn tsv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// A CSV report as a command printed it: its header and its records.
#[allow(dead_code)] // not every test file reads CSV reports
pub struct Report {
    pub header: Vec<String>,
    pub records: Vec<csv::StringRecord>,
}

#[allow(dead_code)]
impl Report {
    pub fn parse(csv_text: &[u8]) -> Report {
        let mut reader = csv::Reader::from_reader(csv_text);
        let header = reader
            .headers()
            .unwrap()
            .iter()
            .map(str::to_owned)
            .collect();
        let records = reader.records().map(Result::unwrap).collect();
        Report { header, records }
    }

    /// Where each column of `names` stands; a column the report lacks fails the test.
    pub fn columns(&self, names: &[String]) -> Vec<usize> {
        names
            .iter()
            .map(|h| {
                self.header
                    .iter()
                    .position(|c| c == h)
                    .unwrap_or_else(|| panic!("no column {h} in {:?}", self.header))
            })
            .collect()
    }

    /// The records of `standings.csv` whose kind column is `kind` (`players`, `teams`).
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a csv::StringRecord> {
        self.records.iter().filter(move |r| &r[3] == kind)
    }
}

/// The cells of `record` at `at`, an empty cell written `-` as the expected tables write it.
#[allow(dead_code)] // not every test file reads CSV reports
pub fn cells(record: &csv::StringRecord, at: &[usize]) -> Vec<String> {
    at.iter()
        .map(|&i| match &record[i] {
            "" => "-".to_owned(),
            c => c.to_owned(),
        })
        .collect()
}

/// The JSON lines `pgnkit ARGS` prints, which must exit 0 or 1 (clean, or problems found),
/// each without the keys `drop` (the places and numbers that count from where a task starts).
#[allow(dead_code)] // not every test file compares JSON records
pub fn json_records(args: &[&str], drop: &[&str]) -> Vec<serde_json::Value> {
    let o = pgnkit(args, None);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        stderr(&o)
    );
    let mut records = json_lines(&stdout(&o));
    for v in &mut records {
        let o = v.as_object_mut().expect("an object");
        for key in drop {
            o.remove(*key);
        }
    }
    records
}

/// `validate` on one thread printing a JSON record a game and a problem (`--game-records`)
/// for `file`, with the option `part` (`("--range", "0:100")`) when given: [`json_records`].
#[allow(dead_code)] // not every test file validates parts of a file
pub fn validate_records(
    part: Option<(&str, &str)>,
    file: &str,
    drop: &[&str],
) -> Vec<serde_json::Value> {
    let mut args = vec![
        "validate",
        "-q",
        "-j",
        "1",
        "--format",
        "json",
        "--game-records",
    ];
    if let Some((option, value)) = part {
        args.extend([option, value]);
    }
    args.push(file);
    json_records(&args, drop)
}

/// `stats PGN --report standings --tiebreaks BH --team-tiebreaks LIST`, which must exit 0:
/// its `standings.csv`.
#[allow(dead_code)] // not every test file ranks teams
pub fn team_standings(pgn: &str, list: &[&str]) -> Report {
    let list = list.join(",");
    let o = pgnkit_ok(
        &[
            "stats",
            pgn,
            "--report",
            "standings",
            "--tiebreaks",
            "BH",
            "--team-tiebreaks",
            &list,
        ],
        None,
    );
    Report::parse(&o.stdout)
}
