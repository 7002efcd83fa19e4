//! store-floor: the least a Lambda function of this store could do, measured beside the functions
//! by `make bench` as the floor of their cold start (docs/performance.md, "The floor").
//!
//! It does only what every function must: start, run the Lambda runtime's loop (the same
//! `lambda_runtime`, on the same single-threaded tokio), and answer each event with one request
//! to the engine over one connection, TLS (rustls on ring, trusting the same roots as the
//! functions) where the endpoint is `https://`. The request is DynamoDB's smallest real one, a
//! GetItem of the key the functions' own warm-up reads, written by hand on HTTP/1.1 and signed
//! with Signature Version 4 (which DynamoDB requires, and the engine checks the shape of), with
//! the credentials Lambda sets: no SDK, no configuration, no logging. What a function's cold start
//! takes beyond this binary's is what the store itself adds; this binary's is what any function
//! here pays.
//!
//! It opens its connection by its first event, or, with `BENCH_FIRST_REQUEST_IN_INIT=1`, by that
//! same GetItem sent in init, as the functions' warm-up does: the bench measures both placements
//! and holds the functions to the faster.

use std::sync::Arc;

use hmac::{Hmac, KeyInit, Mac};
use lambda_runtime::{Error, LambdaEvent, service_fn};
use rustls::pki_types::ServerName;
use rustls::pki_types::pem::PemObject;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
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
    credentials: Credentials,
    connection: Mutex<Option<Box<dyn Connection>>>,
}

/// What Lambda sets for the execution role, and the region requests are signed for.
struct Credentials {
    access_key: String,
    secret_key: String,
    session_token: Option<String>,
    region: String,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let engine = Engine::from_environment()?;
    if std::env::var("BENCH_FIRST_REQUEST_IN_INIT").as_deref() == Ok("1") {
        engine.get_item().await?;
    }
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
            credentials: Credentials {
                access_key: std::env::var("AWS_ACCESS_KEY_ID")?,
                secret_key: std::env::var("AWS_SECRET_ACCESS_KEY")?,
                session_token: std::env::var("AWS_SESSION_TOKEN").ok(),
                region: std::env::var("AWS_REGION")?,
            },
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
        let body = json!({
            "TableName": self.table,
            "Key": { "PK": { "S": "WARMUP" }, "SK": { "S": "WARMUP" } }
        })
        .to_string();
        let request = self.credentials.signed_get_item(&self.address, &body);
        let (connection, answer) = exchange(connection, &request).await?;
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

impl Credentials {
    /// The HTTP/1.1 request of a GetItem of `body` to `host`, signed (Signature Version 4, the
    /// headers that say what the request is, the body's SHA-256).
    fn signed_get_item(&self, host: &str, body: &str) -> String {
        let now = chrono::Utc::now();
        let (amz_date, date) = (
            now.format("%Y%m%dT%H%M%SZ").to_string(),
            now.format("%Y%m%d").to_string(),
        );
        let target = "DynamoDB_20120810.GetItem";
        let mut headers = vec![
            ("content-type", "application/x-amz-json-1.0"),
            ("host", host),
            ("x-amz-date", &amz_date),
        ];
        if let Some(token) = &self.session_token {
            headers.push(("x-amz-security-token", token));
        }
        headers.push(("x-amz-target", target));
        let signed: Vec<&str> = headers.iter().map(|(name, _)| *name).collect();
        let signed = signed.join(";");
        let canonical_headers: String = headers
            .iter()
            .map(|(name, value)| format!("{name}:{value}\n"))
            .collect();
        let canonical = format!(
            "POST\n/\n\n{canonical_headers}\n{signed}\n{}",
            hex::encode(Sha256::digest(body))
        );
        let scope = format!("{date}/{}/dynamodb/aws4_request", self.region);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
            hex::encode(Sha256::digest(canonical))
        );
        let key = [self.region.as_str(), "dynamodb", "aws4_request"]
            .iter()
            .fold(
                hmac(
                    format!("AWS4{}", self.secret_key).as_bytes(),
                    date.as_bytes(),
                ),
                |key, part| hmac(&key, part.as_bytes()),
            );
        let signature = hex::encode(hmac(&key, to_sign.as_bytes()));
        let lines: String = headers
            .iter()
            .map(|(name, value)| format!("{name}: {value}\r\n"))
            .collect();
        format!(
            "POST / HTTP/1.1\r\n{lines}authorization: AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed}, Signature={signature}\r\ncontent-length: {}\r\n\r\n{body}",
            self.access_key,
            body.len()
        )
    }
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .expect("HMAC-SHA256 takes a key of any length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// Sends `request` on `connection` and reads the answer (its body, by its length).
async fn exchange(
    mut connection: Box<dyn Connection>,
    request: &str,
) -> Result<(Box<dyn Connection>, String), Error> {
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
    if !head.starts_with("http/1.1 200") {
        let status = head.lines().next().unwrap_or_default();
        return Err(format!("the engine answered {status}: {answer}").into());
    }
    Ok((connection, answer))
}
