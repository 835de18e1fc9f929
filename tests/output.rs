//! What every command does with its outputs: `-` is standard output, a file is replaced only
//! by a run that succeeds, standard input that is the output file is refused, a closed
//! standard output is a failure, and a signal ends the run with one message, exit status 130
//! and nothing half-written left behind.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{scratch, stderr};

const PGN: &str = env!("CARGO_BIN_EXE_pgnkit");

/// Two games, the second with an illegal move (rejected by convert and validate).
const TWO_GAMES: &str = "[Event \"E0\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
[Event \"E1\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n";

/// Many legal games, for a run long enough to be interrupted or to fill a pipe.
fn many_games(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "[Event \"E{}\"]\n[White \"W{i}\"]\n[Black \"B{i}\"]\n[Result \"1-0\"]\n\n\
                 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n",
                i % 3
            )
        })
        .collect()
}

/// Runs `pgnkit ARGS` in `dir`, standard input read from `stdin` (a file) or empty.
fn run_in(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    let input = match stdin {
        Some(path) => Stdio::from(fs::File::open(path).unwrap()),
        None => Stdio::null(),
    };
    Command::new(PGN)
        .args(args)
        .current_dir(dir)
        .stdin(input)
        .output()
        .expect("pgnkit runs")
}

/// `pgnkit ARGS` started in `dir`, its standard input, output and error as given.
fn start(dir: &Path, args: &[&str], stdin: Stdio, stdout: Stdio) -> std::process::Child {
    Command::new(PGN)
        .args(args)
        .current_dir(dir)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("pgnkit runs")
}

