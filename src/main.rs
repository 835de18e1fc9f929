use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

// Whether standard output is closed (`>&-`) must be seen before the Rust runtime starts: it
// then opens `/dev/null` in its place, where every write would vanish unreported.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static SEE_CLOSED_STDOUT: extern "C" fn() = {
    extern "C" fn see() {
        pgnkit::report::staged::note_closed_stdout();
    }
    see
};

fn main() -> ExitCode {
    let cli = pgnkit::cli::Cli::parse();
    match pgnkit::cli::run(cli) {
        Ok(outcome) => ExitCode::from(outcome as u8),
        Err(e) => {
            // A closed pipe (`pgnkit validate big.pgn | head`) is no failure of pgnkit's: the
            // status says what was found before it.
            let broken_pipe = pgnkit::outcome::is_broken_pipe(&e);
            if broken_pipe {
                return ExitCode::from(pgnkit::outcome::found_so_far() as u8);
            }
            // Standard error may be what failed: nothing more can be said then.
            let mut err = std::io::stderr();
            let _ = writeln!(err, "pgnkit: {e:#}");
            if let Some(note) = pgnkit::report::staged::not_written() {
                let _ = writeln!(err, "pgnkit: {note}");
            }
            ExitCode::from(pgnkit::outcome::Outcome::Failed as u8)
        }
    }
}
