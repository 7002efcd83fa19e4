//! The payment provider of make dev and the tests: localstripe (PyPI, a stateful fake of the
//! provider's API that signs and sends its own webhooks; not written here), run by
//! `local/payment_provider.py` from the repo's virtualenv (`.venv-payments`, which `make dev`
//! and `make test` install) on 127.0.0.1, its webhook registered to make dev's
//! `/payments/webhook` with the endpoint secret. `make pay` talks to it with [`form_post`]; the
//! functions, with `payment_provider::Provider`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::stand_in::{self, Process};

pub use shared::domain::error::BoxError as Error;

/// Where make dev runs the provider unless `PAYMENT_PORT` says otherwise.
pub const DEFAULT_PORT: u16 = 8420;

/// The key make dev's functions and `make pay` use: localstripe takes any `sk_` key, and a test
/// key is what the real provider's test mode would take.
pub const LOCAL_API_KEY: &str = "sk_test_local";

/// The ID localstripe registers make dev's webhook under.
const WEBHOOK_ID: &str = "store-local";

/// How long the provider may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// `PAYMENT_PORT`: the provider's port, or `None` for `off` (make dev without a provider: the
/// self-signed `make pay --self-signed` still works).
pub fn port_from_env() -> Result<Option<u16>, Error> {
    stand_in::port_from_env("PAYMENT_PORT", DEFAULT_PORT)
}

/// The provider make dev started; stopped when dropped.
#[derive(Debug)]
pub struct LocalProvider {
    _process: Process,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

impl LocalProvider {
    /// localstripe on 127.0.0.1:`port`, logging to `log`, its webhooks sent to `webhook`'s URL
    /// signed with its secret (none: the events go nowhere, as for a handler's test). Fails,
    /// saying what to run, when the virtualenv is missing.
    pub fn start(port: u16, log: &Path, webhook: Option<(&str, &str)>) -> Result<Self, Error> {
        let root = stand_in::repo_root();
        let python = root.join(".venv-payments/bin/python");
        if !python.exists() {
            return Err(format!(
                "{} is missing: `make dev` installs localstripe into it (or set PAYMENT_PORT=off)",
                python.display()
            )
            .into());
        }
        let log = std::fs::File::create(log)?;
        let child = Command::new(&python)
            .arg(root.join("local/payment_provider.py"))
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(|err| format!("cannot start {}: {err}", python.display()))?;
        let provider = Self {
            _process: Process(child),
            base: format!("http://127.0.0.1:{port}"),
        };
        stand_in::wait_until_listening(port, "localstripe", START_TIMEOUT)?;
        if let Some((url, secret)) = webhook {
            let (status, body) = form_post(
                &provider.base,
                &format!("/_config/webhooks/{WEBHOOK_ID}"),
                None,
                &[("url", url), ("secret", secret)],
            )?;
            if status != 200 {
                return Err(format!("localstripe refused the webhook ({status}): {body}").into());
            }
        }
        Ok(provider)
    }

    /// A fresh localstripe on a free port, its log in the system's temporary folder, sending
    /// no webhooks; and the client the functions call it with. Each test owns its own. The port
    /// is free when picked, but a connection another test opens may take it before localstripe
    /// binds it: then another is picked (as `LocalBus::for_test` does).
    pub fn for_test() -> Result<(Self, payment_provider::Provider), Error> {
        let mut attempts = 0;
        loop {
            let port = std::net::TcpListener::bind("127.0.0.1:0")?
                .local_addr()?
                .port();
            let log = std::env::temp_dir().join(format!("localstripe-{port}.log"));
            match Self::start(port, &log, None) {
                Err(err) if attempts < 4 && !err.to_string().contains("is missing") => {
                    attempts += 1;
                }
                started => {
                    let provider = started?;
                    let client = payment_provider::Provider::new(&provider.base, LOCAL_API_KEY);
                    return Ok((provider, client));
                }
            }
        }
    }
}

/// `fields` as `application/x-www-form-urlencoded`, the provider's request encoding.
pub fn form_encode(fields: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish()
}

/// One request to the provider at `base` (plain HTTP: localstripe on loopback): `POST` with a
/// form body when `fields` is given, else `GET`. The status and the JSON answer.
pub fn request(
    base: &str,
    method: &str,
    path: &str,
    key: Option<&str>,
    fields: &[(&str, &str)],
) -> Result<(u16, Value), Error> {
    let authority = base
        .strip_prefix("http://")
        .ok_or("the local provider is plain http://")?;
    let body = form_encode(fields);
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n");
    if let Some(key) = key {
        request.push_str(&format!("Authorization: Bearer {key}\r\n"));
    }
    if method == "POST" {
        request.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
    } else {
        request.push_str("\r\n");
    }
    let (status, body) =
        crate::plain_http::exchange(authority, request.as_bytes(), "the payment provider")?;
    // An empty body is no JSON.
    let json = serde_json::from_str(body.trim()).unwrap_or(Value::Null);
    Ok((status, json))
}

/// A `POST` of `fields` to the provider.
pub fn form_post(
    base: &str,
    path: &str,
    key: Option<&str>,
    fields: &[(&str, &str)],
) -> Result<(u16, Value), Error> {
    request(base, "POST", path, key, fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_are_encoded_as_the_provider_reads_them() {
        assert_eq!(
            form_encode(&[("amount", "4395"), ("metadata[orderId]", "o 1&x")]),
            "amount=4395&metadata%5BorderId%5D=o+1%26x"
        );
    }
}
