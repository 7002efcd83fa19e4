//! The catalog's endpoints through their handlers: a product by SKU, the listing across its
//! shards, staff's writes, stock that racing changes never lose and never take below 0.

use std::collections::BTreeSet;

use local_engine::testing::{TestApp, Who, call_as, get_as, parts, send_json_as};
use serde_json::{Value, json};

async fn run(app: &TestApp, binary: &str, req: lambda_http::Request) -> (u16, Value) {
    let response = local_dev::invoke(binary, &app.store, req)
        .await
        .expect("known binary");
    let (status, _, body) = parts(response);
    (status, body)
}

async fn put(app: &TestApp, who: Who<'_>, sku: &str, body: &str) -> (u16, Value) {
    let req = send_json_as(
        who,
        "PUT /products/{sku}",
        &format!("/products/{sku}"),
        &[],
        body,
    );
    run(app, "put-product", req).await
}

async fn adjust(app: &TestApp, who: Who<'_>, sku: &str, delta: i64) -> (u16, Value) {
    let req = send_json_as(
        who,
        "POST /products/{sku}/stock",
        &format!("/products/{sku}/stock"),
        &[],
        &format!(r#"{{"delta":{delta}}}"#),
    );
    run(app, "adjust-stock", req).await
}

async fn product(app: &TestApp, sku: &str) -> (u16, Value) {
    let req = get_as(
        Who::Customer("c1"),
        "GET /products/{sku}",
        &format!("/products/{sku}"),
        "",
    );
    run(app, "get-product", req).await
}

#[tokio::test]
async fn staff_create_and_replace_products_and_everyone_signed_in_reads_them() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = product(&app, "sku-1").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"sku": "sku-1", "name": "Stoneware mug", "price": "19.95", "stock": 100})
    );

    let (status, body) = put(
        &app,
        Who::Staff,
        "mug-2",
        r#"{"name":"Tall mug","price":"21.50"}"#,
    )
    .await;
    assert_eq!(
        (status, body.clone()),
        (
            201,
            json!({"sku": "mug-2", "name": "Tall mug", "price": "21.50", "stock": 0})
        )
    );
    assert_eq!(adjust(&app, Who::Staff, "mug-2", 7).await.0, 200);
    let (status, body) = put(
        &app,
        Who::Admin,
        "mug-2",
        r#"{"name":"Tall mug, blue","price":"22.00"}"#,
    )
    .await;
    assert_eq!(status, 200, "a replacement: {body}");
    assert_eq!(body["stock"], 7, "a replacement keeps the stock");
    assert_eq!(product(&app, "mug-2").await.1["price"], "22.00");

    // Customers and callers without a token change nothing.
    let (status, _) = put(
        &app,
        Who::Customer("c1"),
        "mug-2",
        r#"{"name":"Mine","price":"0.01"}"#,
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(
        adjust(&app, Who::Customer("c1"), "mug-2", 1000).await.0,
        403
    );
    assert_eq!(adjust(&app, Who::Nobody, "mug-2", 1000).await.0, 401);
    let req = get_as(Who::Nobody, "GET /products/{sku}", "/products/mug-2", "");
    assert_eq!(run(&app, "get-product", req).await.0, 401);
    assert_eq!(product(&app, "mug-2").await.1["price"], "22.00");

    for bad in [
        r#"{"name":"","price":"1.00"}"#,
        r#"{"name":"Mug","price":"0"}"#,
        r#"{"name":"Mug","price":1.5}"#,
        r#"{"name":"Mug","price":"1.00","stock":5}"#,
    ] {
        assert_eq!(put(&app, Who::Staff, "mug-3", bad).await.0, 400, "{bad}");
    }
    assert_eq!(product(&app, "mug-3").await.0, 404);
}

