//! The store's access patterns as PartiQL (docs/partiql.md, read from the file itself): each
//! statement, run by store-query's own code on the embedded engine with `make dev`'s sample
//! data, returns exactly the items the API's read returns — same keys, same order, except where
//! the document says PartiQL cannot order (several status shards).

use std::collections::BTreeMap;
use std::future::Future;

use local_engine::LOCAL_TABLE;
use local_engine::testing::TestApp;
use shared::access_patterns::ACCESS_PATTERNS;
use shared::domain::access::{Caller, STAFF_GROUP};
use shared::domain::ids::{CustomerId, OrderId, ProductId, Sku};
use shared::domain::ids::{PaymentEventId, PaymentId};
use shared::domain::page::{MAX_LIMIT, Page, PageRequest, PlacedWindow};
use shared::domain::payment::{Payment, PaymentMetadata};
use shared::domain::refund::RefundStatus;
use shared::domain::status::OrderStatus;
use shared::dynamo::entities::{
    cart_line, catalog_entry, customer, line_item, order_header, order_listing, product,
    refund_due, variant,
};
use shared::dynamo::keys::{self, StatusShards};
use shared::dynamo::migrations::{Budget, Migration, Options, Progress};
use shared::{AppError, Store};
use store_ops::partiql::{self, run::Item};

type Key = (String, String);

/// docs/partiql.md's statements by their heading's label (`### 4b. …` → `4b`).
fn documented() -> BTreeMap<String, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/partiql.md");
    let text = std::fs::read_to_string(path).expect("docs/partiql.md");
    let mut statements = BTreeMap::new();
    let mut label = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(heading) = line.strip_prefix("### ") {
            label = heading.split_once(". ").map(|(l, _)| l.to_string());
        } else if line == "```sql" {
            let statement = lines.next().expect("a statement").to_string();
            assert_eq!(lines.next(), Some("```"), "one line per statement");
            let label = label
                .take()
                .expect("a statement under its pattern's heading");
            statements.insert(label, statement);
        }
    }
    statements
}

/// Runs `statement` as store-query does, after checking that it would send it unforced.
async fn select(store: &Store, statement: &str) -> Vec<Item> {
    let checked = partiql::check(statement, LOCAL_TABLE, false)
        .unwrap_or_else(|refusal| panic!("{statement}: {refusal}"));
    assert!(checked.partitions.is_some());
    let mut items = Vec::new();
    let outcome = partiql::execute(store.client(), statement, None, |page| {
        items.extend(page);
        Ok(())
    })
    .await
    .unwrap_or_else(|err| panic!("{statement}: {err}"));
    assert_eq!(outcome.items, items.len());
    assert!(
        outcome.capacity.total > 0.0,
        "{statement}: capacity reported"
    );
    items
}

fn key_of(item: &Item) -> Key {
    let text = |name: &str| item[name].as_s().expect("a string key").clone();
    (text(keys::PK), text(keys::SK))
}

fn keys_of(items: &[Item]) -> Vec<Key> {
    items.iter().map(key_of).collect()
}

/// Every page of a listing, through its cursors.
async fn every_page<T, F, Fut>(mut read: F) -> Vec<T>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: Future<Output = Result<Page<T>, AppError>>,
{
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let page = read(PageRequest {
            limit: MAX_LIMIT,
            cursor,
        })
        .await
        .expect("page");
        all.extend(page.items);
        cursor = page.next_cursor;
        if cursor.is_none() {
            return all;
        }
    }
}

fn staff() -> Caller {
    Caller::new("operator", [STAFF_GROUP], [], false)
}

/// The listing's key of each order.
fn listing_keys(orders: &[shared::domain::order::Order]) -> Vec<Key> {
    orders
        .iter()
        .map(|o| {
            (
                order_listing::pk(&o.customer_id),
                order_listing::sk(o.placed_at, &o.order_id),
            )
        })
        .collect()
}

