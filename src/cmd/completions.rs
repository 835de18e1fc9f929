//! `pgnkit completions`: the shell completion script for pgnkit, on standard output.

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::outcome::Outcome;

/// Print a shell completion script (bash, zsh, fish, elvish, powershell).
///
/// Save it where the shell looks for completions, for example
/// `pgnkit completions bash > ~/.local/share/bash-completion/completions/pgnkit`; the README
/// lists the place for each shell.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Runs `pgnkit completions`.
///
/// # Errors
///
/// When standard output cannot be written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut cmd = Cli::command();
    let mut out = io::BufWriter::new(io::stdout().lock());
    clap_complete::generate(args.shell, &mut cmd, "pgnkit", &mut out);
    out.flush()?;
    Ok(Outcome::Clean)
}
