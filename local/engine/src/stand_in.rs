//! What make dev's stand-ins for other services share (localstripe for the payment provider,
//! moto for EventBridge, SQS and SES): a port from the environment (or `off`), the process run
//! from the repo's virtualenv and ended with its owner, and the wait until it listens.

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use crate::Error;

/// The variable `name`: a port, `None` for `off`, `default` when unset.
pub fn port_from_env(name: &str, default: u16) -> Result<Option<u16>, Error> {
    match std::env::var(name).ok().filter(|v| !v.is_empty()) {
        None => Ok(Some(default)),
        Some(off) if off == "off" => Ok(None),
        Some(raw) => raw
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{name} must be a port number or off, not {raw:?}").into()),
    }
}

/// The repository's root, where the virtualenvs and `local/` are.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A stand-in's process: killed and reaped when dropped.
#[derive(Debug)]
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until something listens on 127.0.0.1:`port`, for at most `timeout`; `what` names it in
/// the error.
pub fn wait_until_listening(port: u16, what: &str, timeout: Duration) -> Result<(), Error> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let started = Instant::now();
    while started.elapsed() < timeout {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("{what} did not listen on {addr} within {timeout:?}").into())
}
