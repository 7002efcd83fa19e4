//! The `make dev` API over real HTTP: template.yaml's routes behind the local JWT authorizer,
//! the handlers and their access rules, API Gateway's 401 and 404.

use std::sync::OnceLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use local_dev::auth::{Issuer, LOCAL_AUDIENCE, LOCAL_ISSUER};
use local_dev::routes;
use local_dev::server::router;
use local_engine::testing::TestApp;
use local_engine::{LOCAL_TABLE, seed, template};
use serde_json::{Value, json};
use shared::domain::status::OrderStatus;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One issuer for the whole test binary: generating an RSA key takes a while.
pub(crate) fn issuer() -> &'static Issuer {
    static ISSUER: OnceLock<Issuer> = OnceLock::new();
    ISSUER.get_or_init(|| Issuer::generate().expect("key"))
}

pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

pub(crate) fn customer(id: &str) -> String {
    issuer().token(id, false, now()).expect("token")
}

pub(crate) fn staff() -> String {
    issuer().token("staff-1", true, now()).expect("token")
}

/// Serves the local API for `app` on a free port.
pub(crate) async fn serve(app: &TestApp) -> String {
    let routes = routes::from_template(&template::parse().expect("template")).expect("routes");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let router = router(
        &routes,
        local_dev::Services::for_test(&app.store),
        issuer().verifier(),
        local_dev::server::Explorer::served(addr.ip(), addr.port()),
        None,
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr.to_string()
}

pub(crate) struct Reply {
    pub(crate) status: u16,
    head: String,
    pub(crate) body: Value,
}

/// A plain HTTP/1.1 request, as curl would send it, with `token` as its bearer token.
async fn http(addr: &str, method: &str, target: &str, token: Option<&str>, body: &str) -> Reply {
    http_with(addr, method, target, token, &[], body).await
}

/// [`http`], with `headers` besides.
pub(crate) async fn http_with(
    addr: &str,
    method: &str,
    target: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let mut request =
        format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body);
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
    Reply {
        status,
        head: head.to_ascii_lowercase(),
        body: serde_json::from_str(body).unwrap_or(Value::Null),
    }
}

async fn get(addr: &str, target: &str, token: &str) -> Reply {
    http(addr, "GET", target, Some(token), "").await
}

/// `PATCH target {"status": status}` with `token`.
async fn set_status(addr: &str, target: &str, token: &str, status: &str) -> Reply {
    let body = format!(r#"{{"status":"{status}"}}"#);
    http(addr, "PATCH", target, Some(token), &body).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_access_pattern_answers_over_http() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let c1 = customer("c1");

    let reply = get(&addr, "/customers/c1", &c1).await;
    assert_eq!(reply.status, 200);
    assert!(reply.head.contains("content-type: application/json"));
    assert_eq!(reply.body["email"], "ana@example.com");

    let reply = get(&addr, "/customers/c1/orders?limit=2", &c1).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["items"].as_array().expect("items").len(), 2);
    let cursor = reply.body["nextCursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    let reply = get(
        &addr,
        &format!("/customers/c1/orders?limit=2&cursor={cursor}"),
        &c1,
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["items"].as_array().expect("items").len(), 2);

    let reply = get(&addr, "/orders/o100/items", &c1).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["items"][0]["price"], "19.95");

    let reply = get(&addr, "/orders?status=SHIPPED&limit=3", &staff()).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["items"][0]["status"], "SHIPPED");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_problems_and_unknown_routes_are_api_gateways_404() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let staff = staff();

    for target in [
        "/customers/c%231",
        "/customers/c1/orders?limit=1000",
        "/customers/c1/orders?cursor=bm90IGEgY3Vyc29y",
        "/orders?status=SOLD",
    ] {
        let reply = get(&addr, target, &staff).await;
        assert_eq!(reply.status, 400, "{target}");
        assert!(
            reply
                .head
                .contains("content-type: application/problem+json")
        );
        assert_eq!(reply.body["status"], 400);
    }
    let reply = get(&addr, "/customers/c9/nothing", &staff).await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.body["message"], "Not Found");
}

