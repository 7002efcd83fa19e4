//! The bench engine behind TLS: a listener on 127.0.0.1 that completes a TLS handshake with
//! `bench/tls/chain.pem` (RSA-2048 leaf and intermediate, as DynamoDB's endpoints present) and
//! relays the plain bytes to the engine. Each connection a function opens pays a real handshake.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use local_engine::runtime_api::Error;

/// The folder of the bench's test chain.
pub(crate) fn tls_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tls")
}

/// Serves TLS on a free port in front of `engine` (`http://host:port`); the `https://` URL.
pub(crate) async fn start(engine: &str) -> Result<String, Error> {
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
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    return;
                };
                let Ok(mut plain) = TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = plain.set_nodelay(true);
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    // By address: the leaf names 127.0.0.1 too, and no resolver is asked.
    Ok(format!("https://127.0.0.1:{port}"))
}
