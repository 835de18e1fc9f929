use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = pgnkit::cli::Cli::parse();
    match pgnkit::cli::run(cli) {
        Ok(outcome) => ExitCode::from(outcome as u8),
        Err(e) => {
            // A closed pipe (`pgnkit validate big.pgn | head`) is not a failure.
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("pgnkit: {e:#}");
            ExitCode::from(pgnkit::cli::Outcome::Failed as u8)
        }
    }
}
