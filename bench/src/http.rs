//! One keep-alive HTTP/1.1 connection to make dev's API, for the load runs (`store-load`,
//! `store-checkout-load`): requests written by hand, so that what is timed is make dev's answer
//! and not a client library's.

use local_engine::runtime_api::Error;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// One keep-alive HTTP/1.1 connection to the local API.
pub(crate) struct Connection {
    stream: BufReader<TcpStream>,
    addr: String,
}

impl Connection {
    pub(crate) async fn open(addr: &str) -> Result<Self, Error> {
        Ok(Self {
            stream: BufReader::new(TcpStream::connect(addr).await?),
            addr: addr.to_owned(),
        })
    }

    /// Sends one request with `headers` (a JSON body, perhaps empty) and reads its answer; the
    /// status and body.
    pub(crate) async fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Result<(u16, String), Error> {
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.addr);
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
        self.stream.get_mut().write_all(request.as_bytes()).await?;
        let mut status_line = String::new();
        self.stream.read_line(&mut status_line).await?;
        let status: u16 = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no status in {status_line:?}"))?;
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).await?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse()?;
            }
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).await?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }

    /// Sends one request with a bearer `token`; the status and body.
    pub(crate) async fn send(
        &mut self,
        method: &str,
        path: &str,
        token: &str,
        body: &str,
    ) -> Result<(u16, String), Error> {
        let bearer = format!("Bearer {token}");
        self.request(method, path, &[("Authorization", &bearer)], body)
            .await
    }
}

/// CPU seconds (user + system) `pid` has used.
pub(crate) fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 (1-based), 11 and 12 after the name; 100 Hz.
    (ticks(11) + ticks(12)) / 100.0
}

/// The `p`th percentile of `sorted` (nearest rank); zero when empty.
pub(crate) fn percentile(sorted: &[std::time::Duration], p: f64) -> std::time::Duration {
    if sorted.is_empty() {
        return std::time::Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p / 100.0).round() as usize]
}

/// Waits until something listens on `addr` (a minute at most).
pub(crate) async fn wait_for(addr: &str) -> Result<(), Error> {
    for _ in 0..600 {
        if TcpStream::connect(addr).await.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Err(format!("store-local did not listen on {addr}").into())
}

/// Two free ports on the loopback: the API's and the engine's.
pub(crate) fn free_ports() -> Result<(u16, u16), Error> {
    let port = |listener: std::net::TcpListener| listener.local_addr().map(|a| a.port());
    Ok((
        port(std::net::TcpListener::bind("127.0.0.1:0")?)?,
        port(std::net::TcpListener::bind("127.0.0.1:0")?)?,
    ))
}

/// make dev on a fresh data file in `dir`: its process, its address, its data file, a staff
/// token.
pub(crate) struct Server {
    child: tokio::process::Child,
    pub(crate) pid: u32,
    pub(crate) addr: String,
    pub(crate) data: std::path::PathBuf,
    pub(crate) token: String,
    bin_dir: std::path::PathBuf,
}

impl Server {
    /// Starts `bin_dir`'s store-local with `env` besides its ports and data file, its log in
    /// `dir`/store-local.log, and waits until it listens.
    pub(crate) async fn start(
        bin_dir: &std::path::Path,
        dir: &std::path::Path,
        env: &[(&str, String)],
    ) -> Result<Self, Error> {
        let data = dir.join("store.db");
        let (api_port, dynamodb_port) = free_ports()?;
        let addr = format!("127.0.0.1:{api_port}");
        let mut command = tokio::process::Command::new(bin_dir.join("store-local"));
        command
            .env("STORE_DATA_FILE", &data)
            .env("API_PORT", api_port.to_string())
            .env("DYNAMODB_PORT", dynamodb_port.to_string())
            // No payment provider unless `env` names a port: the load signs its own payments.
            .env("PAYMENT_PORT", "off")
            // No events either, unless `env` names a port for them.
            .env("EVENTS_PORT", "off")
            // Its own warnings; not the engine's for every cancelled transaction, which is
            // how the store works (as make dev logs).
            .env("RUST_LOG", "warn,dynoxide=error")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.join("store-local.log"))?)
            .kill_on_drop(true);
        for (name, value) in env {
            command.env(name, value);
        }
        let child = command.spawn()?;
        let pid = child.id().ok_or("store-local has no pid")?;
        wait_for(&addr).await?;
        let mut server = Self {
            child,
            pid,
            addr,
            data,
            token: String::new(),
            bin_dir: bin_dir.to_owned(),
        };
        server.token = server.token_for(&["--staff"]).await?;
        Ok(server)
    }

    /// Stops store-local and waits for it to end; its data file stays.
    pub(crate) async fn stop(mut self) -> Result<std::path::PathBuf, Error> {
        self.child.start_kill()?;
        self.child.wait().await?;
        Ok(self.data)
    }

    /// A token from store-token run with `args` (`--staff`, or `--customer ID`).
    pub(crate) async fn token_for(&self, args: &[&str]) -> Result<String, Error> {
        let output = tokio::process::Command::new(self.bin_dir.join("store-token"))
            .args(args)
            .env("STORE_DATA_FILE", &self.data)
            .output()
            .await?;
        if !output.status.success() {
            return Err(format!(
                "store-token {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        Ok(String::from_utf8(output.stdout)?.trim().to_owned())
    }
}
