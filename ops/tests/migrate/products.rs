//! `0002-products` on an embedded engine: SKUs written before products (the item a SKU had,
//! and its catalog entry) each become the one published variant of a product of their own
//! ID; nothing ordered loses its lines; a second run changes nothing; a SKU whose ID another
//! product holds is recorded and left on sale; a run stopped mid-way resumes.

use aws_sdk_dynamodb::types::AttributeValue::{N, S};
use local_engine::testing::{TestApp, staff};
use shared::Store;
use shared::domain::ids::{ProductId, Sku};
use shared::dynamo::codec::Item;
use shared::dynamo::migrations::{Migration, Options, Report};

use super::{options, write};

const MIGRATION: Migration = Migration::Products;

async fn migrate(store: &Store, options: &Options) -> Report {
    super::run(store, MIGRATION, options).await
}

/// `sku`'s item and catalog entry as the store wrote them before products: a name, a price,
/// a stock and a version; an entry keyed by the SKU.
fn pre_products(sku: &str, name: &str, stock: u32) -> Vec<Item> {
    let shard = shared::dynamo::entities::catalog_entry::shard(&ProductId::parse(sku).expect("id"));
    vec![
        Item::from([
            ("PK".to_owned(), S(format!("PRODUCT#{sku}"))),
            ("SK".to_owned(), S("PRODUCT".into())),
            ("name".to_owned(), S(name.into())),
            ("price".to_owned(), N("4.5".into())),
            ("stock".to_owned(), N(stock.to_string())),
            ("version".to_owned(), N("3".into())),
        ]),
        Item::from([
            ("PK".to_owned(), S(format!("CATALOG#{shard}"))),
            ("SK".to_owned(), S(format!("PRODUCT#{sku}"))),
            ("name".to_owned(), S(name.into())),
            ("price".to_owned(), N("4.5".into())),
        ]),
    ]
}

/// The SKUs still without a product.
async fn without_product(app: &TestApp) -> Vec<String> {
    local_engine::testing::all_items(app)
        .await
        .iter()
        .filter(|item| item["SK"].as_s().is_ok_and(|sk| sk == "PRODUCT"))
        .filter(|item| !item.contains_key("productId"))
        .filter_map(|item| item["PK"].as_s().ok().cloned())
        .collect()
}

#[tokio::test]
async fn each_old_sku_becomes_a_published_product_of_its_own_and_a_second_run_changes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    write(&app, pre_products("teapot", "Ceramic teapot", 12)).await;
    write(&app, pre_products("cosy", "Tea cosy", 0)).await;
    let order = super::place(&app.store, "c2", &["teapot"]).await;
    let report = migrate(&app.store, &options(2)).await;
    assert_eq!(
        (report.counts.changed, report.counts.unplaceable),
        (2, 0),
        "{report:?}"
    );
    assert!(without_product(&app).await.is_empty());
    let customer = shared::domain::access::Caller::new("c1", [], [], false);
    let seen = app
        .store
        .get_product(&ProductId::parse("teapot").expect("id"), &customer)
        .await
        .expect("read")
        .expect("a product of its own");
    assert_eq!(
        (seen.product.title.as_str(), seen.variants.len()),
        ("Ceramic teapot", 1)
    );
    let variant = app
        .store
        .get_variant(&Sku::parse("teapot").expect("sku"), true)
        .await
        .expect("read")
        .expect("the SKU");
    assert_eq!(
        (variant.stock, variant.price.to_string()),
        (11, "4.50".into()),
        "stock and price kept"
    );
    assert!(variant.for_sale());
    // The catalog still lists it, under the same entry; the order keeps its line.
    let (mut listed, mut cursor) = (Vec::new(), None::<String>);
    loop {
        let page =
            shared::domain::page::PageRequest::parse(Some("100"), cursor.as_deref()).expect("page");
        let found = app
            .store
            .list_products(&page, &customer)
            .await
            .expect("listed");
        listed.extend(found.items.into_iter().map(|e| e.product_id.to_string()));
        cursor = found.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert!(listed.contains(&"teapot".to_owned()), "{listed:?}");
    let details = app
        .store
        .get_order(
            &shared::domain::ids::OrderId::parse(&order).expect("id"),
            &staff(),
        )
        .await
        .expect("read")
        .expect("the order");
    assert_eq!(details.items.len(), 1);
    let again = migrate(
        &app.store,
        &Options {
            rerun: true,
            ..options(2)
        },
    )
    .await;
    assert_eq!(
        (again.counts.changed, again.counts.unplaceable),
        (0, 0),
        "{again:?}"
    );
}

#[tokio::test]
async fn a_sku_whose_id_another_product_holds_is_recorded_and_left_on_sale() {
    let app = TestApp::seeded().await.expect("app");
    // Staff made a product "mug" (of other SKUs) before the migration ran.
    let spec = local_engine::testing::single_variant(
        &Sku::parse("mug-blue").expect("sku"),
        "Mug",
        shared::domain::product::price("9.00").expect("price"),
    );
    let spec = shared::domain::product::ProductSpec {
        product: shared::domain::product::Product {
            product_id: ProductId::parse("mug").expect("id"),
            ..spec.product
        },
        ..spec
    };
    app.store
        .put_product(&spec, &staff())
        .await
        .expect("product");
    write(&app, pre_products("mug", "Old mug", 3)).await;
    let report = migrate(&app.store, &options(1)).await;
    assert_eq!(report.counts.unplaceable, 1, "{report:?}");
    assert_eq!(without_product(&app).await, ["PRODUCT#mug"]);
    let old = app
        .store
        .get_variant(&Sku::parse("mug").expect("sku"), true)
        .await
        .expect("read")
        .expect("the SKU");
    assert!(old.for_sale(), "left on sale as it was");
    let retried = migrate(
        &app.store,
        &Options {
            retry_unplaceable: true,
            ..options(1)
        },
    )
    .await;
    assert_eq!(retried.counts.unplaceable, 1, "still taken: {retried:?}");
}

#[tokio::test]
async fn a_run_stopped_mid_way_resumes() {
    let app = TestApp::seeded().await.expect("app");
    let mut old = Vec::new();
    for n in 0..300 {
        old.extend(pre_products(&format!("old-{n}"), &format!("Old {n}"), 1));
    }
    write(&app, old).await;
    let total = local_engine::testing::all_items(&app).await.len() as u64;
    super::stop_after(&app.store, MIGRATION, 100).await;
    assert!(
        !without_product(&app).await.is_empty(),
        "stopped before the end"
    );
    super::resume(&app.store, MIGRATION, total).await;
    assert!(without_product(&app).await.is_empty());
}