#[tokio::test]
async fn each_access_pattern_in_partiql_reads_what_the_api_reads() {
    let app = TestApp::seeded().await.expect("engine");
    let store = app.direct_store();
    // The sample data's line items predate GSI2: the migration lists them under their product.
    let options = Options {
        segments: 1,
        ..Options::default()
    };
    let budget = Budget::new(None, None);
    store
        .migrate(
            Migration::LineItemGsi2,
            &options,
            &budget,
            &Progress::default(),
        )
        .await
        .expect("migrated");
    let statements = documented();
    // One statement per pattern of the registry, and 4b.
    let labels: std::collections::BTreeSet<String> = statements.keys().cloned().collect();
    let mut expected: std::collections::BTreeSet<String> = ACCESS_PATTERNS
        .iter()
        .map(|p| p.number.to_string())
        .collect();
    expected.insert("4b".to_owned());
    assert_eq!(labels, expected);
    let caller = staff();
    let customer = CustomerId::parse("c1").expect("id");
    let order = OrderId::parse("o100").expect("id");
    let sku = Sku::parse("sku-1").expect("sku");

    // 1. GetItem of the profile.
    let profile = store
        .get_customer(&customer)
        .await
        .expect("read")
        .expect("c1");
    assert_eq!(profile.customer.customer_id, customer);
    let expected = vec![(customer::pk(&customer), customer::SORT_KEY.to_string())];
    assert_eq!(keys_of(&select(&store, &statements["1"]).await), expected);

    // 2. The customer's orders, newest first.
    let orders = every_page(|page| {
        let (store, customer, caller) = (&store, &customer, &caller);
        async move {
            store
                .list_customer_orders(customer, PlacedWindow::default(), &page, caller)
                .await
        }
    })
    .await;
    assert!(orders.len() > 1);
    assert_eq!(
        keys_of(&select(&store, &statements["2"]).await),
        listing_keys(&orders)
    );

    // 3. The order's line items.
    let lines = every_page(|page| {
        let (store, order, caller) = (&store, &order, &caller);
        async move {
            Ok(store
                .list_order_items(order, &page, caller)
                .await?
                .expect("o100"))
        }
    })
    .await;
    assert!(!lines.is_empty());
    let expected: Vec<Key> = lines
        .iter()
        .map(|l| (line_item::pk(&order), line_item::sk(&l.sku)))
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["3"]).await), expected);

    // 4. PLACED orders, oldest first, one status shard.
    let placed = every_page(|page| {
        let (store, caller) = (&store, &caller);
        async move {
            store
                .list_orders_by_status(OrderStatus::Placed, &page, caller)
                .await
        }
    })
    .await;
    assert!(placed.len() > 1);
    assert_eq!(
        keys_of(&select(&store, &statements["4"]).await),
        listing_keys(&placed)
    );

    // 5. The variant.
    let variant = store
        .get_variant(&sku, false)
        .await
        .expect("read")
        .expect("sku-1");
    assert_eq!(variant.sku, sku);
    let expected = vec![(variant::pk(&sku), variant::SORT_KEY.to_string())];
    assert_eq!(keys_of(&select(&store, &statements["5"]).await), expected);

    // 12. The product with its variants: the sample's sku-1 is a product of one variant.
    let id = ProductId::parse("sku-1").expect("id");
    let seen = store
        .get_product(&id, &caller)
        .await
        .expect("read")
        .expect("sku-1");
    assert_eq!(seen.variants.len(), 1);
    let expected = vec![
        (product::pk(&id), product::SORT_KEY.to_string()),
        (variant::pk(&sku), variant::SORT_KEY.to_string()),
    ];
    assert_eq!(keys_of(&select(&store, &statements["12"]).await), expected);

    // 13. The category tree: the sample's four categories, in key order.
    let tree = store.category_tree().await.expect("tree");
    assert_eq!(tree.len(), 1, "one root, home");
    let expected: Vec<Key> = ["coffee", "home", "kitchen", "textiles"]
        .iter()
        .map(|id| {
            (
                shared::dynamo::entities::category::pk(),
                format!("CATEGORY#{id}"),
            )
        })
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["13"]).await), expected);

    // 14. The kitchen's products by price, lowest first.
    let kitchen = shared::domain::ids::CategoryId::parse("kitchen").expect("id");
    let listed = every_page(|page| {
        let (store, caller, kitchen) = (&store, &caller, &kitchen);
        async move {
            store
                .list_category_products(
                    kitchen,
                    shared::domain::category::ListingSort::PriceAscending,
                    &page,
                    caller,
                )
                .await
        }
    })
    .await;
    let ids: Vec<&str> = listed.iter().map(|e| e.product_id.as_str()).collect();
    assert_eq!(ids, ["sku-1", "sku-4", "sku-8"], "19.95, 99.99, 249.00");
    let expected: Vec<Key> = listed
        .iter()
        .map(|e| {
            (
                product::pk(&e.product_id),
                "LISTED#kitchen#PRICE".to_owned(),
            )
        })
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["14"]).await), expected);

    // 6. The catalog, shard by shard.
    let catalog = every_page(|page| {
        let (store, caller) = (&store, &caller);
        async move { store.list_products(&page, caller).await }
    })
    .await;
    assert!(catalog.len() > 1);
    let expected: Vec<Key> = catalog
        .iter()
        .map(|e| {
            (
                catalog_entry::pk(catalog_entry::shard(&e.product_id)),
                catalog_entry::sk(&e.product_id),
            )
        })
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["6"]).await), expected);

    // 7. The order with its lines: its header, then each line.
    let details = store
        .get_order(&order, &staff())
        .await
        .expect("read")
        .expect("o100");
    let mut expected = vec![(order_header::pk(&order), order_header::SORT_KEY.to_string())];
    expected.extend(
        details
            .items
            .iter()
            .map(|l| (line_item::pk(&order), line_item::sk(&l.sku))),
    );
    assert_eq!(keys_of(&select(&store, &statements["7"]).await), expected);

    // 8. The product's orders, newest first, on GSI2.
    let product_orders = every_page(|page| {
        let (store, sku, caller) = (&store, &sku, &caller);
        async move {
            store
                .list_product_orders(sku, PlacedWindow::default(), &page, caller)
                .await
        }
    })
    .await;
    assert!(product_orders.len() > 1);
    let expected: Vec<Key> = product_orders
        .iter()
        .map(|line| (line_item::pk(&line.order_id), line_item::sk(&sku)))
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["8"]).await), expected);

    // 9. c2's cart (the sample cart), its lines in SKU order.
    let c2 = CustomerId::parse("c2").expect("id");
    let cart = store.get_cart(&c2).await.expect("cart");
    assert!(cart.items.len() > 1);
    let expected: Vec<Key> = cart
        .items
        .iter()
        .map(|line| (cart_line::pk(&c2), cart_line::sk(&line.sku)))
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["9"]).await), expected);

    // 10. The refunds due, oldest first: two payments that named no order.
    for n in 1..=2 {
        let event = PaymentEventId::parse(&format!("evt_{n}")).expect("id");
        let payment = Payment {
            id: PaymentId::parse(&format!("pi_{n}")).expect("id"),
            amount: 100 * n,
            currency: "usd".to_owned(),
            amount_received: Some(100 * n),
            charges: None,
            metadata: PaymentMetadata::default(),
            last_payment_error: None,
        };
        store
            .apply_payment(&event, &payment, store.currency())
            .await
            .expect("recorded");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let refunds = every_page(|page| {
        let (store, caller) = (&store, &caller);
        async move {
            store
                .list_refunds(RefundStatus::Requested, &page, caller)
                .await
        }
    })
    .await;
    assert_eq!(refunds.len(), 2);
    let expected: Vec<Key> = refunds
        .iter()
        .map(|r| {
            (
                refund_due::pk(&r.payment_id),
                refund_due::SORT_KEY.to_owned(),
            )
        })
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["10"]).await), expected);

    // 11. The returns asked for: the sample data's, and one staff record now.
    let delivered = store
        .get_order(&OrderId::parse("o102").expect("id"), &caller)
        .await
        .expect("read")
        .expect("o102");
    let asked = shared::domain::returns::OrderReturn::requested(
        shared::domain::ids::ReturnId::parse("rt_new").expect("id"),
        vec![shared::domain::order::LineQuantity {
            sku: shared::domain::ids::Sku::parse("sku-7").expect("sku"),
            quantity: 1,
        }],
        "too strong".to_owned(),
        shared::domain::time::Timestamp::now(),
    );
    store
        .request_return(&delivered, &asked)
        .await
        .expect("asked");
    let returns = every_page(|page| {
        let (store, caller) = (&store, &caller);
        async move {
            store
                .list_returns(
                    shared::domain::returns::ReturnStatus::Requested,
                    &page,
                    caller,
                )
                .await
        }
    })
    .await;
    assert_eq!(returns.len(), 2);
    let expected: Vec<Key> = returns
        .iter()
        .map(|r| {
            (
                shared::dynamo::entities::line_item::pk(&r.order_id),
                shared::dynamo::entities::order_return::sk(&r.order_return.return_id),
            )
        })
        .collect();
    assert_eq!(keys_of(&select(&store, &statements["11"]).await), expected);

    // 4b. Four status shards: the orders moved into them, read by the API merged by placedAt,
    // by PartiQL shard by shard — the same orders, each shard in the same order.
    let shards = StatusShards::new(4).expect("shards");
    let sharded = store.clone().with_status_shards(shards);
    sharded.reshard_statuses().await.expect("resharded");
    let merged = every_page(|page| {
        let (store, caller) = (&sharded, &caller);
        async move {
            store
                .list_orders_by_status(OrderStatus::Placed, &page, caller)
                .await
        }
    })
    .await;
    assert_eq!(merged.len(), placed.len());
    let rows = select(&store, &statements["4b"]).await;
    let mut expected = Vec::new();
    for k in 0..shards.count() {
        let in_shard: Vec<_> = merged
            .iter()
            .filter(|o| shards.of(&o.order_id) == k)
            .cloned()
            .collect();
        assert!(!in_shard.is_empty(), "shard {k} holds orders");
        let gsi1pk = order_listing::gsi1pk(OrderStatus::Placed, k);
        assert!(
            rows.iter()
                .any(|row| row[keys::GSI1PK].as_s().ok() == Some(&gsi1pk))
        );
        expected.extend(listing_keys(&in_shard));
    }
    assert_eq!(keys_of(&rows), expected);
}
