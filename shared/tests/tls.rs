//! The functions' TLS really verifies: a server whose certificate does not chain to an Amazon
//! Trust Services root is refused, before any request is sent.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use shared::dynamo::client::{Environment, sdk_client};

/// Serves one TLS handshake with `chain` (PEM) and its key, for localhost; what the server saw.
fn one_handshake(
    listener: TcpListener,
    chain: &str,
    key: &str,
) -> std::thread::JoinHandle<Result<(), String>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
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

/// The functions' client against a server presenting `chain`: refused before any request.
async fn refused_before_a_request(chain: &str, key: &str) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("an address").port();
    let server = one_handshake(listener, chain, key);
    let environment = Environment::read(|name| match name {
        "AWS_REGION" => Some("eu-west-1".into()),
        "AWS_ACCESS_KEY_ID" | "AWS_SECRET_ACCESS_KEY" => Some("test".into()),
        "AWS_ENDPOINT_URL_DYNAMODB" => Some(format!("https://localhost:{port}")),
        _ => None,
    })
    .expect("a complete environment");
    let client = sdk_client(environment);
    let sent = client
        .get_item()
        .table_name("AppTable")
        .key("PK", aws_sdk_dynamodb::types::AttributeValue::S("x".into()))
        .send()
        .await;
    let err = sent.expect_err("an untrusted server must be refused");
    assert!(
        matches!(
            err,
            aws_sdk_dynamodb::error::SdkError::DispatchFailure(_)
                | aws_sdk_dynamodb::error::SdkError::TimeoutError(_)
        ),
        "{err:?}"
    );
    let seen = server.join().expect("the server thread ends");
    let alert = seen.expect_err("the handshake must fail");
    assert!(
        ["UnknownCA", "BadCertificate", "CertificateUnknown"]
            .iter()
            .any(|refusal| alert.contains(refusal)),
        "the client should refuse the certificate: {alert}"
    );
}

#[tokio::test]
async fn a_server_outside_the_amazon_roots_is_refused_before_a_request_is_sent() {
    refused_before_a_request(
        "tests/fixtures/self-signed.crt",
        "tests/fixtures/self-signed.key",
    )
    .await;
}

/// `make bench`'s TLS endpoint (bench/tls/) is trusted only by the bench's own build.
#[cfg(not(feature = "bench-build"))]
#[tokio::test]
async fn the_shipped_build_refuses_the_bench_test_chain() {
    refused_before_a_request("../bench/tls/chain.pem", "../bench/tls/leaf.key").await;
}
