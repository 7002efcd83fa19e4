//! Files the local stack keeps across restarts (the stream's checkpoint, the token issuer's key
//! and keys set, the webhook's secret), written so that a kill at any moment leaves either the
//! old file or the new one whole: never a truncated one that stops the next start.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Where `path`'s next version is written before it takes `path`'s place.
fn staging(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".next");
    path.with_file_name(name)
}

/// `bytes` as `path`'s whole content, atomically: written beside it, flushed to disk, then
/// renamed over it. Readable by its owner only when `private`. A staging file a kill left
/// behind is written over.
pub fn replace(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    let next = staging(path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options.open(&next)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&next, path)?;
    // The rename itself survives a power loss only once the folder is synced.
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_killed_half_way_leaves_the_last_whole_version() {
        let dir = std::env::temp_dir().join(format!("files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("checkpoint.json");
        replace(&path, br#"{"shard-1":"41"}"#, false).expect("first");
        // A kill between opening the next version and finishing it: what it left is a staging
        // file, empty or half written, and the checkpoint is still the last whole one.
        std::fs::write(staging(&path), b"").expect("a kill's leftover");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            r#"{"shard-1":"41"}"#
        );
        replace(&path, br#"{"shard-1":"42"}"#, false).expect("over the leftover");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            r#"{"shard-1":"42"}"#
        );
        assert!(!staging(&path).exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let key = dir.join("key.der");
            replace(&key, b"secret", true).expect("private");
            let mode = std::fs::metadata(&key).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}
