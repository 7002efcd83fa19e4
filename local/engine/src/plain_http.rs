//! One HTTP/1.1 exchange over a plain TCP connection, `Connection: close`: what `make pay` and
//! the local provider's client send to loopback servers that answer without chunking.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub use shared::domain::error::BoxError as Error;

/// `request` (its head and body, as written) sent to `authority` (`127.0.0.1:3000`); the
/// answer's status and body. `what` names the server in the error when nothing listens.
pub fn exchange(authority: &str, request: &[u8], what: &str) -> Result<(u16, String), Error> {
    let (status, body) = exchange_bytes(authority, request, what)?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// [`exchange`], the answer's body as bytes: a picture's, say.
pub fn exchange_bytes(
    authority: &str,
    request: &[u8],
    what: &str,
) -> Result<(u16, Vec<u8>), Error> {
    let mut stream = TcpStream::connect(authority)
        .map_err(|err| format!("is {what} running on {authority}? {err}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(request)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no HTTP response")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no HTTP status")?;
    Ok((status, raw[end + 4..].to_vec()))
}
