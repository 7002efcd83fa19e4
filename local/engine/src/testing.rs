//! What the tests share: a fresh engine and store per test, and requests made the way API
//! Gateway makes them.

use std::collections::BTreeMap;

use lambda_http::http::{HeaderMap, Method};
use lambda_http::{Body, Request, Response};
use serde_json::{Map, Value, json};
use shared::Store;
use shared::domain::access::{Caller, STAFF_GROUP};
use shared::domain::ids::{OrderId, ProductId, Sku};
use shared::domain::money::Money;
use shared::domain::product::{self, ProductSpec, ProductStatus, RawProduct, RawVariant};
use shared::domain::time::Timestamp;
use shared::http::gateway::StaffClients;

use crate::faults::Faults;
use crate::gateway::{self, Call};
use crate::{Engine, Error, LOCAL_TABLE, RequestCounter, seed};

/// One test's own engine, table and store; its client counts requests.
pub struct TestApp {
    pub engine: Engine,
    pub store: Store,
    pub requests: RequestCounter,
}

impl TestApp {
    /// An empty table.
    pub async fn empty() -> Result<Self, Error> {
        let engine = Engine::in_memory().await?;
        let (client, requests) = engine.counting_client();
        let store = Store::new(client, LOCAL_TABLE).with_media(signing_only_bucket());
        Ok(Self {
            engine,
            store,
            requests,
        })
    }

    /// The sample data of `make dev`, written as the source design's boto3 code writes it.
    pub async fn seeded() -> Result<Self, Error> {
        let app = Self::empty().await?;
        seed::seed_if_empty(&app.engine.client(), LOCAL_TABLE).await?;
        Ok(app)
    }

    /// The sample data, and a store whose requests pass through `faults` (the seed, and what a
    /// test reads to check the table, go to the engine directly).
    pub async fn seeded_with_faults() -> Result<(Self, Faults), Error> {
        let engine = Engine::in_memory().await?;
        seed::seed_if_empty(&engine.client(), LOCAL_TABLE).await?;
        let faults = Faults::default();
        let (client, requests) = engine.faulty_client(&faults);
        let app = Self {
            store: Store::new(client, LOCAL_TABLE).with_media(signing_only_bucket()),
            engine,
            requests,
        };
        Ok((app, faults))
    }

    /// The sample data, and a store whose requests meet DynamoDB's limits as `model` has them
    /// ([`crate::limits`]; the seed, and what a test reads to check the table, go to the engine
    /// directly).
    pub async fn seeded_with_limits(
        model: crate::limits::Model,
    ) -> Result<(Self, crate::limits::Limits), Error> {
        let engine = Engine::in_memory().await?;
        seed::seed_if_empty(&engine.client(), LOCAL_TABLE).await?;
        let limits = crate::limits::Limits::new(engine.database(), model)?;
        let (client, requests) = engine.limited_client(&limits);
        let app = Self {
            store: Store::new(client, LOCAL_TABLE).with_media(signing_only_bucket()),
            engine,
            requests,
        };
        Ok((app, limits))
    }

    /// The units of `sku` the orders hold (their line items), and how many orders hold it: the
    /// table read whole.
    pub async fn held(&self, sku: &str) -> (u64, usize) {
        let items = crate::scan_all(&self.engine.client(), LOCAL_TABLE)
            .await
            .expect("the table");
        let text = |item: &shared::dynamo::codec::Item, name: &str| {
            item.get(name)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default()
        };
        use shared::dynamo::entities::line_item;
        let sku = Sku::parse(sku).unwrap_or_else(|err| panic!("sku {sku}: {err}"));
        let line = line_item::sk(&sku);
        let quantities: Vec<u64> = items
            .iter()
            .filter(|item| {
                line_item::parse_pk(&text(item, "PK")).is_ok() && text(item, "SK") == line
            })
            .map(|item| {
                let quantity = item.get("quantity").and_then(|v| v.as_n().ok());
                quantity.and_then(|n| n.parse().ok()).expect("a quantity")
            })
            .collect();
        (quantities.iter().sum(), quantities.len())
    }

