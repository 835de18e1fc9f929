//! `pgnkit man`: a manual page in roff, on standard output.

use std::io::{self, Write};

use anyhow::bail;
use clap::CommandFactory;

use crate::cli::Cli;
use crate::outcome::Outcome;

/// Print the manual page (roff) of pgnkit or of one of its commands.
///
/// `pgnkit man > pgnkit.1` writes the page of pgnkit itself, `pgnkit man validate >
/// pgnkit-validate.1` the page of one command, `pgnkit man stats merge` that of a command's
/// subcommand. Read one at once with `pgnkit man validate | man -l -`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The command whose page to print (validate, convert, stats, dedup, split, completions,
    /// man; `stats merge`); none for pgnkit's own page.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Runs `pgnkit man`.
///
/// # Errors
///
/// When a named command does not exist, or standard output cannot be written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    // Built, the subcommands know their full names (`pgnkit-validate`), which title the page.
    cmd.build();
    for name in &args.command {
        let Some(sub) = cmd.find_subcommand(name).cloned() else {
            let full = cmd
                .get_display_name()
                .unwrap_or(cmd.get_name())
                .replace('-', " ");
            let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
            if names.is_empty() {
                bail!("`{full}` has no subcommands, so no `{name}` page");
            }
            bail!(
                "`{full}` has no subcommand `{name}`; it has {}",
                names.join(", ")
            );
        };
        cmd = sub;
    }
    // A subcommand has no version of its own: every page names pgnkit's.
    let source = format!("pgnkit {}", env!("CARGO_PKG_VERSION"));
    let mut out = io::BufWriter::new(io::stdout().lock());
    clap_mangen::Man::new(cmd).source(source).render(&mut out)?;
    out.flush()?;
    Ok(Outcome::Clean)
}
