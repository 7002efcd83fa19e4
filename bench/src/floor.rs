//! store-floor: the least a Lambda function of this store could do, measured beside the functions
//! by `make bench` as the floor of their cold start (docs/performance.md, "The floor").
//!
//! It does only what every function must: start, run the Lambda runtime's loop (the same
//! `lambda_runtime`, on the same single-threaded tokio), and answer each event with one request
//! to the engine over one connection, TLS (rustls on ring, trusting the same roots as the
//! functions) where the endpoint is `https://`. The request is DynamoDB's smallest real one, a
//! GetItem of the key the functions' own warm-up reads, written by hand on HTTP/1.1: no SDK, no
//! signature, no configuration, no logging. What a function's cold start takes beyond this
//! binary's is what the store itself adds; this binary's is what any function here pays.

use std::sync::Arc;

use lambda_runtime::{Error, LambdaEvent, service_fn};
use rustls::pki_types::ServerName;
use rustls::pki_types::pem::PemObject;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

/// A connection to the engine, plain or TLS.
trait Connection: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Connection for T {}

/// Where the engine is, and how to reach it.
struct Engine {
    /// `host:port`.
    address: String,
    host: String,
    /// TLS, when the endpoint is `https://`: the client configuration, built once in init.
    tls: Option<tokio_rustls::TlsConnector>,
    table: String,
    connection: Mutex<Option<Box<dyn Connection>>>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let engine = Engine::from_environment()?;
    let engine = &engine;
    lambda_runtime::run(service_fn(move |_: LambdaEvent<Value>| async move {
        let body = engine.get_item().await?;
        Ok::<_, Error>(json!({ "statusCode": 200, "body": body }))
    }))
    .await
}

impl Engine {
    fn from_environment() -> Result<Self, Error> {
        let endpoint = std::env::var("AWS_ENDPOINT_URL_DYNAMODB")?;
        let (tls, rest) = match endpoint.strip_prefix("https://") {
            Some(rest) => (true, rest),
            None => (
                false,
                endpoint
                    .strip_prefix("http://")
                    .ok_or("AWS_ENDPOINT_URL_DYNAMODB: not an http:// or https:// URL")?,
            ),
        };
        let address = rest.trim_end_matches('/').to_owned();
        let host = address
            .rsplit_once(':')
            .map_or(address.as_str(), |(host, _)| host)
            .to_owned();
        Ok(Self {
            tls: tls.then(client_config).transpose()?,
            address,
            host,
            table: std::env::var("TABLE_NAME")?,
            connection: Mutex::new(None),
        })
    }

    /// One GetItem on the open connection, or on a new one; the engine's answer.
    async fn get_item(&self) -> Result<String, Error> {
        let mut slot = self.connection.lock().await;
        let connection = match slot.take() {
            Some(open) => open,
            None => self.connect().await?,
        };
        let (connection, answer) = exchange(connection, &self.host, &self.table).await?;
        *slot = Some(connection);
        Ok(answer)
    }

    async fn connect(&self) -> Result<Box<dyn Connection>, Error> {
        let tcp = TcpStream::connect(&self.address).await?;
        tcp.set_nodelay(true)?;
        Ok(match &self.tls {
            Some(tls) => {
                let name = ServerName::try_from(self.host.clone())?;
                Box::new(tls.connect(name, tcp).await?)
            }
            None => Box::new(tcp),
        })
    }
}

/// The functions' trust: the Amazon Trust Services roots, and in the bench's build the bench's
/// test root, on rustls with ring.
fn client_config() -> Result<tokio_rustls::TlsConnector, Error> {
    let mut roots = rustls::RootCertStore::empty();
    let pems = [
        Some(shared::dynamo::client::AMAZON_TRUST_SERVICES),
        shared::dynamo::client::BENCH_TEST_ROOT,
    ];
    for pem in pems.into_iter().flatten() {
        for certificate in rustls::pki_types::CertificateDer::pem_slice_iter(pem) {
            roots.add(certificate?)?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// Sends one GetItem on `connection` and reads the answer (its body, by its length).
async fn exchange(
    mut connection: Box<dyn Connection>,
    host: &str,
    table: &str,
) -> Result<(Box<dyn Connection>, String), Error> {
    let body = json!({
        "TableName": table,
        "Key": { "PK": { "S": "WARMUP" }, "SK": { "S": "WARMUP" } }
    })
    .to_string();
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    connection.write_all(request.as_bytes()).await?;
    connection.flush().await?;
    let mut read = Vec::with_capacity(1024);
    let head_end = loop {
        if let Some(at) = read.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if connection.read_buf(&mut read).await? == 0 {
            return Err("the engine closed the connection".into());
        }
    };
    let head = String::from_utf8_lossy(&read[..head_end]).to_ascii_lowercase();
    if !head.starts_with("http/1.1 200") {
        return Err(format!("the engine answered {}", head.lines().next().unwrap_or("")).into());
    }
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .ok_or("the engine's answer has no Content-Length")?;
    while read.len() < head_end + length {
        if connection.read_buf(&mut read).await? == 0 {
            return Err("the engine closed the connection mid-answer".into());
        }
    }
    let answer = String::from_utf8_lossy(&read[head_end..head_end + length]).into_owned();
    Ok((connection, answer))
}