    /// A store on the engine with no faults and no counting: for a test's own checks.
    pub fn direct_store(&self) -> Store {
        Store::new(self.engine.client(), LOCAL_TABLE)
    }

    /// `sku`'s stock as stored (the variant must exist).
    pub async fn stock(&self, sku: &str) -> u64 {
        let sku = Sku::parse(sku).unwrap_or_else(|err| panic!("sku {sku}: {err}"));
        let variant = self.direct_store().variant_whole(&sku, true).await;
        match variant {
            Ok(Some(variant)) => variant.stock,
            other => panic!("variant {sku}: {other:?}"),
        }
    }

    /// The status `order`'s header holds (the order must exist).
    pub async fn status_of(&self, order: &str) -> String {
        let id = OrderId::parse(order).unwrap_or_else(|err| panic!("order {order}: {err}"));
        let staff = Caller::new("checker", [STAFF_GROUP], [], false);
        match self.direct_store().get_order(&id, &staff).await {
            Ok(Some(details)) => details.order.status.as_str().to_owned(),
            other => panic!("order {order}: {other:?}"),
        }
    }
}

/// Who a test request comes from: the claims of the token a JWT authorizer verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who<'a> {
    /// A member of the `staff` group.
    Staff,
    /// A machine client holding the `store/admin` scope.
    Admin,
    /// The customer with this ID (the token's `sub`).
    Customer(&'a str),
    /// No authorizer: a route deployed without one.
    Nobody,
}

impl Who<'_> {
    /// The token's claims, as Cognito issues them.
    pub fn claims(self) -> Option<Map<String, Value>> {
        let (sub, extra) = match self {
            Who::Staff => (
                "staff-1",
                json!({"cognito:groups": ["staff"], "scope": "aws.cognito.signin.user.admin"}),
            ),
            Who::Admin => ("machine-1", json!({"scope": "store/admin"})),
            Who::Customer(id) => (id, json!({"scope": "aws.cognito.signin.user.admin"})),
            Who::Nobody => return None,
        };
        let mut claims = json!({
            "sub": sub,
            "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_example",
            "client_id": "exampleclientid",
            "token_use": "access",
            "auth_time": 1791470100,
            "exp": 1791473712,
            "iat": 1791470112,
        });
        if let (Value::Object(claims), Value::Object(extra)) = (&mut claims, extra) {
            claims.extend(extra);
        }
        claims.as_object().cloned()
    }
}

/// A GET from `who` on `route_key` (`GET /customers/{customerId}`) for `path`, with `query` as
/// raw query string, turned into the handler's request through an API Gateway payload 2.0
/// event.
pub fn get(who: Who<'_>, route_key: &str, path: &str, query: &str) -> Request {
    call(who, route_key, path, query, &[], b"")
}

