//! Ctrl-C and the termination signals (SIGINT, SIGTERM, SIGHUP), one way for every command:
//! the run stops reading at its next game, puts no output in place, removes its temporary
//! files and folders, and ends with one message saying what was and was not written, and
//! exit status 130.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::input::pipeline::INTERRUPTED;
use crate::report::staged;

/// The exit status of a run ended by a signal (128 + SIGINT's number, as shells report it).
pub const EXIT_STATUS: u8 = 130;

/// How long an interrupted run has to end by itself before it is ended at once: one blocked
/// (an input that sends nothing) would otherwise never end.
const GRACE: Duration = Duration::from_secs(3);

/// Whoever says the last word (the run that ended, or the grace timer) says it alone.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Whether a signal asked the run to stop.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Catches the signals for the rest of the process. The first asks the run to stop; a
/// second, or the end of [`GRACE`], ends the process at once, its temporary files removed.
pub fn catch_signals() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::Relaxed) {
            end_now();
        }
        std::thread::spawn(|| {
            std::thread::sleep(GRACE);
            end_now();
        });
    });
}

/// Ends the process at once: temporary files removed, the message, exit status 130.
fn end_now() {
    if ENDING.swap(true, Ordering::Relaxed) {
        return;
    }
    staged::remove_temporaries();
    say_interrupted();
    std::process::exit(i32::from(EXIT_STATUS));
}

/// Says, once, for an interrupted run that ended by itself, its error if it had one
/// (`error`), then what was and was not written. Whether the run was interrupted (and the
/// message said): its exit status is then 130.
pub fn end_of_run(error: Option<String>) -> bool {
    if !interrupted() {
        return false;
    }
    if ENDING.swap(true, Ordering::Relaxed) {
        // The grace timer is ending the process: its message is the one.
        loop {
            std::thread::park();
        }
    }
    if let Some(error) = error {
        let _ = writeln!(std::io::stderr(), "pgnkit: {error}");
    }
    say_interrupted();
    true
}

fn say_interrupted() {
    // Standard error may be what failed: nothing more can be said then.
    let _ = writeln!(std::io::stderr(), "pgnkit: {}", staged::interrupted_note());
}
