//! The files of a `pgnkit split` run while they are written: in a hidden folder inside the
//! output folder, put in place all together once every input was read.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::input::Inputs;
use crate::outcome::WriteError;
use crate::report::staged::{StagedFiles, TempDir};

/// Files open at once, at most: a tag with a million values must not run out of file
/// descriptors. The least recently written is closed first, and opened again to append.
const OPEN_FILES: usize = 64;

/// The files being written, in a hidden folder inside the output folder (so renaming them into
/// place never crosses file systems). Removed, with what is in it, when dropped; so is the
/// output folder when this run made it and put nothing in it.
pub(super) struct Staging {
    /// `None` once dropped.
    dir: Option<TempDir>,
    open: HashMap<String, (BufWriter<File>, u64)>,
    /// Every file created, in the order of their first game.
    created: Vec<String>,
    seen: HashSet<String>,
    tick: u64,
    /// The output folder, when this run created it.
    made: Option<PathBuf>,
}

impl Staging {
    pub(super) fn new(output: &Path) -> anyhow::Result<Staging> {
        if output.exists() && !output.is_dir() {
            bail!(
                "--output {} is not a folder: split writes one file a group into a folder; \
                 give a folder's name",
                output.display()
            );
        }
        let made = (!output.exists()).then(|| output.to_path_buf());
        fs::create_dir_all(output)
            .with_context(|| format!("cannot create {}", output.display()))?;
        let dir = TempDir::create(output, "split", Some(output))
            .with_context(|| format!("cannot create a temporary folder in {}", output.display()))?;
        Ok(Staging {
            dir: Some(dir),
            open: HashMap::new(),
            created: Vec::new(),
            seen: HashSet::new(),
            tick: 0,
            made,
        })
    }

    fn dir(&self) -> io::Result<&Path> {
        self.dir
            .as_ref()
            .map(TempDir::path)
            .ok_or_else(|| io::Error::other("the temporary folder is gone"))
    }

    pub(super) fn write(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        self.tick += 1;
        if !self.open.contains_key(name) {
            if self.open.len() >= OPEN_FILES {
                // A scan of a few dozen entries, once a file is reopened: no more than the
                // write that follows.
                let oldest = self
                    .open
                    .iter()
                    .min_by_key(|(_, (_, used))| *used)
                    .map(|(n, _)| n.clone());
                if let Some(oldest) = oldest {
                    if let Some((mut w, _)) = self.open.remove(&oldest) {
                        w.flush()?;
                    }
                }
            }
            let path = self.dir()?.join(name);
            let file = File::options().create(true).append(true).open(&path)?;
            if self.seen.insert(name.to_owned()) {
                self.created.push(name.to_owned());
            }
            self.open.insert(
                name.to_owned(),
                (BufWriter::with_capacity(1 << 15, file), 0),
            );
        }
        let Some((w, used)) = self.open.get_mut(name) else {
            return Ok(());
        };
        *used = self.tick;
        w.write_all(bytes)?;
        w.write_all(b"\n\n")
    }

    /// Flushes every file and puts them all in `output` at once, as every command puts its
    /// outputs in place ([`crate::report::staged::commit_after`]): none if one cannot take its place. The number of
    /// files, `None` when they were not put in place.
    pub(super) fn commit(
        mut self,
        output: &Path,
        inputs: &Inputs,
    ) -> anyhow::Result<Option<usize>> {
        let folder = output.display().to_string();
        for (_, (mut w, _)) in self.open.drain() {
            w.flush()
                .and_then(|()| w.get_ref().sync_all())
                .map_err(|e| WriteError::new(folder.as_str(), e))?;
        }
        let mut staged = StagedFiles::new();
        let dir = self.dir()?.to_path_buf();
        for name in &self.created {
            staged.adopt(dir.join(name), output.join(name));
        }
        if !crate::report::staged::commit_after(staged, inputs)? {
            return Ok(None);
        }
        self.made = None;
        if let Some(dir) = &self.dir {
            dir.written();
        }
        Ok(Some(self.created.len()))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        self.open.clear();
        drop(self.dir.take());
        if let Some(made) = &self.made {
            // Only when empty: nothing of anyone else's is removed.
            let _ = fs::remove_dir(made);
        }
    }
}