/// A JSON request from `who` with `body` on `route_key` (`POST /customers/{customerId}/orders`),
/// and `headers` besides `content-type: application/json`.
pub fn send_json(
    who: Who<'_>,
    route_key: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Request {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    call(who, route_key, path, "", &all, body.as_bytes())
}

/// `PUT /customers/{customer}` from staff: a profile named `name`, its email
/// `<customer>@example.com`.
pub fn put_profile(customer: &str, name: &str) -> Request {
    send_json(
        Who::Staff,
        "PUT /customers/{customerId}",
        &format!("/customers/{customer}"),
        &[],
        &json!({"name": name, "email": format!("{customer}@example.com")}).to_string(),
    )
}

/// `PATCH /orders/{orderId}` from `who`, moving `order` to `status` (`"SHIPPED"`, ...).
pub fn change_status(who: Who<'_>, order: &str, status: &str) -> Request {
    send_json(
        who,
        "PATCH /orders/{orderId}",
        &format!("/orders/{order}"),
        &[],
        &format!(r#"{{"status":"{status}"}}"#),
    )
}

/// An `Idempotency-Key` no other request of this process has sent: what a client sends with
/// each new request that creates something.
pub fn fresh_key() -> String {
    static SENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("test-{}-{n}", std::process::id())
}

/// `POST /orders/{orderId}/fulfilments` from `who`: `lines` of `order` shipped (`[("sku-1",
/// 2)]`), with `tracking` as JSON fields to add (`r#""carrier":"DHL""#`, or empty), under a
/// [`fresh_key`].
pub fn ship(who: Who<'_>, order: &str, lines: &[(&str, u32)], tracking: &str) -> Request {
    let lines: Vec<String> = lines
        .iter()
        .map(|(sku, quantity)| format!(r#"{{"sku":"{sku}","quantity":{quantity}}}"#))
        .collect();
    let extra = if tracking.is_empty() {
        String::new()
    } else {
        format!(",{tracking}")
    };
    send_json(
        who,
        "POST /orders/{orderId}/fulfilments",
        &format!("/orders/{order}/fulfilments"),
        &[("idempotency-key", &fresh_key())],
        &format!(r#"{{"lines":[{}]{extra}}}"#, lines.join(",")),
    )
}

/// `PATCH /orders/{orderId}/fulfilments/{fulfilmentId}` from `who` with `body`.
pub fn update_fulfilment(who: Who<'_>, order: &str, fulfilment: &str, body: &str) -> Request {
    send_json(
        who,
        "PATCH /orders/{orderId}/fulfilments/{fulfilmentId}",
        &format!("/orders/{order}/fulfilments/{fulfilment}"),
        &[],
        body,
    )
}

/// Any request from `who` on `route_key`, through an API Gateway payload 2.0 event.
pub fn call(
    who: Who<'_>,
    route_key: &str,
    path: &str,
    query: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Request {
    let (method, template) = route_key.split_once(' ').unwrap_or(("GET", route_key));
    let method = Method::from_bytes(method.as_bytes()).unwrap_or(Method::GET);
    let params = path_params(template, path);
    let mut header_map = HeaderMap::new();
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            lambda_http::http::HeaderName::from_bytes(name.as_bytes()),
            lambda_http::http::HeaderValue::from_str(value),
        ) {
            header_map.append(name, value);
        }
    }
    let claims = who.claims();
    let call = Call {
        method: &method,
        path,
        raw_query: query,
        headers: &header_map,
        body,
        claims: claims.as_ref(),
    };
    let event = gateway::event(route_key, &call, &params);
    gateway::request(&event, &StaffClients::from_env())
        .unwrap_or_else(|err| panic!("event for {path}: {err}"))
}

/// Every item of the table (tests only: the store itself never scans).
pub async fn all_items(
    app: &TestApp,
) -> Vec<std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>> {
    crate::scan_all(&app.engine.client(), LOCAL_TABLE)
        .await
        .unwrap_or_else(|err| panic!("scan: {err:?}"))
}

/// The request the Lambda makes of a saved event file's JSON.
pub fn from_event_file(path: &str) -> Result<Request, Error> {
    from_event_text(&std::fs::read_to_string(path)?)
}

/// The request an API Gateway event's JSON `text` describes.
pub fn from_event_text(text: &str) -> Result<Request, Error> {
    Ok(shared::http::gateway::request_from_json(
        text,
        &StaffClients::from_env(),
    )?)
}

/// A sample event of an error path: `events/cases/<binary>.<status>.<what>.json`, which the
/// function behind `binary` answers with `status`.
#[derive(Debug, Clone)]
pub struct Case {
    /// The binary that serves the event's route.
    pub binary: String,
    /// The status it answers.
    pub status: u16,
    /// What the case is (`unknown-order`, ...).
    pub what: String,
    /// The event file.
    pub path: std::path::PathBuf,
}

/// Every error-path sample event in `events/cases/`, sorted by file name; a file named otherwise
/// is an error, so that a case is never skipped unseen.
pub fn cases() -> Result<Vec<Case>, Error> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events/cases");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let parts: Vec<&str> = name.split('.').collect();
        let [binary, status, what, "json"] = parts[..] else {
            return Err(format!("{name}: not <binary>.<status>.<what>.json").into());
        };
        found.push(Case {
            binary: binary.to_owned(),
            status: status
                .parse()
                .map_err(|_| format!("{name}: {status} is no status"))?,
            what: what.to_owned(),
            path: path.clone(),
        });
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// `{name}` segments of `template` matched against `path`, as API Gateway does.
pub fn path_params(template: &str, path: &str) -> BTreeMap<String, String> {
    template
        .split('/')
        .zip(path.split('/'))
        .filter_map(|(t, p)| {
            let name = t.strip_prefix('{')?.strip_suffix('}')?;
            Some((name.to_owned(), p.to_owned()))
        })
        .collect()
}

/// A response header's value.
pub fn header(response: &Response<Body>, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Status, content type and JSON body of a response.
pub fn parts(response: Response<Body>) -> (u16, String, Value) {
    parts_of(&response)
}

fn parts_of(response: &Response<Body>) -> (u16, String, Value) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, content_type, json_of(response.body()))
}

/// A body's JSON; `Null` when it is empty or not JSON.
fn json_of(body: &Body) -> Value {
    match body {
        Body::Text(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        Body::Binary(bytes) => serde_json::from_slice(bytes).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

/// `handler` answering `req` as the Lambda's bootstrap does (`shared::http::serve::dispatch`),
/// the answer held to the contract: a status, content type or body that `api/openapi.yaml`
/// does not declare for the request's route, or a JSON body it accepted that the route's
/// `requestBody` does not, fails the test that sent it
/// ([`crate::contract`]); and each request the handler sends held to its route's binary's
/// declaration ([`crate::declared`]).
pub async fn dispatch<'a, D: ?Sized, F, Fut>(
    deps: &'a D,
    req: Request,
    handler: F,
) -> Response<Body>
where
    F: FnOnce(&'a D, Request) -> Fut,
    Fut: std::future::Future<Output = shared::http::HttpResult> + 'a,
{
    let route = req
        .extensions()
        .get::<shared::http::routes::RouteKey>()
        .map(|key| key.0.clone());
    let binary = route
        .as_deref()
        .and_then(shared::http::routes::find)
        .map(|route| route.binary);
    let sent = json_of(req.body());
    // Boxed: a handler's future is deep, and the scope and the contract
    // check around it would push a spawned test past the compiler's layout
    // depth. A box stops the layout at a pointer; this is test code only.
    let serving = Box::pin(shared::http::serve::dispatch(deps, req, handler));
    let response = match binary {
        Some(binary) => crate::declared::as_function(binary, serving).await,
        None => serving.await,
    };
    if let Some(route) = route {
        let (status, content_type, body) = parts_of(&response);
        let mut broken = crate::contract::violations(&route, status, &content_type, &body);
        broken.extend(crate::contract::request_violations(
            &route, status, &sent, &body,
        ));
        assert!(
            broken.is_empty(),
            "the exchange breaks api/openapi.yaml:\n  {}\n{body}",
            broken.join("\n  ")
        );
    }
    response
}

/// The `orderId`s of a listing body's items, in order.
pub fn order_ids(body: &Value) -> Vec<String> {
    body["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|o| o["orderId"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Puts every product an order body names (`{"items":[{"sku","price",...}]}`) into the
/// catalog at that price, with ample stock, through the store's own catalog writes (on the
/// engine's uncounted client, so tests still count only their own requests), so that tests not
/// about the catalog can place the orders they describe. Creation is serialised: racing first
/// writes of one product would only be retried.
pub async fn stock_catalog(engine: &Engine, body: &str) {
    let store = Store::new(engine.client(), LOCAL_TABLE);
    let store = &store;
    static CATALOG: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _one_at_a_time = CATALOG.lock().await;
    let body: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    for line in body["items"].as_array().into_iter().flatten() {
        let (Some(sku), Some(price)) = (line["sku"].as_str(), line["price"].as_str()) else {
            continue;
        };
        let (Ok(sku), Ok(price)) = (Sku::parse(sku), product::price(price)) else {
            continue;
        };
        let current = store.get_variant(&sku, true).await.expect("read variant");
        if current.as_ref().map(|v| v.price) != Some(price) {
            let title = format!("Test product {sku}");
            store
                .put_product(&single_variant(&sku, &title, price), &staff())
                .await
                .expect("product");
        }
        if current.is_none_or(|p| p.stock < 100_000) {
            store.adjust_stock(&sku, 1_000_000).await.expect("stock");
        }
    }
}

/// A media bucket that signs forms and URLs and reaches nothing (its endpoint is a closed
/// port): what a test's store has unless it puts moto's S3 in its place
/// ([`crate::bus::LocalBus::media_bucket`]).
pub fn signing_only_bucket() -> shared::media::MediaBucket {
    shared::media::MediaBucket::new(
        "us-east-1",
        shared::media::Credentials::new("test", "test", None, None, "test"),
        Some("http://127.0.0.1:9".to_owned()),
        "test-media".to_owned(),
    )
}

/// A staff caller, for a test's direct calls of the store.
pub fn staff() -> Caller {
    Caller::new("staff-test", [STAFF_GROUP], [], false)
}

/// A published product of one variant, `sku`, titled `title`, at `price`: the product's ID is
/// the SKU (as the sample catalog's products are).
pub fn single_variant(sku: &Sku, title: &str, price: Money) -> ProductSpec {
    let raw = RawProduct {
        title: title.to_owned(),
        description: String::new(),
        status: ProductStatus::Published,
        category_ids: Vec::new(),
        options: Vec::new(),
        variants: vec![RawVariant {
            sku: sku.clone(),
            options: Default::default(),
            price,
            weight_grams: 0,
        }],
    };
    let id = ProductId::parse(sku.as_str()).expect("a SKU is a product ID");
    ProductSpec::check(id, raw, Timestamp::now()).expect("a valid product")
}

/// The catalog's requests, as its tests send them.
pub mod catalog {
    use super::{Request, Who, get, send_json};

    /// `PUT /products/{productId}` with `body`.
    pub fn put_product(who: Who<'_>, product: &str, body: &str) -> Request {
        send_json(
            who,
            "PUT /products/{productId}",
            &format!("/products/{product}"),
            &[],
            body,
        )
    }

    /// `PUT /promotions/{promotionId}` with `body`, from staff.
    pub fn put_promotion(promotion: &str, body: &str) -> Request {
        send_json(
            Who::Staff,
            "PUT /promotions/{promotionId}",
            &format!("/promotions/{promotion}"),
            &[],
            body,
        )
    }

    /// The body of a published product of one variant, `sku`, titled `title`, at `price`.
    pub fn single_body(sku: &str, title: &str, price: &str) -> String {
        serde_json::json!({
            "title": title,
            "status": "PUBLISHED",
            "variants": [{"sku": sku, "options": {}, "price": price}],
        })
        .to_string()
    }

    /// `PUT /products/{productId}` of one published variant, `sku`, titled `title`, at
    /// `price`: the product's ID is the SKU.
    pub fn put_single(who: Who<'_>, sku: &str, title: &str, price: &str) -> Request {
        put_product(who, sku, &single_body(sku, title, price))
    }

    /// `POST /variants/{sku}/stock` adding `delta`.
    pub fn adjust_stock(who: Who<'_>, sku: &str, delta: i64) -> Request {
        send_json(
            who,
            "POST /variants/{sku}/stock",
            &format!("/variants/{sku}/stock"),
            &[],
            &format!(r#"{{"delta":{delta}}}"#),
        )
    }

    /// `GET /products/{productId}`.
    pub fn get_product(who: Who<'_>, product: &str) -> Request {
        get(
            who,
            "GET /products/{productId}",
            &format!("/products/{product}"),
            "",
        )
    }

    /// `GET /variants/{sku}`.
    pub fn get_variant(who: Who<'_>, sku: &str) -> Request {
        get(who, "GET /variants/{sku}", &format!("/variants/{sku}"), "")
    }

    /// `GET /products` with `query`.
    pub fn list_products(who: Who<'_>, query: &str) -> Request {
        get(who, "GET /products", "/products", query)
    }
}

/// A cursor carrying `key`, sealed for `who` as a listing would seal it: what a client can forge
/// by hand (cursors carry no secret; each listing checks the key itself).
pub fn forged_cursor(who: Who<'_>, key: &[(&str, &str)]) -> String {
    let key: shared::dynamo::codec::Item = key
        .iter()
        .map(|(name, value)| {
            (
                (*name).to_owned(),
                aws_sdk_dynamodb::types::AttributeValue::S((*value).to_owned()),
            )
        })
        .collect();
    // The caller exactly as a request from `who` reads it, through the authorizer's claims.
    let request = get(who, "GET /", "/", "");
    let tag = request
        .extensions()
        .get::<shared::domain::access::Caller>()
        .map(shared::domain::access::Caller::cursor_tag)
        .unwrap_or_default();
    shared::dynamo::cursor::encode(&tag, &key).unwrap_or_else(|err| panic!("cursor: {err}"))
}

/// A sort key of `ORDER#<time>#o100` whose time carries 1,100 zeros of a fraction: it parses as
/// RFC 3339, and is over DynamoDB's 1,024-byte key limit.
pub fn oversized_order_sk() -> String {
    format!("ORDER#2026-10-08T14:30:00.{}Z#o100", "0".repeat(1100))
}

/// The source design's own reads (access patterns 2, 3 and 4), sent as its boto3 code sends
/// them — one page, `begins_with` on the sort key — for tests that show the items this store
/// writes are found by the code it replaces.
/// Requests of the returns' routes (`docs/fulfilment.md#returns`).
pub mod returns {
    use super::{Request, Who, get, send_json};

    /// `POST /orders/{orderId}/returns` of `lines` from `who`, under `key` (`""`: a
    /// [`fresh_key`](super::fresh_key)).
    pub fn request(who: Who<'_>, order: &str, key: &str, lines: &[(&str, u32)]) -> Request {
        let fresh;
        let key = if key.is_empty() {
            fresh = super::fresh_key();
            fresh.as_str()
        } else {
            key
        };
        let headers = [("idempotency-key", key)];
        let lines: Vec<String> = lines
            .iter()
            .map(|(sku, quantity)| format!(r#"{{"sku":"{sku}","quantity":{quantity}}}"#))
            .collect();
        send_json(
            who,
            "POST /orders/{orderId}/returns",
            &format!("/orders/{order}/returns"),
            &headers,
            &format!(r#"{{"lines":[{}],"reason":"too small"}}"#, lines.join(",")),
        )
    }

    /// `PATCH /orders/{orderId}/returns/{returnId}` to `status` from `who`.
    pub fn set(who: Who<'_>, order: &str, id: &str, status: &str) -> Request {
        send_json(
            who,
            "PATCH /orders/{orderId}/returns/{returnId}",
            &format!("/orders/{order}/returns/{id}"),
            &[],
            &format!(r#"{{"status":"{status}"}}"#),
        )
    }

    /// `POST /orders/{orderId}/returns/{returnId}/receipt` by staff: `lines` as JSON.
    pub fn receipt(order: &str, id: &str, lines: &str, refund: bool) -> Request {
        send_json(
            Who::Staff,
            "POST /orders/{orderId}/returns/{returnId}/receipt",
            &format!("/orders/{order}/returns/{id}/receipt"),
            &[],
            &format!(r#"{{"lines":{lines},"refund":{refund}}}"#),
        )
    }

    /// `GET /returns?status=` by staff, with `query` after it (`&limit=…`).
    pub fn list(status: &str, query: &str) -> Request {
        get(
            Who::Staff,
            "GET /returns",
            "/returns",
            &format!("status={status}{query}"),
        )
    }
}

pub mod source_design {
    use std::collections::HashMap;

    use aws_sdk_dynamodb::Client;
    use aws_sdk_dynamodb::types::AttributeValue;
    use shared::domain::ids::{CustomerId, OrderId};
    use shared::domain::status::OrderStatus;
    use shared::dynamo::entities::{line_item, order_listing};
    use shared::dynamo::keys;

    use crate::LOCAL_TABLE;

    type Item = HashMap<String, AttributeValue>;

    /// Pattern 2: `Key("PK").eq(CUSTOMER#id) & Key("SK").begins_with("ORDER#")`, newest first.
    pub async fn customer_orders(client: &Client, customer: &str) -> Vec<Item> {
        let customer = CustomerId::parse(customer).expect("a customer ID");
        let pk = order_listing::pk(&customer);
        in_partition(client, pk, order_listing::SK_PREFIX, false).await
    }

    /// Pattern 3: `Key("PK").eq(ORDER#id) & Key("SK").begins_with("ITEM#")`.
    pub async fn order_items(client: &Client, order: &str) -> Vec<Item> {
        let order = OrderId::parse(order).expect("an order ID");
        let pk = line_item::pk(&order);
        in_partition(client, pk, line_item::SK_PREFIX, true).await
    }

    /// Pattern 4: `Key("GSI1PK").eq(STATUS#status)` on GSI1.
    pub async fn orders_with_status(client: &Client, status: OrderStatus) -> Vec<Item> {
        client
            .query()
            .table_name(LOCAL_TABLE)
            .index_name(keys::GSI1)
            .key_condition_expression("GSI1PK = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(order_listing::gsi1pk(status, 0)))
            .send()
            .await
            .unwrap_or_else(|err| panic!("the source design's GSI1 query: {err:?}"))
            .items
            .unwrap_or_default()
    }

    async fn in_partition(client: &Client, pk: String, prefix: &str, forward: bool) -> Vec<Item> {
        client
            .query()
            .table_name(LOCAL_TABLE)
            .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
            .expression_attribute_values(":pk", AttributeValue::S(pk))
            .expression_attribute_values(":sk", AttributeValue::S(prefix.to_owned()))
            .scan_index_forward(forward)
            .send()
            .await
            .unwrap_or_else(|err| panic!("the source design's query: {err:?}"))
            .items
            .unwrap_or_default()
    }
}

/// The endpoint secret the tests' webhook calls are signed with.
pub const TEST_WEBHOOK_SECRET: &str = "whsec_test_local_only";

/// The endpoint secrets of a test's webhook: [`TEST_WEBHOOK_SECRET`].
pub fn webhook_secrets() -> shared::http::signature::WebhookSecrets {
    shared::http::signature::WebhookSecrets::parse(TEST_WEBHOOK_SECRET)
        .unwrap_or_else(|| unreachable!("the test secret is not empty"))
}

/// Checkout and payment, as their tests drive them.
pub mod payments {
    use super::{Request, Who, call, send_json};
    use shared::domain::payment::succeeded_event_body;

    /// What checkout's 201 `body` says of the hold: its order, its amount in the smallest unit,
    /// and its PaymentIntent.
    pub fn held(body: &serde_json::Value) -> (String, i64, String) {
        let text = |value: &serde_json::Value| value.as_str().expect("a text").to_owned();
        (
            text(&body["orderId"]),
            body["payment"]["amount"].as_i64().expect("an amount"),
            text(&body["payment"]["paymentIntentId"]),
        )
    }

    /// `PUT /customers/{customer}/cart/items/{sku}` holding `quantity`.
    pub fn hold_line(customer: &str, sku: &str, quantity: u32) -> Request {
        send_json(
            Who::Customer(customer),
            "PUT /customers/{customerId}/cart/items/{sku}",
            &format!("/customers/{customer}/cart/items/{sku}"),
            &[],
            &format!(r#"{{"quantity":{quantity}}}"#),
        )
    }

    /// `POST /customers/{customer}/checkout`, with an Idempotency-Key when given.
    pub fn checkout(customer: &str, key: Option<&str>) -> Request {
        let headers: Vec<(&str, &str)> = key.map(|k| ("idempotency-key", k)).into_iter().collect();
        call(
            Who::Customer(customer),
            "POST /customers/{customerId}/checkout",
            &format!("/customers/{customer}/checkout"),
            "",
            &headers,
            b"",
        )
    }

    /// `POST /customers/{customer}/checkout` with a JSON `body` (an address, a way to ship,
    /// codes, the total expected), with an Idempotency-Key when given.
    pub fn checkout_with_body(customer: &str, key: Option<&str>, body: &str) -> Request {
        let headers: Vec<(&str, &str)> = key.map(|k| ("idempotency-key", k)).into_iter().collect();
        send_json(
            Who::Customer(customer),
            "POST /customers/{customerId}/checkout",
            &format!("/customers/{customer}/checkout"),
            &headers,
            body,
        )
    }

    /// The same store, its checkouts holding their stock for a second only (its end rounded up
    /// to the whole second: ended once two have passed).
    pub fn briefly_held(store: &shared::Store) -> shared::Store {
        let second = shared::domain::checkout::HoldDuration::parse_minutes("0.0167");
        store
            .clone()
            .with_hold(second.unwrap_or_else(|err| unreachable!("{err}")))
    }

    /// The customer pays `intent` at the test's provider with a card that succeeds (its
    /// webhook event is the test's to deliver).
    pub fn pay_at_provider(intent: &str) {
        use crate::provider::{LOCAL_API_KEY, form_post};
        let base = super::provider().base().to_owned();
        let path = format!("/v1/payment_intents/{intent}");
        let card = [("payment_method", "pm_card_visa")];
        let (status, body) =
            form_post(&base, &path, Some(LOCAL_API_KEY), &card).expect("the provider");
        assert_eq!(status, 200, "{body}");
        let (status, body) = form_post(&base, &format!("{path}/confirm"), Some(LOCAL_API_KEY), &[])
            .expect("the provider");
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["status"], "succeeded", "{body}");
    }

    /// Unix seconds now.
    pub fn now() -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
    }

    /// The provider's `payment_intent.succeeded` of PaymentIntent `intent` for `order`, as
    /// its body.
    pub fn succeeded(
        event: &str,
        intent: &str,
        amount: i64,
        currency: &str,
        order: &str,
    ) -> String {
        succeeded_event_body(event, intent, amount, currency, order)
    }

    /// `POST /payments/webhook` with `body` and the `Stripe-Signature` header `signature`.
    pub fn webhook_with(body: &str, signature: &str) -> Request {
        call(
            Who::Nobody,
            "POST /payments/webhook",
            "/payments/webhook",
            "",
            &[
                ("content-type", "application/json"),
                ("stripe-signature", signature),
            ],
            body.as_bytes(),
        )
    }

    /// `POST /payments/webhook` with `body`, signed now with the tests' secret.
    pub fn webhook(body: &str) -> Request {
        webhook_with(body, &super::webhook_secrets().sign(now(), body.as_bytes()))
    }
}

/// The payment provider this test binary's checkouts ask: one localstripe per process, started
/// on first use (`LocalProvider::for_test`), shared by its tests (each PaymentIntent is the
/// test's own), ending with the process.
pub fn provider() -> payment_provider::Provider {
    static PROVIDER: std::sync::OnceLock<(
        crate::provider::LocalProvider,
        payment_provider::Provider,
    )> = std::sync::OnceLock::new();
    PROVIDER
        .get_or_init(|| {
            crate::provider::LocalProvider::for_test()
                .unwrap_or_else(|err| panic!("the test's payment provider: {err}"))
        })
        .1
        .clone()
}

/// `GET path` at this test binary's payment provider (`/v1/payment_intents/pi_…`): the object,
/// as the provider holds it now.
pub fn at_provider(path: &str) -> Value {
    let (status, body) = crate::provider::request(
        provider().base(),
        "GET",
        path,
        Some(crate::provider::LOCAL_API_KEY),
        &[],
    )
    .unwrap_or_else(|err| panic!("the test's payment provider: {err}"));
    assert_eq!(status, 200, "GET {path} at the provider: {body}");
    body
}