/// Runs `pgnkit ARGS` in `dir` with standard output closed (`>&-`).
#[cfg(target_os = "linux")]
fn with_stdout_closed(dir: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(PGN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `-o -` (and `--report -`) writes to standard output: no file named `-` appears.
#[test]
fn a_dash_output_is_standard_output() {
    let dir = scratch("output-dash");
    fs::write(dir.join("in.pgn"), TWO_GAMES).unwrap();
    let runs: &[&[&str]] = &[
        &["convert", "-q", "in.pgn", "-o", "-"],
        &[
            "select",
            "-q",
            "--where",
            "Event = \"E0\"",
            "in.pgn",
            "-o",
            "-",
        ],
        &["dedup", "-q", "in.pgn", "-o", "-"],
        &["stats", "-q", "--report", "games", "in.pgn", "-o", "-"],
        &["convert", "-q", "in.pgn", "-o", "out.pgn", "--rejects", "-"],
    ];
    for args in runs {
        let o = run_in(&dir, args, None);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&o)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        let wanted = if args.contains(&"games") {
            "E0"
        } else {
            "[Event \"E"
        };
        assert!(out.contains(wanted), "{args:?} wrote nothing out: {out}");
        assert!(!dir.join("-").exists(), "{args:?} wrote a file named -");
    }
    // The rejected game went to standard output, the good one to the file.
    let o = run_in(&dir, runs[4], None);
    assert!(String::from_utf8_lossy(&o.stdout).contains("Ke3"));
    assert!(!fs::read_to_string(dir.join("out.pgn"))
        .unwrap()
        .contains("Ke3"));
}

/// Two outputs on standard output would mix their lines: refused.
#[test]
fn two_outputs_on_standard_output_are_refused() {
    let dir = scratch("output-two-dashes");
    fs::write(dir.join("in.pgn"), TWO_GAMES).unwrap();
    for args in [
        &["convert", "in.pgn", "--rejects", "-"][..],
        &["validate", "in.pgn", "--rejects", "-"],
        &["dedup", "in.pgn", "-o", "-", "--report", "-"],
    ] {
        let o = run_in(&dir, args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("standard output"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// `cmd -o F - < F`: the output is the file standard input reads. Refused, and F keeps its
/// games; convert rewrites it in place by the in-place rule (a rejected game is kept).
#[test]
fn standard_input_that_is_the_output_is_refused() {
    let dir = scratch("output-stdin-is-output");
    let file = dir.join("f.pgn");
    for args in [
        &["select", "--where", "Event = \"E0\"", "-o", "f.pgn", "-"][..],
        &["validate", "--rejects", "f.pgn", "-"],
        &["convert", "--rejects", "f.pgn", "-"],
        &["stats", "--report", "games", "-o", "f.pgn", "-"],
        &["dedup", "-o", "f.pgn", "-"],
    ] {
        fs::write(&file, TWO_GAMES).unwrap();
        let o = run_in(&dir, args, Some(&file));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("is also an input"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), TWO_GAMES, "{args:?}");
    }
    fs::write(&file, TWO_GAMES).unwrap();
    let o = run_in(&dir, &["convert", "-q", "-o", "f.pgn", "-"], Some(&file));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let after = fs::read_to_string(&file).unwrap();
    assert!(after.contains("Qxf7#"), "{after}");
    assert!(
        after.contains("Ke3"),
        "the rejected game was dropped: {after}"
    );
}

/// Standard output closed (`>&-`): nothing can be written, so the run fails (exit 2) and
/// says so, instead of counting games written nowhere.
#[cfg(target_os = "linux")]
#[test]
fn a_closed_standard_output_is_a_failure() {
    let dir = scratch("output-closed");
    fs::write(dir.join("in.pgn"), TWO_GAMES).unwrap();
    for args in [
        &["convert", "in.pgn"][..],
        &["select", "--where", "Event = \"E0\"", "in.pgn"],
        &["stats", "--report", "games", "in.pgn"],
        &["validate", "in.pgn"],
    ] {
        let o = with_stdout_closed(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("standard output is closed"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // With -o, standard output is not needed.
    let o = with_stdout_closed(&dir, &["convert", "-q", "in.pgn", "-o", "out.pgn"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// A report cut short by its reader (`| head -2`) ends quietly, with the status of what was
/// found, as every command's output does.
#[test]
fn a_report_to_a_closed_pipe_ends_quietly() {
    let dir = scratch("output-pipe");
    fs::write(dir.join("in.pgn"), many_games(3000)).unwrap();
    let args = ["stats", "-q", "--report", "games", "in.pgn"];
    let mut child = start(&dir, &args, Stdio::null(), Stdio::piped());
    let mut out = child.stdout.take().unwrap();
    let mut head = [0u8; 200];
    std::io::Read::read_exact(&mut out, &mut head).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// A run that fails (its second input is missing) replaces none of the earlier outputs, and
/// says so.
#[test]
fn a_failed_run_keeps_the_earlier_outputs() {
    let dir = scratch("output-failed");
    fs::write(dir.join("in.pgn"), TWO_GAMES).unwrap();
    fs::create_dir(dir.join("split")).unwrap();
    let old = |name: &str| {
        let path = dir.join(name);
        fs::write(&path, "old\n").unwrap();
        path
    };
    let cases: Vec<(Vec<&str>, Vec<PathBuf>)> = vec![
        (
            vec!["select", "--where", "Event = \"E0\"", "-o", "sel.pgn"],
            vec![old("sel.pgn")],
        ),
        (
            vec!["dedup", "-o", "dd.pgn", "--report", "dd.csv"],
            vec![old("dd.pgn"), old("dd.csv")],
        ),
        (
            vec!["validate", "--rejects", "rej.pgn"],
            vec![old("rej.pgn")],
        ),
        (
            vec!["split", "--by", "event", "-o", "split"],
            vec![old("split/event-E0.pgn")],
        ),
    ];
    for (mut args, kept) in cases {
        args.extend(["in.pgn", "missing.pgn"]);
        let o = run_in(&dir, &args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("not written"),
            "{args:?}: {}",
            stderr(&o)
        );
        for path in kept {
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                "old\n",
                "{args:?} replaced {}",
                path.display()
            );
        }
    }
    assert_eq!(names(&dir.join("split")), ["event-E0.pgn"]);
    assert!(
        names(&dir).iter().all(|n| !n.ends_with(".tmp")),
        "{:?}",
        names(&dir)
    );
}

/// Sends `signal` to a command reading a slow standard input once it has begun, then checks
/// the end: exit status 130, one message, the earlier outputs kept and no temporary file
/// left in `dir`.
#[cfg(unix)]
fn interrupt(dir: &Path, args: &[&str], signal: &str, kept: &[&Path]) {
    let games = many_games(400);
    let mut child = start(dir, args, Stdio::piped(), Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(games.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Its signal handler is set before any output is opened; the input stays open.
    std::thread::sleep(std::time::Duration::from_millis(700));
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    std::thread::sleep(std::time::Duration::from_millis(200));
    let _ = stdin.write_all(games.as_bytes());
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{args:?} {signal}: {err}");
    assert_eq!(err.matches("interrupted").count(), 1, "{args:?}: {err}");
    assert!(err.contains("pgnkit: interrupted: "), "{args:?}: {err}");
    for path in kept {
        assert_eq!(
            fs::read_to_string(path).unwrap(),
            "old\n",
            "{args:?} replaced {}",
            path.display()
        );
    }
    let left: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{args:?} {signal} left {left:?}");
}

/// Ctrl-C (SIGINT) and SIGTERM end every command alike.
#[cfg(unix)]
#[test]
fn a_signal_ends_every_command_with_one_message_and_nothing_replaced() {
    for signal in ["-INT", "-TERM"] {
        let dir = scratch(&format!("output-signal{signal}"));
        let old = |name: &str| {
            let path = dir.join(name);
            fs::write(&path, "old\n").unwrap();
            path
        };
        let (conv, sel, dd, rej, games) = (
            old("conv.pgn"),
            old("sel.pgn"),
            old("dd.pgn"),
            old("rej.pgn"),
            old("games.csv"),
        );
        interrupt(&dir, &["convert", "-", "-o", "conv.pgn"], signal, &[&conv]);
        interrupt(
            &dir,
            &["select", "--where", "Event = \"E0\"", "-", "-o", "sel.pgn"],
            signal,
            &[&sel],
        );
        interrupt(&dir, &["dedup", "-", "-o", "dd.pgn"], signal, &[&dd]);
        interrupt(
            &dir,
            &["validate", "-", "--rejects", "rej.pgn"],
            signal,
            &[&rej],
        );
        interrupt(
            &dir,
            &["stats", "-", "--report", "games", "-o", "games.csv"],
            signal,
            &[&games],
        );
        let split = dir.join("split");
        fs::create_dir(&split).unwrap();
        fs::write(split.join("event-E0.pgn"), "old\n").unwrap();
        interrupt(
            &split,
            &["split", "--by", "event", "-", "-o", "."],
            signal,
            &[&split.join("event-E0.pgn")],
        );
        assert_eq!(names(&split), ["event-E0.pgn"]);
    }
}

/// Split into a folder it makes, interrupted: the folder does not stay behind, empty.
#[cfg(unix)]
#[test]
fn an_interrupted_split_leaves_no_empty_folder() {
    let dir = scratch("output-split-folder");
    interrupt(
        &dir,
        &["split", "--by", "event", "-", "-o", "new"],
        "-INT",
        &[],
    );
    assert!(!dir.join("new").exists());
}

/// What a run killed outright (`kill -9`) leaves behind is removed by the next run that
/// writes into the same folder, once its process is gone; a live process's is kept.
#[cfg(target_os = "linux")]
#[test]
fn temporary_files_of_dead_processes_are_removed() {
    let dir = scratch("output-stale");
    fs::write(dir.join("in.pgn"), TWO_GAMES).unwrap();
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let live = std::process::id();
    let stale = [
        format!(".pgnkit-dedup-{dead}.tmp"),
        format!(".dd.pgn.pgnkit-{dead}.tmp"),
    ];
    fs::create_dir(dir.join(&stale[0])).unwrap();
    fs::write(dir.join(&stale[0]).join("games"), "x").unwrap();
    fs::write(dir.join(&stale[1]), "x").unwrap();
    let alive = format!(".pgnkit-dedup-{live}.tmp");
    fs::create_dir(dir.join(&alive)).unwrap();
    let o = run_in(&dir, &["dedup", "-q", "in.pgn", "-o", "dd.pgn"], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(names(&dir), [alive.as_str(), "dd.pgn", "in.pgn"]);
}

/// A full disk (a 64 KiB tmpfs in a mount namespace of its own) stops every command that
/// writes files with exit status 2, naming the output, and keeps what the files held before:
/// no partial file in its place, no temporary file left. Skipped, saying so, where no mount
/// namespace can be made (no `unshare`, or user namespaces turned off).
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_keeps_the_earlier_outputs() {
    let dir = scratch("output-full-disk");
    // About 330 KB of games: every output below outgrows 64 KiB.
    fs::write(dir.join("in.pgn"), many_games(3000)).unwrap();
    fs::create_dir(dir.join("full")).unwrap();
    let mountable = Command::new("unshare")
        .args(["-rm", "sh", "-c", "mount -t tmpfs -o size=64k none full"])
        .current_dir(&dir)
        .status()
        .is_ok_and(|s| s.success());
    if !mountable {
        eprintln!("skipped: no mount namespace here for a small tmpfs");
        return;
    }
    let cases: [(&str, &str); 5] = [
        (
            "select --where 'Result = \"1-0\"' -o full/out.pgn in.pgn",
            "full/out.pgn",
        ),
        ("convert --to uci -o full/out.pgn in.pgn", "full/out.pgn"),
        ("dedup --keep first -o full/out.pgn in.pgn", "full/out.pgn"),
        (
            "split --by event -o full/parts in.pgn",
            "full/parts/event-E0.pgn",
        ),
        ("stats --out full/parts in.pgn", "full/parts/games.csv"),
    ];
    for (args, kept) in cases {
        // Inside the namespace: mount, lay the old output down, run, then show the outcome,
        // for the mount is gone when the shell ends.
        let script = format!(
            "mount -t tmpfs -o size=64k none full && mkdir -p full/parts && echo old > {kept} \
             && {{ \"$0\" {args} 2>err; echo \"status $?\"; cat err; echo \"kept $(cat {kept})\"; \
             ls -a full full/parts; }}"
        );
        let o = Command::new("unshare")
            .args(["-rm", "sh", "-c", &script, PGN])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("status 2\n"), "{args}: {out}{}", stderr(&o));
        assert!(out.contains("No space left on device"), "{args}: {out}");
        assert!(out.contains("kept old\n"), "{args}: {out}");
        assert!(
            out.contains("is kept"),
            "{args} did not say the old output was kept: {out}"
        );
        assert!(!out.contains(".tmp"), "{args} left a temporary file: {out}");
    }
}

/// An output in a folder that does not exist: the message names the folder, not a
/// temporary file.
#[test]
fn a_missing_output_folder_is_named() {
    let dir = scratch("output-missing-folder");
    fs::write(dir.join("in.pgn"), TWO_GAMES).unwrap();
    let o = run_in(&dir, &["convert", "in.pgn", "-o", "nowhere/out.pgn"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("there is no folder nowhere"), "{err}");
    assert!(!err.contains(".tmp"), "{err}");
}

/// A signal while the run waits for an input that sends nothing more: it still ends, soon,
/// with status 130 and its temporary file removed.
#[cfg(unix)]
#[test]
fn a_run_waiting_for_its_input_ends_on_a_signal() {
    let dir = scratch("output-blocked");
    let mut child = start(
        &dir,
        &["convert", "-", "-o", "out.pgn"],
        Stdio::piped(),
        Stdio::null(),
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(many_games(50).as_bytes()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed().as_secs() > 20 {
            let _ = child.kill();
            panic!("still running 20 s after SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    drop(stdin);
    assert_eq!(status.code(), Some(130));
    assert!(names(&dir).is_empty(), "{:?}", names(&dir));
}
