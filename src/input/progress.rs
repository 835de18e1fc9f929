//! The progress bar on stderr for long runs (indicatif): bytes read, games a second, errors so
//! far, and an estimate of the time left when the input size is known. Hidden when stderr is
//! not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress display; does nothing when hidden.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Bytes of inputs already finished.
    done_bytes: u64,
    games: u64,
    errors: u64,
}

impl Progress {
    /// A bar over `total` bytes (or of unknown length), shown only when `visible` and stderr
    /// is a terminal.
    pub fn new(total: Option<u64>, visible: bool) -> Progress {
        let bar = (visible && std::io::stderr().is_terminal()).then(|| {
            let bar = match total {
                Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()),
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            };
            let template = if total.is_some() {
                "{bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} ETA {eta}"
            } else {
                "{spinner} {bytes} {binary_bytes_per_sec} {msg}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            done_bytes: 0,
            games: 0,
            errors: 0,
        }
    }

    /// One more game, ending at `offset` bytes into the current input.
    pub fn game(&mut self, offset: u64, errors: u64) {
        self.games += 1;
        self.errors += errors;
        if let Some(bar) = &self.bar {
            if self.games.is_multiple_of(256) {
                bar.set_position(self.done_bytes + offset);
                let per_sec = self.games as f64 / bar.elapsed().as_secs_f64().max(1e-3);
                bar.set_message(format!(
                    "{} games ({per_sec:.0}/s), {} errors",
                    self.games, self.errors
                ));
            }
        }
    }

    /// The current input is finished after `bytes` bytes.
    pub fn input_done(&mut self, bytes: u64) {
        self.done_bytes += bytes;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done_bytes);
        }
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
