//! Output files that replace the old ones all together or not at all, for `pgnkit stats` and
//! `pgnkit convert -o`: each is written to a temporary file beside it, and only when every one is complete are
//! they renamed into place.
//!
//! A run that fails (a full disk, an unreadable input that ends it), is killed or is
//! interrupted leaves the reports of the run before untouched, instead of a `games.csv` cut
//! mid-row beside the older tables. A temporary file that is not committed is removed when
//! its [`StagedFiles`] is dropped; a kill leaves it behind, hidden (`.NAME.pgnkit-PID.tmp`).

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// The files of one run, staged until [`StagedFiles::commit`].
#[derive(Debug, Default)]
pub struct StagedFiles {
    staged: Vec<Staged>,
}

#[derive(Debug)]
struct Staged {
    temp: PathBuf,
    target: PathBuf,
    /// The file, kept to flush it to disk before it is renamed.
    file: File,
}

impl StagedFiles {
    /// No files yet.
    pub fn new() -> StagedFiles {
        StagedFiles::default()
    }

    /// Opens `path` for writing. A regular file (or a new one) is staged: written to a
    /// temporary file in its directory with the old file's permissions, and renamed over it
    /// by [`commit`](Self::commit); through a symbolic link, the link's target is replaced,
    /// so the link stays. Anything else (`/dev/null`, a named pipe, a terminal) is opened and
    /// written directly: renaming over it would replace the device or pipe with a file.
    ///
    /// # Errors
    ///
    /// When `path` is a directory, or the file cannot be created or opened.
    pub fn create(&mut self, path: &Path) -> io::Result<File> {
        let target = match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(is_a_directory(path)),
            Ok(meta) if !meta.is_file() => {
                return File::options()
                    .write(true)
                    .open(path)
                    .map_err(|e| with_path(e, "cannot open", path));
            }
            Ok(_) => fs::canonicalize(path).map_err(|e| with_path(e, "cannot resolve", path))?,
            // A dangling symbolic link: writing through it creates its target.
            Err(_) if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => {
                return File::create(path).map_err(|e| with_path(e, "cannot create", path));
            }
            Err(_) => path.to_path_buf(),
        };
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a file name", path.display()),
            )
        })?;
        let temp = dir.join(format!(
            ".{}.pgnkit-{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        // A file left by a killed run of the same process id is stale: replace it.
        let _ = fs::remove_file(&temp);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| with_path(e, "cannot create", &temp))?;
        if let Ok(meta) = fs::metadata(&target) {
            // Best effort: a file system without permissions keeps the new file's.
            let _ = file.set_permissions(meta.permissions());
        }
        self.staged.push(Staged {
            temp,
            target,
            file: file.try_clone()?,
        });
        Ok(file)
    }

    /// Puts every staged file in place: flushed to disk, each checked to still have a place
    /// it can take (not a directory), then renamed over its target. Call it only once every
    /// file was written and flushed by its writer.
    ///
    /// # Errors
    ///
    /// When a file cannot be flushed to disk (a full disk shows here at the latest) or a
    /// target became a directory: then no file is replaced. When a rename fails, the files
    /// before it are in place and the rest are removed.
    pub fn commit(mut self) -> io::Result<()> {
        for staged in &self.staged {
            staged
                .file
                .sync_all()
                .map_err(|e| with_path(e, "cannot write", &staged.target))?;
            if fs::metadata(&staged.target).is_ok_and(|m| m.is_dir()) {
                return Err(is_a_directory(&staged.target));
            }
        }
        while !self.staged.is_empty() {
            let staged = self.staged.remove(0);
            if let Err(e) = fs::rename(&staged.temp, &staged.target) {
                let _ = fs::remove_file(&staged.temp);
                return Err(with_path(e, "cannot replace", &staged.target));
            }
        }
        Ok(())
    }
}

impl Drop for StagedFiles {
    fn drop(&mut self) {
        for staged in &self.staged {
            let _ = fs::remove_file(&staged.temp);
        }
    }
}

fn with_path(e: io::Error, what: &str, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

fn is_a_directory(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is a directory", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-staged-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(files: &mut StagedFiles, path: &Path, text: &str) {
        use std::io::Write;
        let mut f = files.create(path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn nothing_is_replaced_until_the_commit_and_then_everything_is() {
        let dir = scratch("commit");
        let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
        fs::write(&a, "old a").unwrap();
        let mut files = StagedFiles::new();
        write(&mut files, &a, "new a");
        write(&mut files, &b, "new b");
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert!(!b.exists());
        files.commit().unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(fs::read_to_string(&b).unwrap(), "new b");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            2,
            "no temporary file left"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_dropped_without_a_commit_leave_the_old_ones() {
        let dir = scratch("drop");
        let a = dir.join("a.csv");
        fs::write(&a, "old a").unwrap();
        let mut files = StagedFiles::new();
        write(&mut files, &a, "new a");
        write(&mut files, &dir.join("b.csv"), "new b");
        drop(files);
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_target_that_became_a_directory_stops_every_rename() {
        let dir = scratch("directory");
        let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
        fs::write(&a, "old a").unwrap();
        let mut files = StagedFiles::new();
        write(&mut files, &a, "new a");
        write(&mut files, &b, "new b");
        fs::create_dir(&b).unwrap();
        let e = files.commit().unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2, "a.csv and b/");
        fs::remove_dir_all(&dir).unwrap();
    }
}
