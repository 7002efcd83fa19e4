//! Orders against the catalog: priced from it, stock taken in the order's transaction and given
//! back by a cancellation, races for the last units, a price changed mid-order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextRef;
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use local_engine::dynoxide::Database;
use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, change_status, parts, send_json};
use local_engine::testing::{single_variant, staff};
use local_engine::{LOCAL_TABLE, RequestCounter};
use serde_json::{Value, json};
use shared::Store;
use shared::domain::ids::Sku;
use shared::domain::product::price;

const ROUTE: &str = "POST /customers/{customerId}/orders";

/// `customer`'s order of `body`, placed directly by staff (a customer checks out instead).
async fn order(store: &Store, customer: &str, body: &str) -> (u16, Value) {
    let path = format!("/customers/{customer}/orders");
    let req = send_json(Who::Staff, ROUTE, &path, &[], body);
    let (status, _, body) = parts(dispatch(store, req, functions::place_order::handle).await);
    (status, body)
}

async fn stock_of(app: &TestApp, sku: &str) -> u64 {
    app.store
        .get_variant(&Sku::parse(sku).expect("sku"), true)
        .await
        .expect("read")
        .expect("variant")
        .stock
}

/// A product `sku` at `price` with `stock` units.
async fn product(app: &TestApp, sku: &str, at: &str, stock: i64) {
    let sku = Sku::parse(sku).expect("sku");
    let spec = single_variant(&sku, "Last of its kind", price(at).expect("price"));
    app.store
        .put_product(&spec, &staff())
        .await
        .expect("product");
    if stock > 0 {
        app.store.adjust_stock(&sku, stock).await.expect("stock");
    }
}

#[tokio::test]
async fn orders_are_priced_from_the_catalog_and_take_its_stock() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = order(
        &app.store,
        "c1",
        r#"{"items":[{"sku":"sku-1","quantity":3},{"sku":"sku-4","quantity":1}]}"#,
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["items"][0]["price"], "19.95");
    assert_eq!(body["items"][1]["price"], "99.99");
    assert_eq!(body["total"], "159.84");
    assert_eq!(stock_of(&app, "sku-1").await, 97);
    assert_eq!(stock_of(&app, "sku-4").await, 99);
}