/// `claims` with `changes` applied (`null` removes a claim).
pub(crate) fn with(changes: Value) -> Value {
    let mut claims = json!({
        "iss": LOCAL_ISSUER,
        "aud": LOCAL_AUDIENCE,
        "sub": "c1",
        "iat": now(),
        "exp": now() + 600,
    });
    for (name, value) in changes.as_object().expect("object") {
        if value.is_null() {
            claims.as_object_mut().expect("object").remove(name);
        } else {
            claims[name] = value.clone();
        }
    }
    claims
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_checked_as_api_gateways_jwt_authorizer_checks_them() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let issuer = issuer();
    let header = issuer.header();
    let sign = |claims: Value| issuer.sign(&header, &claims).expect("token");

    // What passes: aud, or a Cognito access token's client_id, an nbf already past.
    for token in [
        sign(with(json!({}))),
        sign(with(json!({"aud": null, "client_id": LOCAL_AUDIENCE}))),
        sign(with(
            json!({"aud": ["other", LOCAL_AUDIENCE], "nbf": now() - 5}),
        )),
    ] {
        assert_eq!(get(&addr, "/customers/c1", &token).await.status, 200);
    }

    let valid = sign(with(json!({})));
    let (head, rest) = valid.split_once('.').expect("parts");
    let (payload, signature) = rest.split_once('.').expect("parts");
    let reheaded = |header: Value| {
        format!(
            "{}.{payload}.{signature}",
            URL_SAFE_NO_PAD.encode(header.to_string())
        )
    };
    // HS256 "signed" with the public key as the HMAC secret: the classic confusion attack.
    let public_key_secret = issuer.jwk().n.clone();
    let hs256 = {
        let input = format!(
            "{}.{payload}",
            URL_SAFE_NO_PAD
                .encode(json!({"alg": "HS256", "typ": "JWT", "kid": issuer.jwk().kid}).to_string())
        );
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &public_key_secret);
        let tag = ring::hmac::sign(&key, input.as_bytes());
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
    };
    let other_issuer = Issuer::generate().expect("key");
    let mut tampered = payload.as_bytes().to_vec();
    tampered[4] ^= 1;
    let refused: Vec<(&str, Option<String>)> = vec![
        ("no token", None),
        ("expired", Some(sign(with(json!({"exp": now() - 1}))))),
        ("no exp", Some(sign(with(json!({"exp": null}))))),
        (
            "not yet valid",
            Some(sign(with(json!({"nbf": now() + 300})))),
        ),
        (
            "wrong issuer",
            Some(sign(with(json!({"iss": "https://elsewhere.invalid"})))),
        ),
        (
            "wrong audience",
            Some(sign(with(json!({"aud": "another-api"})))),
        ),
        ("no audience", Some(sign(with(json!({"aud": null}))))),
        (
            "a wrong aud, though client_id matches: aud is the one checked",
            Some(sign(with(
                json!({"aud": "another-api", "client_id": LOCAL_AUDIENCE}),
            ))),
        ),
        (
            "issued in the future",
            Some(sign(with(json!({"iat": now() + 300})))),
        ),
        (
            "an iat that is not a time",
            Some(sign(with(json!({"iat": "soon"})))),
        ),
        (
            "bad signature",
            Some(format!(
                "{head}.{}.{signature}",
                String::from_utf8(tampered).expect("ascii")
            )),
        ),
        (
            "another key under this kid",
            Some(other_issuer.sign(&header, &with(json!({}))).expect("token")),
        ),
        (
            "unknown kid",
            Some(reheaded(
                json!({"alg": "RS256", "typ": "JWT", "kid": "nope"}),
            )),
        ),
        (
            "alg none",
            Some(format!(
                "{}.{payload}.",
                URL_SAFE_NO_PAD.encode(json!({"alg": "none", "kid": issuer.jwk().kid}).to_string())
            )),
        ),
        ("HS256 with the public key", Some(hs256)),
        ("garbage", Some("not.a.jwt".to_owned())),
    ];
    for (why, token) in refused {
        let reply = http(&addr, "GET", "/customers/c1", token.as_deref(), "").await;
        assert_eq!(reply.status, 401, "{why}");
        assert_eq!(reply.body, json!({"message": "Unauthorized"}), "{why}");
        assert!(reply.head.contains("www-authenticate: bearer"), "{why}");
    }

    // A claim that is JSON null is dropped, as API Gateway drops it: a valid token whose `sub`
    // is null names no caller, and the function answers 401 itself (never a caller "null").
    let mut nameless = with(json!({}));
    nameless["sub"] = Value::Null;
    let reply = get(&addr, "/customers/null", &sign(nameless)).await;
    assert_eq!(reply.status, 401, "{:?}", reply.body);
    assert_eq!(reply.body["type"], "/problems/unauthorized");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_customer_reaches_only_their_own_data_and_staff_reach_everything() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let (c1, c2, staff) = (customer("c1"), customer("c2"), staff());
    let profile = r#"{"name":"Ana Torres","email":"ana@example.com"}"#;
    let order = r#"{"items":[{"sku":"sku-1","quantity":1,"price":"19.95"}]}"#;

    // c2 on each of c1's routes (o100 is c1's): 403 where the path names c1, 404 for c1's
    // order (as for a missing one), 403 for the staff-only listing.
    for (method, target, body, expected) in [
        ("GET", "/customers/c1", "", 403),
        ("PUT", "/customers/c1", profile, 403),
        ("GET", "/customers/c1/orders", "", 403),
        ("POST", "/customers/c1/orders", order, 403),
        ("GET", "/orders/o100", "", 404),
        ("GET", "/orders/o100/items", "", 404),
        ("PATCH", "/orders/o100", r#"{"status":"CANCELLED"}"#, 404),
        ("GET", "/orders?status=PLACED", "", 403),
    ] {
        let reply = http(&addr, method, target, Some(&c2), body).await;
        assert_eq!(reply.status, expected, "c2: {method} {target}");
        assert!(
            reply.head.contains("application/problem+json"),
            "{method} {target}"
        );
        if expected == 404 {
            let missing = http(
                &addr,
                method,
                &target.replace("o100", "o999"),
                Some(&c2),
                body,
            )
            .await;
            assert_eq!(
                (reply.body["type"].clone(), reply.body["detail"].clone()),
                (
                    missing.body["type"].clone(),
                    json!("order o100 does not exist")
                ),
                "the same answer as a missing order"
            );
        }
    }
    let c1_orders = get(&addr, "/customers/c1/orders?limit=100", &c1).await.body;
    assert_eq!(
        c1_orders["items"].as_array().expect("items").len(),
        30,
        "nothing c2 tried changed c1's orders"
    );

    // c1 on their own routes, and staff on every route.
    for token in [&c1, &staff] {
        for (method, target, body, expected) in [
            ("GET", "/customers/c1", "", 200),
            ("PUT", "/customers/c1", profile, 200),
            ("GET", "/customers/c1/orders", "", 200),
            ("GET", "/orders/o100", "", 200),
            ("GET", "/orders/o100/items", "", 200),
        ] {
            let reply = http(&addr, method, target, Some(token), body).await;
            assert_eq!(reply.status, expected, "{method} {target}");
        }
    }
    // An order placed directly, without a payment, is staff's (and machine clients') to place:
    // a customer's own orders go through checkout, which the provider's payment places.
    let own = http(&addr, "POST", "/customers/c1/orders", Some(&c1), order).await;
    assert_eq!(
        (own.status, own.body["type"].as_str()),
        (403, Some("/problems/forbidden"))
    );
    let by_staff = http(&addr, "POST", "/customers/c1/orders", Some(&staff), order).await;
    assert_eq!(by_staff.status, 201);
    assert_eq!(
        get(&addr, "/orders?status=PLACED", &staff).await.status,
        200
    );
    assert_eq!(get(&addr, "/orders?status=PLACED", &c1).await.status, 403);

    // An order the source design's boto3 code wrote (no header): its owner is not known, so staff only.
    let boto3_order = seed::SampleOrder {
        order_id: "o900".into(),
        customer_id: "c1".into(),
        placed_at: "2026-10-09T10:00:00Z".into(),
        status: OrderStatus::Placed,
        lines: vec![("sku-1".into(), 1, "19.95".into())],
    };
    let items = seed::order_items(&boto3_order).expect("items");
    seed::write_all(&app.engine.client(), LOCAL_TABLE, items)
        .await
        .expect("written");
    assert_eq!(get(&addr, "/orders/o900/items", &c1).await.status, 404);
    let reply = get(&addr, "/orders/o900/items", &staff).await;
    assert_eq!(
        (reply.status, reply.body["items"][0]["sku"].as_str()),
        (200, Some("sku-1"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_customer_may_cancel_their_placed_order_but_not_ship_it() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let c1 = customer("c1");
    // Placed for c1 by staff: customers check out.
    let placed = http(
        &addr,
        "POST",
        "/customers/c1/orders",
        Some(&staff()),
        r#"{"items":[{"sku":"sku-2","quantity":2,"price":"4.50"}]}"#,
    )
    .await;
    assert_eq!(placed.status, 201);
    let target = format!("/orders/{}", placed.body["orderId"].as_str().expect("id"));

    let ship = set_status(&addr, &target, &c1, "SHIPPED").await;
    assert_eq!(ship.status, 403);
    let cancel = set_status(&addr, &target, &c1, "CANCELLED").await;
    assert_eq!(
        (cancel.status, cancel.body["status"].as_str()),
        (200, Some("CANCELLED"))
    );
    // Cancelled is final, for its owner as for staff.
    let again = set_status(&addr, &target, &c1, "CANCELLED").await;
    assert_eq!(
        (again.status, again.body["currentStatus"].as_str()),
        (409, Some("CANCELLED"))
    );

    // Staff ship the source design's order o100; its owner may then no longer cancel it.
    let shipped = set_status(&addr, "/orders/o100", &staff(), "SHIPPED").await;
    assert_eq!(shipped.status, 200);
    let late = set_status(&addr, "/orders/o100", &c1, "CANCELLED").await;
    assert_eq!(late.status, 409);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_handed_to_one_caller_is_refused_for_another() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let (c1, staff, other_staff) = (
        customer("c1"),
        staff(),
        issuer().token("staff-2", true, now()).expect("token"),
    );
    let first = get(&addr, "/customers/c1/orders?limit=2", &c1).await;
    let cursor = first.body["nextCursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    let next = format!("/customers/c1/orders?limit=2&cursor={cursor}");
    assert_eq!(get(&addr, &next, &c1).await.status, 200);
    assert_eq!(get(&addr, &next, &staff).await.status, 400);

    let first = get(&addr, "/orders?status=PLACED&limit=2", &staff).await;
    let cursor = first.body["nextCursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    let next = format!("/orders?status=PLACED&limit=2&cursor={cursor}");
    assert_eq!(get(&addr, &next, &staff).await.status, 200);
    assert_eq!(get(&addr, &next, &other_staff).await.status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_contract_is_served_as_json_without_a_token() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let reply = http(&addr, "GET", "/openapi.json", None, "").await;
    assert_eq!(reply.status, 200);
    assert!(reply.head.contains("content-type: application/json"));
    assert_eq!(
        reply.body,
        local_dev::openapi::document().expect("api/openapi.yaml")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_scope_makes_staff_only_of_a_known_machine_client() {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let issuer = issuer();
    let header = issuer.header();
    let sign = |claims: Value| issuer.sign(&header, &claims).expect("token");
    // What an external provider with RBAC off issues a user who asks for the scope.
    let user = sign(with(
        json!({"sub": "c1", "scope": "openid store/admin", "azp": "spa-client"}),
    ));
    let reply = get(&addr, "/orders?status=PLACED", &user).await;
    assert_eq!(reply.status, 403, "{:?}", reply.body);
    assert_eq!(get(&addr, "/customers/c2", &user).await.status, 403);
    // The machine client the stack trusts (STAFF_CLIENT_IDS; the tests': exampleclientid).
    let machine = sign(with(json!({
        "sub": "machine-1", "aud": null, "client_id": LOCAL_AUDIENCE,
        "azp": "exampleclientid", "scope": "store/admin",
    })));
    let reply = get(&addr, "/orders?status=PLACED", &machine).await;
    assert_eq!(
        reply.status, 403,
        "client_id is the audience here, not a known client"
    );
    let machine = sign(with(
        json!({"sub": "machine-1", "azp": "exampleclientid", "scope": "store/admin"}),
    ));
    assert_eq!(
        get(&addr, "/orders?status=PLACED", &machine).await.status,
        200
    );
}
