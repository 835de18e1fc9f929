use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = pgnkit::cli::Cli::parse();
    match pgnkit::cli::run(cli) {
        Ok(outcome) => ExitCode::from(outcome as u8),
        Err(e) => {
            // A closed pipe (`pgnkit validate big.pgn | head`) is no failure of pgnkit's: the
            // status says what was found before it.
            let broken_pipe = e.chain().any(|cause| {
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                    || cause
                        .downcast_ref::<pgnkit::input::WriteError>()
                        .is_some_and(pgnkit::input::WriteError::is_broken_pipe)
            });
            if broken_pipe {
                return ExitCode::from(pgnkit::cmd::found_so_far() as u8);
            }
            // Standard error may be what failed: nothing more can be said then.
            let _ = writeln!(std::io::stderr(), "pgnkit: {e:#}");
            ExitCode::from(pgnkit::cli::Outcome::Failed as u8)
        }
    }
}
