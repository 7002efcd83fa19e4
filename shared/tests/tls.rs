//! The functions' TLS really verifies: a server whose certificate does not chain to an Amazon
//! Trust Services root is refused, before any request is sent.

use std::net::TcpListener;

use shared::dynamo::client::{Environment, sdk_client};

#[path = "support/handshake.rs"]
mod handshake;
use handshake::{one_handshake, refused_by_the_client};

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
    refused_by_the_client(server);
}

#[tokio::test]
async fn a_server_outside_the_amazon_roots_is_refused_before_a_request_is_sent() {
    refused_before_a_request(
        "shared/tests/fixtures/self-signed.crt",
        "shared/tests/fixtures/self-signed.key",
    )
    .await;
}

/// `make bench`'s TLS endpoint (bench/tls/) is trusted only by the bench's own build.
#[cfg(not(feature = "bench-build"))]
#[tokio::test]
async fn the_shipped_build_refuses_the_bench_test_chain() {
    refused_before_a_request("bench/tls/chain.pem", "bench/tls/leaf.key").await;
}
