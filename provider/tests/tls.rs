//! The payment provider's client really verifies: a server whose certificate does not chain to
//! one of Mozilla's roots is refused before a byte of the request (which carries the secret key)
//! is sent.

use std::net::TcpListener;

use payment_provider::Provider;

#[path = "../../shared/tests/support/handshake.rs"]
mod handshake;
use handshake::{one_handshake, refused_by_the_client};

/// The provider's client against a server presenting `chain`: refused before any request.
async fn refused_before_a_request(chain: &str, key: &str) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("an address").port();
    let server = one_handshake(listener, chain, key);
    let provider = Provider::new(&format!("https://localhost:{port}"), "sk_test_never_sent");
    let refund = shared::domain::ids::ProviderRefundId::parse("re_untrusted").expect("an ID");
    let err = provider
        .retrieve_refund(&refund)
        .await
        .expect_err("an untrusted server must be refused");
    assert!(!err.to_string().is_empty());
    refused_by_the_client(server);
}

#[tokio::test]
async fn a_server_outside_mozillas_roots_is_refused_before_a_request_is_sent() {
    refused_before_a_request(
        "shared/tests/fixtures/self-signed.crt",
        "shared/tests/fixtures/self-signed.key",
    )
    .await;
}

/// `make bench`'s TLS endpoint (bench/tls/) is trusted only by the bench's own build.
#[tokio::test]
async fn the_shipped_build_refuses_the_bench_test_chain() {
    if shared::dynamo::client::BENCH_TEST_ROOT.is_some() {
        return; // the bench's own build, which trusts it
    }
    refused_before_a_request("bench/tls/chain.pem", "bench/tls/leaf.key").await;
}
