//! A TLS server for one handshake, shared by the trust tests of the functions' two clients
//! (DynamoDB's in shared/, the payment provider's in provider/).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Serves one TLS handshake with `chain` (PEM) and its key, for localhost; what the server saw.
pub(crate) fn one_handshake(
    listener: TcpListener,
    chain: &str,
    key: &str,
) -> std::thread::JoinHandle<Result<(), String>> {
    // Paths from the repository's root, whichever crate's test this is.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join(chain))
        .expect("the certificate file")
        .collect::<Result<_, _>>()
        .expect("a certificate");
    let key = PrivateKeyDer::from_pem_file(dir.join(key)).expect("the key");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .expect("a server configuration");
    std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().map_err(|e| e.to_string())?;
        let mut tls = rustls::ServerConnection::new(Arc::new(config)).map_err(|e| e.to_string())?;
        let mut stream = rustls::Stream::new(&mut tls, &mut socket);
        let mut request = [0u8; 1024];
        let read = stream.read(&mut request).map_err(|e| e.to_string())?;
        // Only a client that trusted the certificate gets this far.
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
            .map_err(|e| e.to_string())?;
        Err(format!(
            "the client sent a request over an untrusted connection ({read} bytes)"
        ))
    })
}

/// That the server's handshake failed because the client refused its certificate, before the
/// client sent a byte of its request.
pub(crate) fn refused_by_the_client(server: std::thread::JoinHandle<Result<(), String>>) {
    let seen = server.join().expect("the server thread ends");
    let alert = seen.expect_err("the handshake must fail");
    assert!(
        ["UnknownCA", "BadCertificate", "CertificateUnknown"]
            .iter()
            .any(|refusal| alert.contains(refusal)),
        "the client should refuse the certificate: {alert}"
    );
}
