//! The progress bar on stderr for long runs (indicatif): bytes read, games a second, errors so
//! far, and an estimate of the time left when the input size is known. Hidden when stderr is
//! not a terminal or with `--quiet`. Every command shows the same bar (the input loop in
//! [`crate::input`] drives it).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Games between two updates of the bar: an update formats a message, too much for every game.
const EVERY: u64 = 256;

/// A progress display; does nothing when hidden.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Bytes read from the inputs as they lie on disk (compressed or not), shared with the
    /// readers that count them.
    read: Arc<AtomicU64>,
    games: u64,
    errors: u64,
}

impl Progress {
    /// A bar over `total` bytes of input (or of unknown length), counted in `read`, shown only
    /// when `visible` and stderr is a terminal.
    pub fn new(total: Option<u64>, read: Arc<AtomicU64>, visible: bool) -> Progress {
        let bar = (visible && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
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
            read,
            games: 0,
            errors: 0,
        }
    }

    /// One more game, with `errors` errors.
    pub fn game(&mut self, errors: u64) {
        self.games += 1;
        self.errors += errors;
        if self.games.is_multiple_of(EVERY) {
            self.update();
        }
    }

    /// An input is finished.
    pub fn input_done(&mut self) {
        self.update();
    }

    fn update(&self) {
        if let Some(bar) = &self.bar {
            bar.set_position(self.read.load(Ordering::Relaxed));
            let per_sec = self.games as f64 / bar.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!(
                "{} games ({per_sec:.0}/s), {} errors",
                self.games, self.errors
            ));
        }
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
