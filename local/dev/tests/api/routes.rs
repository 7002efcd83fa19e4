//! Every route of template.yaml, tried with every kind of caller: no token, another customer,
//! the customer the request is about, staff, and a known machine client with the admin scope.
//! What each may do comes from the one route table (`shared::http::routes`), which dispatch
//! enforces; the requests are the routes' own sample events (`events/`), each on a fresh copy
//! of the sample data, so a write one caller made is never what another is refused for.

use local_dev::routes::{self, Route};
use local_engine::testing::TEST_WEBHOOK_SECRET;
use local_engine::testing::{TestApp, from_event_file};
use local_engine::{gateway, template};
use serde_json::{Value, json};
use shared::domain::access::{Caller, STAFF_GROUP};
use shared::domain::ids::OrderId;
use shared::http::routes::{Admits, ROUTES};
use shared::http::signature::sign;

use crate::server::{customer, http_with, issuer, serve, staff, with};

/// The kinds of caller every route is tried with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    NoToken,
    AnotherCustomer,
    TheCustomer,
    Staff,
    MachineClient,
}

const KINDS: [Kind; 5] = [
    Kind::NoToken,
    Kind::AnotherCustomer,
    Kind::TheCustomer,
    Kind::Staff,
    Kind::MachineClient,
];

/// A route's sample event as the request a client sends: method, target, headers, body.
struct Sample {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: String,
    path: Value,
}

/// The sample event of `route`: the one in `events/` whose routeKey is the route's (a binary
/// with several routes has one per route: `edit-cart.json`, `edit-cart-clear.json`, ...).
fn sample_event(route: &Route) -> Value {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("events/") {
        let path = entry.expect("entry").path();
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(event) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if event["routeKey"] == route.key() {
            found.push(event);
        }
    }
    assert_eq!(
        found.len(),
        1,
        "{}: one sample event in events/",
        route.key()
    );
    found.remove(0)
}

fn sample(route: &Route) -> Sample {
    let event = sample_event(route);
    let query = event["rawQueryString"].as_str().unwrap_or_default();
    let raw_path = event["rawPath"].as_str().expect("rawPath");
    let target = if query.is_empty() {
        raw_path.to_owned()
    } else {
        format!("{raw_path}?{query}")
    };
    let mut headers: Vec<(String, String)> = ["idempotency-key"]
        .iter()
        .filter_map(|name| {
            event["headers"][*name]
                .as_str()
                .map(|v| ((*name).to_owned(), v.to_owned()))
        })
        .collect();
    let mut body = event["body"].as_str().unwrap_or_default().to_owned();
    if event["headers"]["stripe-signature"].is_string() {
        // Signed again now, as the provider signs each delivery (good for 300 s).
        let now = chrono::Utc::now().timestamp();
        let signature = sign(TEST_WEBHOOK_SECRET, now, body.as_bytes());
        headers.push(("stripe-signature".to_owned(), signature));
    }
    if route.key() == "PATCH /orders/{orderId}" {
        // What an order's owner may ask of it: the route admits them, and shipping (the
        // sample's) is a rule about the move, not the route (a_customer_may_cancel_...).
        body = r#"{"status":"CANCELLED"}"#.to_owned();
    }
    Sample {
        method: route.method.clone(),
        target,
        headers,
        body,
        path: event["pathParameters"].clone(),
    }
}

/// The customer a request is about: the one its path names, or the owner of the order it
/// names, or (for the catalog and staff's routes) c1.
async fn the_customer(app: &TestApp, sample: &Sample) -> String {
    if let Some(id) = sample.path["customerId"].as_str() {
        return id.to_owned();
    }
    if let Some(order) = sample.path["orderId"].as_str() {
        let staff = Caller::new("checker", [STAFF_GROUP], [], false);
        let details = app
            .direct_store()
            .get_order(&OrderId::parse(order).expect("id"), &staff)
            .await
            .expect("read")
            .expect("the sample order exists");
        return details.order.customer_id.as_str().to_owned();
    }
    "c1".to_owned()
}

fn token(kind: Kind, the_customer: &str) -> Option<String> {
    let other = if the_customer == "c2" { "c3" } else { "c2" };
    match kind {
        Kind::NoToken => None,
        Kind::AnotherCustomer => Some(customer(other)),
        Kind::TheCustomer => Some(customer(the_customer)),
        Kind::Staff => Some(staff()),
        Kind::MachineClient => {
            let claims =
                json!({"sub": "machine-1", "azp": "exampleclientid", "scope": "store/admin"});
            Some(
                issuer()
                    .sign(&issuer().header(), &with(claims))
                    .expect("token"),
            )
        }
    }
}

