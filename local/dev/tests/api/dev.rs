//! `make dev` as its users run it: the store-local binary on free ports (the API, the engine,
//! the payment provider) and its own data file, its banner read, and plain HTTP/1.1 requests.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use local_dev::auth::Issuer;

/// `make dev` on free ports and its own data file; killed when dropped.
pub(crate) struct Dev {
    child: Child,
    /// `127.0.0.1:<port>` of its HTTP API.
    pub(crate) api: String,
    /// Its data directory (the token key, the webhook secret, the provider's log).
    pub(crate) dir: PathBuf,
    /// Its payment provider's port.
    pub(crate) payment_port: u16,
    /// Its environment, to start it again as it was.
    env: Vec<(String, String)>,
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// store-local on `host`, its banner read to the end.
pub(crate) fn start_dev(name: &str, host: &str) -> (Dev, String) {
    start_dev_with(name, host, &[])
}

/// store-local on `host` with `extra` in its environment, its banner read to the end.
/// Its ports are free when picked, but tests running at once open connections all the time and
/// one may take a port as its own end before store-local binds it: store-local then stops before
/// its banner, and it is started again on other ports (as the engine's `for_test`s do).
pub(crate) fn start_dev_with(name: &str, host: &str, extra: &[(&str, &str)]) -> (Dev, String) {
    let dir = std::env::temp_dir().join(format!("dev-{name}-{}", std::process::id()));
    let mut attempts = 0;
    loop {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("data dir");
        let (api_port, payment_port) = (free_port(), free_port());
        let mut env: Vec<(String, String)> = vec![
            ("STORE_HOST".into(), host.into()),
            ("API_PORT".into(), api_port.to_string()),
            ("DYNAMODB_PORT".into(), free_port().to_string()),
            ("PAYMENT_PORT".into(), payment_port.to_string()),
            ("EVENTS_PORT".into(), free_port().to_string()),
            (
                "STORE_DATA_FILE".into(),
                dir.join("store.db").display().to_string(),
            ),
            ("RUST_LOG".into(), "warn".into()),
        ];
        env.extend(
            extra
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned())),
        );
        let (child, banner) = spawn(&env);
        let dev = Dev {
            child,
            api: format!("127.0.0.1:{api_port}"),
            dir: dir.clone(),
            payment_port,
            env,
        };
        if banner.contains("\nCtrl-C") || attempts == 4 {
            return (dev, banner);
        }
        attempts += 1;
    }
}

/// store-local with `env`, and its banner; when it stops before the end of its banner, what it
/// printed and then its errors.
fn spawn(env: &[(String, String)]) -> (Child, String) {
    let errors = error_log(env);
    let mut child = Command::new(env!("CARGO_BIN_EXE_store-local"))
        .envs(env.iter().map(|(n, v)| (n, v)))
        .env_remove("STORE_EXPLORER")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&errors).expect("store-local's error log"))
        .spawn()
        .expect("store-local starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut banner = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("banner");
        banner.push_str(&line);
        banner.push('\n');
        if line.starts_with("Ctrl-C") {
            return (child, banner);
        }
    }
    let _ = child.wait();
    banner.push_str(&std::fs::read_to_string(&errors).unwrap_or_default());
    (child, banner)
}

/// Where store-local started with `env` writes its errors: beside its data file.
fn error_log(env: &[(String, String)]) -> PathBuf {
    env.iter()
        .find(|(name, _)| name == "STORE_DATA_FILE")
        .map(|(_, value)| PathBuf::from(value).with_file_name("store-local.err"))
        .expect("a data file")
}

impl Dev {
    /// Killed (SIGKILL: no shutdown of any kind) and started again on the same ports and data
    /// file; the new banner.
    pub(crate) fn kill_and_restart(&mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (child, banner) = spawn(&self.env);
        self.child = child;
        banner
    }
}

pub(crate) fn http(
    dev: &Dev,
    method: &str,
    target: &str,
    token: &str,
    body: &str,
) -> (u16, serde_json::Value) {
    let request = request_text(&dev.api, method, target, token, "explorer-test-1", body);
    exchange(dev, &request)
}

/// An HTTP/1.1 request to `api` as a client writes it: the bearer `token`, a JSON `body` and
/// the Idempotency-Key `key`.
pub(crate) fn request_text(
    api: &str,
    method: &str,
    target: &str,
    token: &str,
    key: &str,
    body: &str,
) -> String {
    format!(
        "{method} {target} HTTP/1.1\r\nHost: {api}\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nIdempotency-Key: {key}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// `request`, as written, sent to `dev`'s API; the status and the JSON body (null if none).
pub(crate) fn exchange(dev: &Dev, request: &str) -> (u16, serde_json::Value) {
    let (status, body) =
        local_engine::plain_http::exchange(&dev.api, request.as_bytes(), "make dev")
            .expect("an answer");
    (
        status,
        serde_json::from_str(&body).unwrap_or(serde_json::Value::Null),
    )
}

pub(crate) fn token(dev: &Dev, customer: &str) -> String {
    let issuer = Issuer::open(&dev.dir).expect("make dev's issuer");
    issuer
        .token(customer, false, chrono::Utc::now().timestamp())
        .expect("token")
}

/// A staff member's token from `dev`'s issuer.
pub(crate) fn staff_token(dev: &Dev) -> String {
    Issuer::open(&dev.dir)
        .expect("make dev's issuer")
        .token("staff-1", true, chrono::Utc::now().timestamp())
        .expect("token")
}
