//! `GET /categories/{categoryId}/products` through its handler: a category's published products
//! by price or newest, one Query a page, paged with a cursor; a product repriced, moved to
//! another category or unpublished moves or leaves the listing with the write that changes it.

use local_engine::testing::{TestApp, Who, catalog, dispatch, from_event_file, get, parts};
use serde_json::{Value, json};

/// Every page of `category`'s listing in `sort`, `limit` a page: the (productId, price) pairs,
/// and how many pages.
async fn listing(
    app: &TestApp,
    category: &str,
    sort: &str,
    limit: usize,
) -> (Vec<(String, String)>, usize) {
    let (mut all, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let mut query = format!("sort={sort}&limit={limit}");
        if let Some(c) = &cursor {
            query.push_str(&format!("&cursor={c}"));
        }
        let req = get(
            Who::Customer("c2"),
            "GET /categories/{categoryId}/products",
            &format!("/categories/{category}/products"),
            &query,
        );
        app.requests.reset();
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::list_category_products::handle).await);
        assert_eq!(status, 200, "{body}");
        assert_eq!(app.requests.total(), 1, "one Query a page");
        pages += 1;
        for item in body["items"].as_array().expect("items") {
            let text = |name: &str| item[name].as_str().unwrap_or_default().to_owned();
            all.push((text("productId"), text("price")));
        }
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            return (all, pages);
        }
    }
}

/// A published product `id` of one variant at `price`, in `categories`.
async fn product(app: &TestApp, id: &str, price: &str, categories: &[&str], status: &str) {
    let body = json!({
        "title": format!("Product {id}"), "status": status, "categoryIds": categories,
        "variants": [{"sku": id, "options": {}, "price": price}],
    });
    let req = catalog::put_product(Who::Staff, id, &body.to_string());
    let (code, _, answer) = parts(dispatch(&app.store, req, functions::put_product::handle).await);
    assert!(code == 201 || code == 200, "{code} {answer}");
}

fn ids(listed: &[(String, String)]) -> Vec<&str> {
    listed.iter().map(|(id, _)| id.as_str()).collect()
}

#[tokio::test]
async fn a_category_lists_by_price_either_way_paged_and_follows_a_price_change() {
    let app = TestApp::seeded().await.expect("app");
    crate::put_category::put(&app, Who::Staff, "lamps", json!({"name": "Lamps"})).await;
    for (id, price) in [
        ("lamp-a", "30.00"),
        ("lamp-b", "10.00"),
        ("lamp-c", "20.00"),
        ("lamp-d", "40.00"),
        ("lamp-e", "5.00"),
    ] {
        product(&app, id, price, &["lamps"], "PUBLISHED").await;
    }
    let (asc, pages) = listing(&app, "lamps", "price-asc", 2).await;
    assert_eq!(
        ids(&asc),
        ["lamp-e", "lamp-b", "lamp-c", "lamp-a", "lamp-d"]
    );
    assert_eq!(pages, 3, "2 + 2 + 1");
    let (desc, _) = listing(&app, "lamps", "price-desc", 2).await;
    assert_eq!(
        ids(&desc),
        ["lamp-d", "lamp-a", "lamp-c", "lamp-b", "lamp-e"]
    );
    // lamp-d drops to 1.00: it leads the cheapest now.
    product(&app, "lamp-d", "1.00", &["lamps"], "PUBLISHED").await;
    let (asc, _) = listing(&app, "lamps", "price-asc", 10).await;
    assert_eq!(asc[0], ("lamp-d".to_owned(), "1.00".to_owned()));
    assert_eq!(asc.len(), 5, "moved, not added");
}

