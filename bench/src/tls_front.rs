//! The bench engine behind TLS: a listener on 127.0.0.1 that completes a TLS handshake with
//! `bench/tls/chain.pem` (RSA-2048 leaf and intermediate, as DynamoDB's endpoints present) and
//! relays the plain bytes to the engine. Each connection a function opens pays a real handshake.
//!
//! With a round trip (`rtt`), the network to DynamoDB is stood in for: a new connection waits one
//! round trip before its first byte is read (TCP's handshake), and every chunk read from either
//! side waits half of one before it is passed on. A TLS 1.3 handshake then costs one more round
//! trip and each request one: three for a connection's first request, one for every later one.
//!
//! It runs on a thread of its own, whose CPU it reports ([`Front::cpu`]): the server's side of
//! every handshake (its RSA signature, the key exchange) and the relaying, which on Lambda run on
//! DynamoDB's machines and here must not land on the measured function's CPU (the memory section
//! pins the bench, this thread among it, apart from the functions). Like DynamoDB, it closes a
//! connection idle for [`IDLE_CLOSE`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use local_engine::runtime_api::Error;

/// The folder of the bench's test chain.
pub(crate) fn tls_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tls")
}

/// How long a connection may stay idle before the front closes it: DynamoDB closes idle
/// connections after about a minute.
pub(crate) const IDLE_CLOSE: Duration = Duration::from_secs(60);

/// A TLS front running: its URL, and what its thread has done.
pub(crate) struct Front {
    /// `https://127.0.0.1:<port>`.
    pub(crate) url: String,
    stats: Arc<Stats>,
}

#[derive(Default)]
struct Stats {
    /// Connections accepted (each pays one handshake).
    connections: AtomicU64,
    /// The front's thread, for its CPU time.
    thread: std::sync::OnceLock<PathBuf>,
}

impl Front {
    /// The CPU its thread has used so far (the server's side of every handshake, and the
    /// relaying), and the connections it has accepted.
    pub(crate) fn usage(&self) -> (Duration, u64) {
        let cpu =
            (self.stats.thread.get()).map_or(Duration::ZERO, |task| crate::usage::task_cpu(task));
        (cpu, self.stats.connections.load(Ordering::Relaxed))
    }
}

/// Serves TLS on a free port in front of `engine` (`http://host:port`), each exchange `rtt`
/// long on top of loopback's, on a thread of its own.
pub(crate) async fn start(engine: &str, rtt: Duration) -> Result<Front, Error> {
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
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let port = listener.local_addr()?.port();
    let stats = Arc::new(Stats::default());
    let counted = stats.clone();
    std::thread::Builder::new()
        .name("tls-front".into())
        .spawn(move || {
            let _ = counted.thread.set(
                Path::new("/proc")
                    .join(std::fs::read_link("/proc/thread-self").unwrap_or_default()),
            );
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("the TLS front's runtime");
            runtime.block_on(accept(listener, acceptor, upstream, rtt, counted));
        })?;
    // By address: the leaf names 127.0.0.1 too, and no resolver is asked (the memory section
    // names it by host instead: `crate::resolver`).
    Ok(Front {
        url: format!("https://127.0.0.1:{port}"),
        stats,
    })
}

/// Accepts connections on `listener` until the process ends, each served on its own task.
async fn accept(
    listener: std::net::TcpListener,
    acceptor: TlsAcceptor,
    upstream: SocketAddr,
    rtt: Duration,
    stats: Arc<Stats>,
) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    while let Ok((socket, _)) = listener.accept().await {
        stats.connections.fetch_add(1, Ordering::Relaxed);
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
    relay_until_idle(&mut tls, &mut plain, IDLE_CLOSE).await;
}

/// Relays both ways between `tls` and `plain` until either side closes, or until neither has
/// sent anything for `idle`: then the client is sent a close, as DynamoDB closes an idle
/// connection.
async fn relay_until_idle(
    tls: &mut (impl AsyncRead + AsyncWrite + Unpin),
    plain: &mut TcpStream,
    idle: Duration,
) {
    let (mut from_client, mut to_client) = tokio::io::split(tls);
    let (mut from_engine, mut to_engine) = plain.split();
    let (mut up, mut down) = (vec![0; 16 * 1024], vec![0; 16 * 1024]);
    loop {
        tokio::select! {
            read = from_client.read(&mut up) => match read {
                Ok(n @ 1..) if to_engine.write_all(&up[..n]).await.is_ok() => {}
                _ => return,
            },
            read = from_engine.read(&mut down) => match read {
                Ok(n @ 1..) if to_client.write_all(&down[..n]).await.is_ok()
                    && to_client.flush().await.is_ok() => {}
                _ => return,
            },
            () = tokio::time::sleep(idle) => {
                let _ = to_client.shutdown().await;
                return;
            }
        }
    }
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
        let front = start(&echo().await, rtt).await.unwrap().url;
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

    #[tokio::test]
    async fn a_connection_idle_for_the_limit_is_closed_and_a_busy_one_is_not() {
        let upstream: SocketAddr = echo().await.trim_start_matches("http://").parse().unwrap();
        let (mut client, front_end) = tokio::io::duplex(1024);
        let idle = Duration::from_millis(300);
        tokio::spawn(async move {
            let mut front_end = front_end;
            let mut plain = TcpStream::connect(upstream).await.unwrap();
            relay_until_idle(&mut front_end, &mut plain, idle).await;
        });
        let mut answer = [0; 4];
        let started = Instant::now();
        // Busy for longer than the limit, a request every half of it: never closed.
        while started.elapsed() < idle * 2 {
            client.write_all(b"ping").await.unwrap();
            client.read_exact(&mut answer).await.unwrap();
            assert_eq!(&answer, b"ping");
            tokio::time::sleep(idle / 2).await;
        }
        // Quiet from here: closed once the limit has passed since the last exchange.
        let quiet = Instant::now();
        let n = client.read(&mut answer).await.unwrap();
        assert_eq!(n, 0, "closed");
        assert!(
            quiet.elapsed() >= idle / 4,
            "closed after {:?}",
            quiet.elapsed()
        );
    }
}
