//! The bench engine behind TLS: a listener on 127.0.0.1 that completes a TLS handshake with
//! `bench/tls/chain.pem` (RSA-2048 leaf and intermediate, as DynamoDB's endpoints present) and
//! relays the plain bytes to the engine. Each connection a function opens pays a real handshake.
//!
//! With a round trip (`rtt`), the network to DynamoDB is stood in for: a new connection waits one
//! round trip before its first byte is read (TCP's handshake), and every chunk read from either
//! side waits half of one before it is passed on. A TLS 1.3 handshake then costs one more round
//! trip and each request one: three for a connection's first request, one for every later one.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use local_engine::runtime_api::Error;

/// The folder of the bench's test chain.
pub(crate) fn tls_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tls")
}

/// Serves TLS on a free port in front of `engine` (`http://host:port`), each exchange `rtt`
/// long on top of loopback's; the `https://` URL.
pub(crate) async fn start(engine: &str, rtt: Duration) -> Result<String, Error> {
    let dir = tls_dir();
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(dir.join("chain.pem"))?.collect::<Result<_, _>>()?;
    let key = PrivateKeyDer::from_pem_file(dir.join("leaf.key"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let upstream: SocketAddr = engine
        .trim_start_matches("http://")
        .parse()
        .map_err(|_| format!("the engine's endpoint {engine} is not http://ip:port"))?;
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let _ = socket.set_nodelay(true);
                if rtt.is_zero() {
                    serve(acceptor, socket, upstream).await;
                } else {
                    // TCP's own handshake: the client's first bytes come a round trip later.
                    if sleep(rtt).await {
                        serve(acceptor, delayed(socket, rtt), upstream).await;
                    }
                }
            });
        }
    });
    // By address: the leaf names 127.0.0.1 too, and no resolver is asked.
    Ok(format!("https://127.0.0.1:{port}"))
}

/// Waits `wait` to the tens of microseconds (tokio's timer counts whole milliseconds, which
/// would make half a millisecond one or two); false if the runtime is shutting down.
async fn sleep(wait: Duration) -> bool {
    wait.is_zero()
        || tokio::task::spawn_blocking(move || std::thread::sleep(wait))
            .await
            .is_ok()
}

/// Completes the handshake on `io` and relays its plain bytes to `upstream`.
async fn serve(
    acceptor: TlsAcceptor,
    io: impl AsyncRead + AsyncWrite + Unpin,
    upstream: SocketAddr,
) {
    let Ok(mut tls) = acceptor.accept(io).await else {
        return;
    };
    let Ok(mut plain) = TcpStream::connect(upstream).await else {
        return;
    };
    let _ = plain.set_nodelay(true);
    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
}

/// `socket` behind a relay that hands each chunk on half of `rtt` after it was read, each way.
fn delayed(socket: TcpStream, rtt: Duration) -> DuplexStream {
    let (near, far) = tokio::io::duplex(64 * 1024);
    let (from_client, to_client) = socket.into_split();
    let (from_front, to_front) = tokio::io::split(far);
    tokio::spawn(relay(from_client, to_front, rtt / 2));
    tokio::spawn(relay(from_front, to_client, rtt / 2));
    near
}

/// Copies `from` to `to`, each chunk `delay` after it was read (chunks read close together
/// arrive as close together), until either side closes.
async fn relay(
    mut from: impl AsyncRead + Unpin + Send + 'static,
    mut to: impl AsyncWrite + Unpin,
    delay: Duration,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (chunks, mut arriving) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut buffer = vec![0; 64 * 1024];
        while let Ok(n @ 1..) = from.read(&mut buffer).await {
            let due = tokio::time::Instant::now() + delay;
            if chunks.send((due, buffer[..n].to_vec())).is_err() {
                return;
            }
        }
    });
    while let Some((due, chunk)) = arriving.recv().await {
        if !sleep(due.saturating_duration_since(tokio::time::Instant::now())).await {
            return;
        }
        if to.write_all(&chunk).await.is_err() {
            return;
        }
    }
    let _ = to.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::ServerName;
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A plain upstream that sends back what it reads: `http://ip:port`.
    async fn echo() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let (mut from, mut to) = socket.split();
                    let _ = tokio::io::copy(&mut from, &mut to).await;
                });
            }
        });
        format!("http://{addr}")
    }

    #[tokio::test]
    async fn a_round_trip_delays_every_exchange_and_a_new_connection_pays_three() {
        let rtt = Duration::from_millis(40);
        let front = start(&echo().await, rtt).await.unwrap();
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_file(tls_dir().join("root.pem")).unwrap())
            .unwrap();
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let mut answer = [0; 4];

        let started = Instant::now();
        let socket = TcpStream::connect(front.trim_start_matches("https://"))
            .await
            .unwrap();
        let name = ServerName::try_from("127.0.0.1").unwrap();
        let mut tls = connector.connect(name, socket).await.unwrap();
        tls.write_all(b"ping").await.unwrap();
        tls.read_exact(&mut answer).await.unwrap();
        let first = started.elapsed();
        assert_eq!(&answer, b"ping");
        // TCP's handshake, TLS's, then the exchange itself.
        assert!(first >= rtt * 3, "the first exchange took {first:?}");

        let again = Instant::now();
        tls.write_all(b"pong").await.unwrap();
        tls.read_exact(&mut answer).await.unwrap();
        let second = again.elapsed();
        assert_eq!(&answer, b"pong");
        assert!(second >= rtt, "a later exchange took {second:?}");
    }
}