#[tokio::test]
async fn unknown_products_missing_stock_and_stale_prices_are_named_and_take_nothing() {
    let app = TestApp::seeded().await.expect("app");
    for (body, status, kind, skus) in [
        (
            r#"{"items":[{"sku":"sku-1","quantity":1},{"sku":"nope","quantity":1},{"sku":"gone","quantity":1}]}"#,
            422,
            "/problems/unknown-product",
            json!(["nope", "gone"]),
        ),
        (
            r#"{"items":[{"sku":"sku-1","quantity":1},{"sku":"sku-2","quantity":101}]}"#,
            409,
            "/problems/out-of-stock",
            json!(["sku-2"]),
        ),
        (
            // The client expected 4.00 for sku-2; the catalog says 4.50.
            r#"{"items":[{"sku":"sku-1","quantity":1,"price":"19.95"},{"sku":"sku-2","quantity":1,"price":"4.00"}]}"#,
            409,
            "/problems/price-changed",
            json!(["sku-2"]),
        ),
    ] {
        let (got, problem) = order(&app.store, "c1", body).await;
        assert_eq!(got, status, "{body}: {problem}");
        assert_eq!(problem["type"], kind, "{problem}");
        assert_eq!(problem["skus"], skus, "{problem}");
    }
    assert_eq!(stock_of(&app, "sku-1").await, 100, "nothing was taken");
    assert_eq!(stock_of(&app, "sku-2").await, 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clients_racing_for_the_last_units_get_exactly_that_many() {
    let app = TestApp::seeded().await.expect("app");
    product(&app, "last-3", "5.00", 3).await;
    let mut racers = Vec::new();
    for n in 0..12 {
        let store = app.store.clone();
        racers.push(tokio::spawn(async move {
            let customer = format!("c{}", 1 + n % 6);
            order(
                &store,
                &customer,
                r#"{"items":[{"sku":"last-3","quantity":1}]}"#,
            )
            .await
        }));
    }
    let mut placed = 0;
    for racer in racers {
        let (status, body) = racer.await.expect("racer");
        match status {
            201 => placed += 1,
            409 => assert_eq!(body["skus"], json!(["last-3"]), "{body}"),
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(placed, 3, "exactly the units there were");
    assert_eq!(stock_of(&app, "last-3").await, 0, "and never below 0");
}

/// Changes a product's price in the engine itself just before the first order transaction is
/// sent (the price the handler read is then stale), and counts the requests.
struct RepriceOnce {
    db: Database,
    sku: &'static str,
    to: &'static str,
    done: Arc<AtomicBool>,
    requests: RequestCounter,
}

impl std::fmt::Debug for RepriceOnce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RepriceOnce({} to {})", self.sku, self.to)
    }
}

impl Intercept for RepriceOnce {
    fn name(&self) -> &'static str {
        "RepriceOnce"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.requests
            .read_before_transmit(context, runtime_components, cfg)?;
        let operation = cfg.load::<Metadata>().map_or("", Metadata::name);
        if operation == "TransactWriteItems" && !self.done.swap(true, Ordering::SeqCst) {
            let request = serde_json::from_value(json!({
                "TableName": LOCAL_TABLE,
                "Key": {"PK": {"S": format!("PRODUCT#{}", self.sku)}, "SK": {"S": "PRODUCT"}},
                "UpdateExpression": "SET price = :p",
                "ExpressionAttributeValues": {":p": {"N": self.to}},
            }))?;
            self.db.update_item(request)?;
        }
        Ok(())
    }
}

/// A store whose client reprices `sku` once, mid-order, and counts its requests.
fn repricing_store(app: &TestApp, sku: &'static str, to: &'static str) -> (Store, RequestCounter) {
    let requests = RequestCounter::default();
    let client = app.engine.intercepted_client(RepriceOnce {
        db: app.engine.database().clone(),
        sku,
        to,
        done: Arc::new(AtomicBool::new(false)),
        requests: requests.clone(),
    });
    (Store::new(client, LOCAL_TABLE), requests)
}

#[tokio::test]
async fn a_price_changed_between_read_and_write_is_read_again() {
    let app = TestApp::seeded().await.expect("app");
    let (store, requests) = repricing_store(&app, "sku-3", "13.50");
    let (status, body) = order(&store, "c2", r#"{"items":[{"sku":"sku-3","quantity":2}]}"#).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body["items"][0]["price"], "13.50",
        "charged the price that holds"
    );
    assert_eq!(body["total"], "27.00");
    assert_eq!(
        requests.by_operation(),
        [
            ("BatchGetItem".to_owned(), 2),
            ("TransactWriteItems".to_owned(), 2)
        ]
        .into(),
        "read, cancelled on the price, read again, placed"
    );
    assert_eq!(stock_of(&app, "sku-3").await, 98);

    // A client that said what it expected to pay is told instead.
    let (store, _) = repricing_store(&app, "sku-3", "14.00");
    let (status, body) = order(
        &store,
        "c2",
        r#"{"items":[{"sku":"sku-3","quantity":1,"price":"13.50"}]}"#,
    )
    .await;
    assert_eq!((status, &body["skus"]), (409, &json!(["sku-3"])), "{body}");
    assert_eq!(stock_of(&app, "sku-3").await, 98);
}

#[tokio::test]
async fn cancelling_gives_the_stock_back_and_shipping_does_not() {
    let app = TestApp::seeded().await.expect("app");
    let place = r#"{"items":[{"sku":"sku-6","quantity":4},{"sku":"sku-7","quantity":2}]}"#;
    let (_, first) = order(&app.store, "c3", place).await;
    let (_, second) = order(&app.store, "c3", place).await;
    assert_eq!(
        (stock_of(&app, "sku-6").await, stock_of(&app, "sku-7").await),
        (92, 96)
    );

    let patch = |id: &Value, who: Who<'static>, status: &str| {
        change_status(who, id.as_str().expect("id"), status)
    };
    let req = patch(&first["orderId"], Who::Customer("c3"), "CANCELLED");
    assert_eq!(
        parts(dispatch(&app.store, req, functions::update_order_status::handle).await).0,
        200
    );
    assert_eq!(
        (stock_of(&app, "sku-6").await, stock_of(&app, "sku-7").await),
        (96, 98)
    );

    let req = patch(&second["orderId"], Who::Staff, "SHIPPED");
    assert_eq!(
        parts(dispatch(&app.store, req, functions::update_order_status::handle).await).0,
        200
    );
    assert_eq!(
        (stock_of(&app, "sku-6").await, stock_of(&app, "sku-7").await),
        (96, 98)
    );
}

#[tokio::test]
async fn a_retried_post_with_its_key_takes_the_stock_once_and_answers_the_same() {
    let app = TestApp::seeded().await.expect("app");
    let key = [("idempotency-key", "retry-me-1")];
    let body = r#"{"items":[{"sku":"sku-8","quantity":5}]}"#;
    let path = "/customers/c4/orders";
    let post = || send_json(Who::Staff, ROUTE, path, &key, body);
    let (first_status, _, first) =
        parts(dispatch(&app.store, post(), functions::place_order::handle).await);
    // Meanwhile the price changes: the replay still answers with the first order.
    let repriced = single_variant(
        &Sku::parse("sku-8").expect("sku"),
        "Espresso grinder",
        price("259.00").expect("price"),
    );
    app.store
        .put_product(&repriced, &staff())
        .await
        .expect("reprice");
    let (again_status, _, again) =
        parts(dispatch(&app.store, post(), functions::place_order::handle).await);
    assert_eq!((first_status, again_status), (201, 201));
    assert_eq!(first, again);
    assert_eq!(stock_of(&app, "sku-8").await, 95, "reserved once");
}