/// The status the route table documents for `kind`, given the status an admitted caller gets.
fn documented(admits: Admits, kind: Kind, admitted: u16) -> u16 {
    match (kind, admits) {
        // No authorizer: the provider's signature admits the call, whoever holds a token.
        (_, Admits::ProviderSignature) => admitted,
        // No authorizer: anyone, a token or none.
        (_, Admits::Anyone) => admitted,
        (Kind::NoToken, _) => 401,
        (Kind::Staff | Kind::MachineClient, _) => admitted,
        (Kind::TheCustomer, Admits::Staff) => 403,
        (Kind::TheCustomer, _) => admitted,
        (Kind::AnotherCustomer, Admits::AnyCaller) => admitted,
        (Kind::AnotherCustomer, Admits::PathCustomer | Admits::Staff) => 403,
        // Another customer's order is not said to exist.
        (Kind::AnotherCustomer, Admits::OrderOwner) => 404,
    }
}

/// `route`'s sample request from `kind`, on a fresh copy of the sample data.
async fn try_route(route: &Route, kind: Kind) -> (u16, Value) {
    let app = TestApp::seeded().await.expect("app");
    let addr = serve(&app).await;
    let sample = sample(route);
    let who = the_customer(&app, &sample).await;
    let headers: Vec<(&str, &str)> = sample
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let reply = http_with(
        &addr,
        &sample.method,
        &sample.target,
        token(kind, &who).as_deref(),
        &headers,
        &sample.body,
    )
    .await;
    (reply.status, reply.body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_admits_exactly_the_callers_its_line_in_the_route_table_names() {
    let routes = routes::from_template(&template::parse().expect("template")).expect("routes");
    assert_eq!(
        routes.len(),
        ROUTES.len(),
        "a template route without a line"
    );
    for route in &routes {
        let admits = shared::http::routes::find(&route.key())
            .unwrap_or_else(|| panic!("{} has no line in the route table", route.key()))
            .admits;
        let (admitted, body) = try_route(route, Kind::Staff).await;
        // The sample data's orders were placed without payment: a refund of one is refused
        // for what it asks (its problem says so), past who asks.
        // The sample data's products have no pictures (their objects would not be in the
        // bucket): removing the sample's is refused for what it names, past who asks.
        let refused_for_what = (route.key() == "POST /orders/{orderId}/refunds"
            && body["type"] == "/problems/refund-refused")
            || (route.key() == "DELETE /products/{productId}/media/{mediaId}"
                && body["type"] == "/problems/not-found");
        assert!(
            (200..300).contains(&admitted) || refused_for_what,
            "{}: staff got {admitted} {body}",
            route.key()
        );
        for kind in KINDS {
            let (status, body) = try_route(route, kind).await;
            // What the sample asks is refused the order's customer, past who asks: its move
            // (APPROVED) is staff's (the customer's own is CANCELED), and the units it returns
            // were delivered before the customer's window (staff may record them).
            let refused_the_customer = match (kind, route.key().as_str()) {
                (Kind::TheCustomer, "PATCH /orders/{orderId}/returns/{returnId}") => body["detail"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("only staff may"))
                    .then_some(403),
                (Kind::TheCustomer, "POST /orders/{orderId}/returns") => {
                    (body["type"] == "/problems/lines-refused").then_some(409)
                }
                _ => None,
            };
            assert_eq!(
                status,
                refused_the_customer.unwrap_or_else(|| documented(admits, kind, admitted)),
                "{} ({admits:?}) for {kind:?}: {body}",
                route.key()
            );
            if status == 403 {
                assert_eq!(body["type"], "/problems/forbidden", "{}", route.key());
            }
        }
    }
}

/// Without the authorizer in front (a route deployed without one, a hand-made event), the
/// function itself refuses a request that carries no caller, before its handler runs; but on a
/// storefront route, which has no authorizer by design, it answers what customers see.
#[tokio::test]
async fn a_function_refuses_a_request_without_a_caller_whatever_its_route() {
    let routes = routes::from_template(&template::parse().expect("template")).expect("routes");
    for route in &routes {
        let app = TestApp::seeded().await.expect("app");
        let mut event = sample_event(route);
        event["requestContext"]
            .as_object_mut()
            .expect("context")
            .remove("authorizer");
        let req = gateway::request(&event, &Default::default()).expect("request");
        let before = app.requests.total();
        let response = local_dev::invoke(
            &route.binary,
            &local_dev::Services::for_test(&app.store),
            req,
        )
        .await
        .expect("known binary");
        // The webhook needs no caller: its sample's signature, long stale, is what it refuses.
        // The storefront's routes need none either: they answer what customers see.
        let refused = match shared::http::routes::find(&route.key()).map(|r| r.admits) {
            Some(shared::http::routes::Admits::ProviderSignature) => 400,
            Some(shared::http::routes::Admits::Anyone) => 200,
            _ => 401,
        };
        assert_eq!(response.status(), refused, "{}", route.key());
        if refused != 200 {
            assert_eq!(
                app.requests.total(),
                before,
                "{}: reached DynamoDB",
                route.key()
            );
        }
    }
    // With the claims the sample carries, the same event gets past authorization.
    let app = TestApp::seeded().await.expect("app");
    let file = format!(
        "{}/../../events/get-customer.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let req = from_event_file(&file).expect("event");
    let response = local_dev::invoke(
        "get-customer",
        &local_dev::Services::for_test(&app.store),
        req,
    )
    .await
    .expect("known binary");
    assert_eq!(response.status(), 200);
}