#[tokio::test]
async fn a_product_moved_unpublished_or_drafted_is_listed_only_where_it_is_published() {
    let app = TestApp::seeded().await.expect("app");
    crate::put_category::put(&app, Who::Staff, "lamps", json!({"name": "Lamps"})).await;
    product(&app, "lamp-a", "30.00", &["lamps"], "DRAFT").await;
    assert!(
        listing(&app, "lamps", "newest", 10).await.0.is_empty(),
        "a draft is not listed"
    );
    product(&app, "lamp-a", "30.00", &["lamps"], "PUBLISHED").await;
    assert_eq!(
        ids(&listing(&app, "lamps", "newest", 10).await.0),
        ["lamp-a"]
    );
    // Moved to the kitchen: only there.
    product(&app, "lamp-a", "30.00", &["kitchen"], "PUBLISHED").await;
    assert!(listing(&app, "lamps", "newest", 10).await.0.is_empty());
    assert!(ids(&listing(&app, "kitchen", "price-asc", 10).await.0).contains(&"lamp-a"));
    // Archived: nowhere.
    product(&app, "lamp-a", "30.00", &["kitchen"], "ARCHIVED").await;
    assert!(!ids(&listing(&app, "kitchen", "newest", 10).await.0).contains(&"lamp-a"));
}

#[tokio::test]
async fn a_product_names_only_categories_that_exist_and_a_bad_sort_or_cursor_is_a_400() {
    let app = TestApp::seeded().await.expect("app");
    let body = json!({
        "title": "Lost", "status": "PUBLISHED", "categoryIds": ["nowhere"],
        "variants": [{"sku": "lost-1", "options": {}, "price": "1.00"}],
    });
    let req = catalog::put_product(Who::Staff, "lost", &body.to_string());
    let (status, _, problem) =
        parts(dispatch(&app.store, req, functions::put_product::handle).await);
    assert_eq!(status, 400, "{problem}");
    let list = |query: &str| {
        get(
            Who::Customer("c2"),
            "GET /categories/{categoryId}/products",
            "/categories/kitchen/products",
            query,
        )
    };
    for query in ["sort=cheapest", "cursor=not-a-cursor"] {
        let (status, _, _) = parts(
            dispatch(
                &app.store,
                list(query),
                functions::list_category_products::handle,
            )
            .await,
        );
        assert_eq!(status, 400, "{query}");
    }
    // A cursor of the price listing does not open the newest one.
    let (_, _, first) = parts(
        dispatch(
            &app.store,
            list("sort=price-asc&limit=1"),
            functions::list_category_products::handle,
        )
        .await,
    );
    let cursor = first["nextCursor"].as_str().expect("a cursor");
    let (status, _, _) = parts(
        dispatch(
            &app.store,
            list(&format!("sort=newest&cursor={cursor}")),
            functions::list_category_products::handle,
        )
        .await,
    );
    assert_eq!(status, 400);
    let req = get(
        Who::Nobody,
        "GET /categories/{categoryId}/products",
        "/categories/kitchen/products",
        "",
    );
    assert_eq!(
        parts(dispatch(&app.store, req, functions::list_category_products::handle).await).0,
        401
    );
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/list-category-products.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_category_products::handle).await);
    assert_eq!(status, 200, "{body}");
    let listed: Vec<Value> = body["items"].as_array().expect("items").clone();
    assert_eq!(listed[0]["productId"], "sku-1");
}

#[tokio::test]
async fn the_storefront_lists_a_category_for_callers_without_a_token_drafts_left_out() {
    let app = TestApp::seeded().await.expect("app");
    product(&app, "lamp-a", "30.00", &["kitchen"], "PUBLISHED").await;
    product(&app, "lamp-b", "10.00", &["kitchen"], "DRAFT").await;
    let (mut cursor, mut seen) = (None::<String>, Vec::new());
    loop {
        let mut query = "sort=price-desc&limit=2".to_owned();
        if let Some(c) = &cursor {
            query.push_str(&format!("&cursor={c}"));
        }
        let req = get(
            Who::Nobody,
            "GET /storefront/categories/{categoryId}/products",
            "/storefront/categories/kitchen/products",
            &query,
        );
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::list_category_products::handle).await);
        assert_eq!(status, 200, "{body}");
        for item in body["items"].as_array().expect("items") {
            seen.push(item["productId"].as_str().unwrap_or_default().to_owned());
        }
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    assert!(seen.iter().any(|id| id == "lamp-a"), "{seen:?}");
    assert!(
        !seen.iter().any(|id| id == "lamp-b"),
        "a draft is never listed"
    );
    // The signed-in listing shows the same products.
    let signed_in = listing(&app, "kitchen", "price-desc", 2).await.0;
    assert_eq!(
        ids(&signed_in),
        seen.iter().map(String::as_str).collect::<Vec<_>>()
    );
}
