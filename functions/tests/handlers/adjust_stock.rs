//! `POST /variants/{sku}/stock` through its handler: staff add and take stock, which racing
//! changes never lose and never take below 0; an unknown product is a 404, never created.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, catalog, from_event_file, parts};
use serde_json::{Value, json};

async fn adjust(app: &TestApp, who: Who<'_>, sku: &str, delta: i64) -> (u16, Value) {
    let req = catalog::adjust_stock(who, sku, delta);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::adjust_stock::handle).await);
    (status, body)
}

async fn stock(app: &TestApp, sku: &str) -> (u16, Value) {
    let req = catalog::get_variant(Who::Staff, sku);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_variant::handle).await);
    (status, body["stock"].clone())
}

#[tokio::test]
async fn stock_never_goes_below_zero_and_unknown_products_are_404() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = adjust(&app, Who::Staff, "sku-5", -100).await;
    assert_eq!((status, &body["stock"]), (200, &json!(0)));
    let (status, body) = adjust(&app, Who::Staff, "sku-5", -1).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(stock(&app, "sku-5").await.1, 0);
    assert_eq!(adjust(&app, Who::Staff, "nope", 5).await.0, 404);
    for bad in [0, 1_000_001] {
        assert_eq!(adjust(&app, Who::Staff, "sku-5", bad).await.0, 400, "{bad}");
    }
    // An unknown product is not created by a stock change.
    assert_eq!(stock(&app, "nope").await.0, 404);
}

#[tokio::test]
async fn only_staff_change_stock() {
    let app = TestApp::seeded().await.expect("app");
    assert_eq!(
        adjust(&app, Who::Customer("c1"), "sku-1", 1000).await.0,
        403
    );
    assert_eq!(adjust(&app, Who::Nobody, "sku-1", 1000).await.0, 401);
    assert_eq!(adjust(&app, Who::Admin, "sku-1", 1).await.0, 200);
    assert_eq!(stock(&app, "sku-1").await.1, 101);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_stock_changes_are_never_lost() {
    let app = TestApp::seeded().await.expect("app");
    let mut tasks = Vec::new();
    for n in 0..40 {
        let store = app.store.clone();
        tasks.push(tokio::spawn(async move {
            let delta = if n % 2 == 0 { 3 } else { -1 };
            let req = catalog::adjust_stock(Who::Staff, "sku-7", delta);
            parts(dispatch(&store, req, functions::adjust_stock::handle).await).0
        }));
    }
    for task in tasks {
        assert_eq!(task.await.expect("task"), 200);
    }
    // 20 × +3 and 20 × −1 on 100.
    assert_eq!(stock(&app, "sku-7").await.1, 140);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/adjust-stock.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::adjust_stock::handle).await);
    assert_eq!((status, &body["stock"]), (200, &json!(125)), "{body}");
}
