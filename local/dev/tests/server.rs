//! The `make dev` API over real HTTP: template.yaml's routes, the handlers, API Gateway's 404.

use local_dev::routes;
use local_dev::server::router;
use local_engine::template;
use local_engine::testing::TestApp;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Serves the local API for `app` on a free port.
async fn serve(app: &TestApp) -> String {
    let routes = routes::from_template(&template::parse().expect("template")).expect("routes");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let router = router(&routes, app.store.clone());
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr.to_string()
}

/// A plain HTTP/1.1 GET, as curl would send it.
async fn http_get(addr: &str, target: &str) -> (u16, String, Value) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let request = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("response");
    let status = head
        .split(' ')
        .nth(1)
        .expect("status")
        .parse()
        .expect("number");
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or_default()
        .to_owned();
    (
        status,
        content_type,
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_access_pattern_answers_over_http() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;

    let (status, ct, body) = http_get(&addr, "/customers/c1").await;
    assert_eq!((status, ct.as_str()), (200, "application/json"));
    assert_eq!(body["email"], "ana@example.com");

    let (status, _, body) = http_get(&addr, "/customers/c1/orders?limit=2").await;
    assert_eq!(status, 200);
    assert_eq!(body["items"].as_array().expect("items").len(), 2);
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();
    let (status, _, body) = http_get(
        &addr,
        &format!("/customers/c1/orders?limit=2&cursor={cursor}"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["items"].as_array().expect("items").len(), 2);

    let (status, _, body) = http_get(&addr, "/orders/o100/items").await;
    assert_eq!(status, 200);
    assert_eq!(body["items"][0]["price"], "19.95");

    let (status, _, body) = http_get(&addr, "/orders?status=SHIPPED&limit=3").await;
    assert_eq!(status, 200);
    assert_eq!(body["items"][0]["status"], "SHIPPED");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_problems_and_unknown_routes_are_api_gateways_404() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;

    for target in [
        "/customers/c%231",
        "/customers/c1/orders?limit=1000",
        "/customers/c1/orders?cursor=bm90IGEgY3Vyc29y",
        "/orders?status=SOLD",
    ] {
        let (status, ct, body) = http_get(&addr, target).await;
        assert_eq!(
            (status, ct.as_str()),
            (400, "application/problem+json"),
            "{target}"
        );
        assert_eq!(body["status"], 400);
    }
    let (status, _, body) = http_get(&addr, "/customers/c9/nothing").await;
    assert_eq!(status, 404);
    assert_eq!(body["message"], "Not Found");
}