#[tokio::test]
async fn stock_never_goes_below_zero_and_unknown_products_are_404() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = adjust(&app, Who::Staff, "sku-5", -100).await;
    assert_eq!((status, &body["stock"]), (200, &json!(0)));
    let (status, body) = adjust(&app, Who::Staff, "sku-5", -1).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(product(&app, "sku-5").await.1["stock"], 0);
    assert_eq!(adjust(&app, Who::Staff, "nope", 5).await.0, 404);
    for bad in [0, 1_000_001] {
        assert_eq!(adjust(&app, Who::Staff, "sku-5", bad).await.0, 400, "{bad}");
    }
    // An unknown product is not created by a stock change.
    assert_eq!(product(&app, "nope").await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_stock_changes_are_never_lost() {
    let app = TestApp::seeded().await.expect("app");
    let mut tasks = Vec::new();
    for n in 0..40 {
        let app_store = app.store.clone();
        tasks.push(tokio::spawn(async move {
            let delta = if n % 2 == 0 { 3 } else { -1 };
            let req = send_json_as(
                Who::Staff,
                "POST /products/{sku}/stock",
                "/products/sku-7/stock",
                &[],
                &format!(r#"{{"delta":{delta}}}"#),
            );
            let response = local_dev::invoke("adjust-stock", &app_store, req)
                .await
                .expect("binary");
            parts(response).0
        }));
    }
    for task in tasks {
        assert_eq!(task.await.expect("task"), 200);
    }
    // 20 × +3 and 20 × −1 on 100.
    assert_eq!(product(&app, "sku-7").await.1["stock"], 140);
}

#[tokio::test]
async fn the_listing_pages_through_every_shard_once() {
    let app = TestApp::seeded().await.expect("app");
    for n in 0..23 {
        let body = format!(r#"{{"name":"Item {n}","price":"1.{n:02}"}}"#);
        assert_eq!(
            put(&app, Who::Staff, &format!("item-{n}"), &body).await.0,
            201
        );
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    app.requests.reset();
    loop {
        let query = match &cursor {
            Some(c) => format!("limit=4&cursor={c}"),
            None => "limit=4".to_owned(),
        };
        let req = call_as(
            Who::Customer("c2"),
            "GET /products",
            "/products",
            &query,
            &[],
            b"",
        );
        let (status, body) = run(&app, "list-products", req).await;
        assert_eq!(status, 200, "{body}");
        let items = body["items"].as_array().expect("items");
        assert!(items.len() <= 4);
        for item in items {
            assert!(item.get("stock").is_none(), "the listing carries no stock");
            seen.push(item["sku"].as_str().expect("sku").to_owned());
        }
        pages += 1;
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no product twice");
    assert_eq!(seen.len(), 8 + 23, "every product once");
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), pages)].into(),
        "one Query per page"
    );
    // A cursor from this listing is refused for another caller.
    let first = call_as(
        Who::Customer("c2"),
        "GET /products",
        "/products",
        "limit=2",
        &[],
        b"",
    );
    let (_, body) = run(&app, "list-products", first).await;
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();
    let other = call_as(
        Who::Customer("c3"),
        "GET /products",
        "/products",
        &format!("cursor={cursor}"),
        &[],
        b"",
    );
    assert_eq!(run(&app, "list-products", other).await.0, 400);
}

#[tokio::test]
async fn the_sample_events_are_answered() {
    let app = TestApp::seeded().await.expect("app");
    let event = |file: &str| {
        local_engine::testing::from_event_file(&format!("../../events/{file}")).expect(file)
    };
    let (status, body) = run(&app, "get-product", event("get-product.json")).await;
    assert_eq!((status, &body["price"]), (200, &json!("19.95")));
    let (status, body) = run(&app, "list-products", event("list-products.json")).await;
    assert_eq!(status, 200);
    assert!(
        body["items"]
            .as_array()
            .is_some_and(|items| items.len() <= 5)
    );
    let (status, body) = run(&app, "put-product", event("put-product.json")).await;
    assert_eq!((status, &body["stock"]), (201, &json!(0)), "{body}");
    let (status, body) = run(&app, "adjust-stock", event("adjust-stock.json")).await;
    assert_eq!((status, &body["stock"]), (200, &json!(125)), "{body}");
}
