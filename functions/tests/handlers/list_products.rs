//! `GET /products` through its handler: the catalog paged across its shards, one Query per page,
//! every product once, no stock in the listing, cursors bound to their caller.

use std::collections::BTreeSet;

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, catalog, from_event_file, parts};
use serde_json::Value;

async fn list(app: &TestApp, who: Who<'_>, query: &str) -> (u16, Value) {
    let req = catalog::list_products(who, query);
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_products::handle).await);
    (status, body)
}

#[tokio::test]
async fn the_listing_pages_through_every_shard_once() {
    let app = TestApp::seeded().await.expect("app");
    for n in 0..23 {
        let req = catalog::put_single(
            Who::Staff,
            &format!("item-{n}"),
            &format!("Item {n}"),
            &format!("1.{n:02}"),
        );
        let response = dispatch(&app.store, req, functions::put_product::handle).await;
        assert_eq!(parts(response).0, 201);
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
        let (status, body) = list(&app, Who::Customer("c2"), &query).await;
        assert_eq!(status, 200, "{body}");
        let items = body["items"].as_array().expect("items");
        assert!(items.len() <= 4);
        for item in items {
            assert!(item.get("stock").is_none(), "the listing carries no stock");
            seen.push(item["productId"].as_str().expect("productId").to_owned());
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
}

/// Every product the listing shows, all pages read: (productId, title, price).
async fn listed(app: &TestApp) -> Vec<(String, String, String)> {
    let (mut all, mut cursor) = (Vec::new(), None::<String>);
    loop {
        let query = cursor.map_or("limit=100".to_owned(), |c| format!("limit=100&cursor={c}"));
        let (_, body) = list(app, Who::Customer("c2"), &query).await;
        for item in body["items"].as_array().expect("items") {
            let text = |name: &str| item[name].as_str().unwrap_or_default().to_owned();
            all.push((text("productId"), text("title"), text("price")));
        }
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            return all;
        }
    }
}

#[tokio::test]
async fn only_published_products_are_listed_at_their_lowest_price() {
    let app = TestApp::seeded().await.expect("app");
    let tee = |all: &[(String, String, String)]| all.iter().find(|p| p.0 == "tee").cloned();
    crate::put_product::put_tee(&app, "DRAFT").await;
    assert_eq!(tee(&listed(&app).await), None, "a draft is not listed");
    crate::put_product::put_tee(&app, "PUBLISHED").await;
    assert_eq!(
        tee(&listed(&app).await),
        Some(("tee".into(), "Plain tee".into(), "18.00".into())),
        "listed once published, from its lowest price"
    );
    crate::put_product::put_tee(&app, "ARCHIVED").await;
    assert_eq!(tee(&listed(&app).await), None, "archiving takes it out");
}

#[tokio::test]
async fn a_cursor_is_refused_for_another_caller_and_no_token_is_401() {
    let app = TestApp::seeded().await.expect("app");
    let (_, body) = list(&app, Who::Customer("c2"), "limit=2").await;
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();
    let (status, body) = list(&app, Who::Customer("c3"), &format!("cursor={cursor}")).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(list(&app, Who::Nobody, "").await.0, 401);
    // Edited: a SKU's entry in a shard it does not belong to, or spelled otherwise, is no
    // position the store wrote.
    for (pk, sk) in [
        ("CATALOG#9", "PRODUCT#sku-1"),
        ("CATALOG#00", "PRODUCT#sku-1"),
    ] {
        let cursor =
            local_engine::testing::forged_cursor(Who::Customer("c2"), &[("PK", pk), ("SK", sk)]);
        assert_eq!(
            list(&app, Who::Customer("c2"), &format!("cursor={cursor}"))
                .await
                .0,
            400,
            "{pk} {sk}"
        );
    }
    let shard = shared::dynamo::entities::catalog_entry::shard(
        &shared::domain::ids::ProductId::parse("sku-1").expect("id"),
    );
    let elsewhere = format!(
        "CATALOG#{}",
        (shard + 1) % shared::dynamo::entities::catalog_entry::SHARDS
    );
    let cursor = local_engine::testing::forged_cursor(
        Who::Customer("c2"),
        &[("PK", &elsewhere), ("SK", "PRODUCT#sku-1")],
    );
    assert_eq!(
        list(&app, Who::Customer("c2"), &format!("cursor={cursor}"))
            .await
            .0,
        400,
        "another shard's key"
    );
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/list-products.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_products::handle).await);
    assert_eq!(status, 200);
    assert!(
        body["items"]
            .as_array()
            .is_some_and(|items| items.len() <= 5)
    );
}
