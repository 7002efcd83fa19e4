//! A SKU's stock split over stock shards (`POST /variants/{sku}/stock` `{"shards": k}`): its
//! buyers take their units from different items, a unit in stock is never refused while any
//! shard holds it, none is sold twice, and what staff and customers see is the SKU's whole
//! stock.

use std::time::Duration;

use futures_util::future::join_all;
use local_engine::testing::{TestApp, Who, catalog, dispatch, parts, send_json};
use serde_json::{Value, json};
use shared::domain::ids::{CustomerId, Sku};
use shared::domain::order::RequestedLine;
use shared::domain::stock_shards::{ShardCount, buyer_seed};
use shared::dynamo::orders::{InputsRead, OrderInputs};

use super::check_out;
use super::limits::buyers;

async fn stock_change(app: &TestApp, sku: &str, body: Value) -> (u16, Value) {
    let req = send_json(
        Who::Staff,
        "POST /variants/{sku}/stock",
        &format!("/variants/{sku}/stock"),
        &[],
        &body.to_string(),
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::adjust_stock::handle).await);
    (status, body)
}

async fn seen(app: &TestApp, who: Who<'_>, sku: &str) -> Value {
    let req = catalog::get_variant(who, sku);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_variant::handle).await);
    assert_eq!(status, 200, "{body}");
    body
}

/// The units each of `sku`'s shards holds, the variant's item first.
async fn levels(app: &TestApp, sku: &str) -> Vec<u64> {
    let sku = Sku::parse(sku).expect("sku");
    let store = app.direct_store();
    let mut variant = store
        .get_variant(&sku, true)
        .await
        .expect("read")
        .expect("variant");
    let own = variant.stock;
    let levels = store
        .read_stock_shards([&mut variant], true)
        .await
        .expect("shards");
    levels.of(&sku).map_or_else(|| vec![own], <[u64]>::to_vec)
}

/// Staff's order of `quantity` `tee-1` at 9.00 for c2, directly (`POST /customers/c2/orders`).
async fn staff_order_of_tees(app: &TestApp, quantity: u32) -> (u16, Value) {
    let body = format!(r#"{{"items":[{{"sku":"tee-1","quantity":{quantity},"price":"9.00"}}]}}"#);
    let route = "POST /customers/{customerId}/orders";
    let req = send_json(Who::Staff, route, "/customers/c2/orders", &[], &body);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::place_order::handle).await);
    (status, body)
}

#[tokio::test]
async fn staff_split_a_skus_stock_and_everyone_sees_it_whole() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = stock_change(&app, "sku-3", json!({"delta": 3, "shards": 4})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["stock"], &body["stockShards"]),
        (&json!(103), &json!(4))
    );
    assert_eq!(levels(&app, "sku-3").await, [26, 26, 26, 25]);
    let staff = seen(&app, Who::Staff, "sku-3").await;
    assert_eq!(
        (&staff["stock"], &staff["stockShards"]),
        (&json!(103), &json!(4))
    );
    let customer = seen(&app, Who::Customer("c2"), "sku-3").await;
    assert_eq!(customer["inStock"], json!(true));
    assert!(customer.get("stockShards").is_none(), "{customer}");

    // Staff take away more than any one shard holds: from the fullest ones.
    let (status, body) = stock_change(&app, "sku-3", json!({"delta": -60})).await;
    assert_eq!((status, &body["stock"]), (200, &json!(43)), "{body}");
    assert_eq!(levels(&app, "sku-3").await.iter().sum::<u64>(), 43);
    let (status, body) = stock_change(&app, "sku-3", json!({"delta": -44})).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        stock_change(&app, "sku-3", json!({"delta": 60})).await.0,
        200
    );

    // Taken down to 2 shards and back to 1: every unit kept.
    assert_eq!(
        stock_change(&app, "sku-3", json!({"shards": 2})).await.0,
        200
    );
    assert_eq!(levels(&app, "sku-3").await, [52, 51]);
    let (status, body) = stock_change(&app, "sku-3", json!({"shards": 1})).await;
    assert_eq!((status, &body["stock"]), (200, &json!(103)), "{body}");
    assert_eq!(levels(&app, "sku-3").await, [103]);

    for bad in [
        json!({}),
        json!({"shards": 0}),
        json!({"shards": 33}),
        json!({"shards": 2.5}),
    ] {
        assert_eq!(
            stock_change(&app, "sku-3", bad.clone()).await.0,
            400,
            "{bad}"
        );
    }
    assert_eq!(
        stock_change(&app, "nope", json!({"shards": 2})).await.0,
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn buyers_at_once_take_every_unit_of_a_sharded_sku_and_no_more() {
    let app = TestApp::seeded().await.expect("app");
    let customers = buyers(&app, 12, "sku-4", 1).await;
    // 7 units over 4 shards (2, 2, 2, 1) for 12 buyers.
    let before = app.stock("sku-4").await;
    let cut = 7 - i64::try_from(before).expect("stock");
    let (status, body) = stock_change(&app, "sku-4", json!({"delta": cut, "shards": 4})).await;
    assert_eq!((status, &body["stock"]), (200, &json!(7)), "{body}");

    let answers = join_all(customers.iter().map(|customer| {
        let store = app.store.clone();
        async move { check_out(&store, customer, None).await }
    }))
    .await;
    let accepted = answers.iter().filter(|(status, _)| *status == 201).count();
    let refused: Vec<_> = answers
        .iter()
        .filter(|(status, _)| *status != 201)
        .collect();
    assert_eq!(accepted, 7, "{refused:?}");
    for (status, body) in &refused {
        assert_eq!(*status, 409, "{body}");
    }
    assert_eq!(levels(&app, "sku-4").await, [0, 0, 0, 0]);
    let customer = seen(&app, Who::Customer("c2"), "sku-4").await;
    assert_eq!(customer["inStock"], json!(false));
}

#[tokio::test]
async fn a_line_no_one_shard_holds_is_taken_from_several() {
    let app = TestApp::seeded().await.expect("app");
    let customers = buyers(&app, 1, "sku-5", 5).await;
    let before = i64::try_from(app.stock("sku-5").await).expect("stock");
    let (status, _) = stock_change(&app, "sku-5", json!({"delta": 6 - before, "shards": 4})).await;
    assert_eq!(status, 200);
    assert_eq!(levels(&app, "sku-5").await, [2, 2, 1, 1]);
    let (status, body) = check_out(&app.store, &customers[0], None).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(levels(&app, "sku-5").await.iter().sum::<u64>(), 1);
    assert_eq!(app.stock("sku-5").await, 1);
}

/// `PUT /products/tee-1` through its handler: one variant, `sku` at `price`.
async fn put_tee(app: &TestApp, sku: &str, price: &str) {
    let body = json!({
        "title": "Tee",
        "status": "PUBLISHED",
        "variants": [{"sku": sku, "options": {}, "price": price}],
    });
    let req = catalog::put_product(Who::Staff, "tee-1", &body.to_string());
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_product::handle).await);
    assert!(status == 200 || status == 201, "{status} {body}");
}

#[tokio::test]
async fn an_order_staff_place_takes_from_the_shards_too() {
    let app = TestApp::seeded().await.expect("app");
    put_tee(&app, "tee-1", "9.00").await;
    let split = stock_change(&app, "tee-1", json!({"delta": 6, "shards": 4})).await;
    assert_eq!(split.0, 200, "{}", split.1);
    // 2, 2, 1 and 1: five come from three shards, the variant's own item among them.
    let (status, body) = staff_order_of_tees(&app, 5).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(levels(&app, "tee-1").await.iter().sum::<u64>(), 1);
    let (status, body) = staff_order_of_tees(&app, 2).await;
    assert_eq!(status, 409, "{body}");
}

#[tokio::test]
async fn a_price_written_after_the_split_reaches_every_shard() {
    let app = TestApp::seeded().await.expect("app");
    put_tee(&app, "tee-1", "12.50").await;
    let split = stock_change(&app, "tee-1", json!({"delta": 8, "shards": 3})).await;
    assert_eq!(split.0, 200, "{}", split.1);
    put_tee(&app, "tee-1", "9.00").await;
    let customers = buyers(&app, 3, "tee-1", 2).await;
    for customer in &customers {
        let (status, body) = check_out(&app.store, customer, None).await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["items"][0]["price"], json!("9.00"), "{body}");
    }
    assert_eq!(app.stock("tee-1").await, 2);

    // Staff order one directly at the new price; the product shows the stock left whole.
    let (status, body) = staff_order_of_tees(&app, 1).await;
    assert_eq!(status, 201, "{body}");
    let req = catalog::get_product(Who::Staff, "tee-1");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_product::handle).await);
    assert_eq!(
        (status, &body["variants"][0]["stock"]),
        (200, &json!(1)),
        "{body}"
    );

    // The product drops the SKU: no shard of it sells any more.
    put_tee(&app, "tee-2", "9.00").await;
    let (status, body) = staff_order_of_tees(&app, 1).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(app.stock("tee-1").await, 1);
}

#[tokio::test]
async fn a_process_that_found_a_sharded_sku_sold_out_answers_its_next_buyers_in_one_round_trip() {
    let app = TestApp::seeded().await.expect("app");
    let customers = buyers(&app, 4, "sku-2", 1).await;
    let sku = Sku::parse("sku-2").expect("sku");
    let before = i64::try_from(app.stock("sku-2").await).expect("stock");
    let sold_out = json!({"delta": -before, "shards": 4});
    assert_eq!(stock_change(&app, "sku-2", sold_out).await.0, 200);
    // A process keeping its copies a minute, so that what follows does not depend on how fast
    // the test runs (a second, by default).
    let process = app.store.clone().with_copies_kept(Duration::from_secs(60));
    // Its first buyer's read finds every shard empty...
    assert_eq!(check_out(&process, &customers[0], None).await.0, 409);
    // ...so the next is answered from the cart and the customer's items, read at once: no
    // variant, no shard, no transaction.
    app.requests.reset();
    let (status, body) = check_out(&process, &customers[1], None).await;
    assert_eq!(status, 409, "{body}");
    let sent = app.requests.by_operation();
    assert_eq!(
        (sent.get("Query"), sent.get("BatchGetItem")),
        (Some(&1), Some(&1)),
        "{sent:?}"
    );
    assert_eq!(sent.get("TransactWriteItems"), None);
    assert_eq!(app.requests.most_at_once(), 2);
    // ...and once a buyer asked for it from the copy, the next is refused from their cart
    // alone: one Query, which reads the mark of their profile on the cart's version.
    app.requests.reset();
    let (status, body) = check_out(&process, &customers[2], None).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["detail"], json!("not enough stock of sku-2"), "{body}");
    let sent = app.requests.by_operation();
    assert_eq!(
        sent.into_iter().collect::<Vec<_>>(),
        [("Query".to_owned(), 1)]
    );
    // A unit another process puts back reaches this one's buyers when its copy ends...
    let elsewhere = app.direct_store();
    elsewhere.adjust_stock(&sku, 1).await.expect("restock");
    assert_eq!(check_out(&process, &customers[2], None).await.0, 409);
    // ...one this process puts back, at once; and with it, every shard is read again.
    process.adjust_stock(&sku, 1).await.expect("restock");
    for customer in &customers[2..] {
        let (status, body) = check_out(&process, customer, None).await;
        assert_eq!(status, 201, "{body}");
    }
    assert_eq!(app.stock("sku-2").await, 0);
}

#[tokio::test]
async fn a_cart_read_first_refuses_only_a_customer_it_knows_and_the_rest_read_their_own_items() {
    let app = TestApp::seeded().await.expect("app");
    let customers = buyers(&app, 3, "sku-2", 1).await;
    let before = i64::try_from(app.stock("sku-2").await).expect("stock");
    let sold_out = json!({"delta": -before, "shards": 4});
    assert_eq!(stock_change(&app, "sku-2", sold_out).await.0, 200);
    let process = app.store.clone().with_copies_kept(Duration::from_secs(60));
    // The copy is made, then a buyer asks for it: the next buyer's cart is read first.
    for customer in &customers[..2] {
        assert_eq!(check_out(&process, customer, None).await.0, 409);
    }
    // A cart of someone with no profile: no mark, so their items are read after it, and the
    // unknown customer is a 404 before the sold-out SKU.
    let req = local_engine::testing::payments::hold_line("stranger", "sku-2", 1);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::edit_cart::handle).await);
    assert_eq!(status, 200, "{body}");
    let (status, body) = check_out(&process, "stranger", None).await;
    assert_eq!(status, 404, "{body}");
    // A profile written before the mark existed: refused after its items are read.
    let unmarked = &customers[2];
    let version =
        shared::dynamo::entities::cart_version::key(&CustomerId::parse(unmarked).expect("id"));
    (app.engine.client().update_item())
        .table_name(local_engine::LOCAL_TABLE)
        .set_key(Some(version))
        .update_expression("REMOVE profiled")
        .send()
        .await
        .expect("mark removed");
    assert_eq!(check_out(&process, &customers[0], None).await.0, 409);
    app.requests.reset();
    let (status, body) = check_out(&process, unmarked, None).await;
    assert_eq!(status, 409, "{body}");
    let sent = app.requests.by_operation();
    assert_eq!(
        (sent.get("Query"), sent.get("BatchGetItem")),
        (Some(&1), Some(&1)),
        "{sent:?}"
    );
    assert_eq!(app.requests.most_at_once(), 1, "the cart, then the items");
}

#[tokio::test]
async fn a_copy_that_served_a_buyer_is_read_again_beside_the_next_cart_when_it_ends() {
    let app = TestApp::seeded().await.expect("app");
    let customers = buyers(&app, 4, "sku-2", 1).await;
    let before = i64::try_from(app.stock("sku-2").await).expect("stock");
    let sold_out = json!({"delta": -before, "shards": 4});
    assert_eq!(stock_change(&app, "sku-2", sold_out).await.0, 200);
    let kept = Duration::from_secs(2);
    let process = app.store.clone().with_copies_kept(kept);
    // The first buyer's read makes the copy; the second is served from it.
    assert_eq!(check_out(&process, &customers[0], None).await.0, 409);
    assert_eq!(check_out(&process, &customers[1], None).await.0, 409);
    tokio::time::sleep(kept + Duration::from_millis(100)).await;
    // The copy has ended: the next buyer's cart, and their items with the variant and its
    // shards in the same BatchGetItem, are read at once, and nothing after.
    app.requests.reset();
    assert_eq!(check_out(&process, &customers[2], None).await.0, 409);
    let sent = app.requests.by_operation();
    assert_eq!(
        (sent.get("Query"), sent.get("BatchGetItem")),
        (Some(&1), Some(&1)),
        "{sent:?}"
    );
    assert_eq!(app.requests.most_at_once(), 2);
    // That copy served the buyer it was read beside, so it is read ahead again when it ends (a
    // copy no buyer used is not: the unit tests of `shared::dynamo::recent`).
    tokio::time::sleep(kept + Duration::from_millis(100)).await;
    app.requests.reset();
    assert_eq!(check_out(&process, &customers[3], None).await.0, 409);
    assert_eq!(app.requests.most_at_once(), 2);
    assert_eq!(app.requests.by_operation().get("BatchGetItem"), Some(&1));
}

/// An order's read of `quantity` `sku` for c1, as `read` says.
async fn inputs_read(app: &TestApp, sku: &str, quantity: u32, read: InputsRead) -> OrderInputs {
    let sku = Sku::parse(sku).expect("sku");
    let requested = [RequestedLine {
        sku: sku.clone(),
        quantity,
        expected_price: None,
    }];
    let customer = CustomerId::parse("c1").expect("customer");
    (app.store)
        .read_order_inputs(&customer, None, &requested, (read, true, 0))
        .await
        .expect("read")
}

/// An order's first read of `quantity` `sku` for c1: its stock levels, as the read found them.
async fn levels_read(app: &TestApp, sku: &str, quantity: u32) -> Vec<u64> {
    let inputs = inputs_read(app, sku, quantity, InputsRead::VariantsEventual).await;
    let sku = Sku::parse(sku).expect("sku");
    inputs.levels.of(&sku).expect("sharded").to_vec()
}

/// `sku`'s price, as an order's read of it for c1 finds it.
async fn price_read(app: &TestApp, sku: &str, read: InputsRead) -> String {
    let inputs = inputs_read(app, sku, 1, read).await;
    let sku = Sku::parse(sku).expect("sku");
    inputs.products[&sku].price.to_string()
}

#[tokio::test]
async fn a_buyer_reads_only_their_start_shard_while_it_holds_their_line() {
    let app = TestApp::seeded().await.expect("app");
    let split = json!({"delta": 40, "shards": 4});
    assert_eq!(stock_change(&app, "sku-2", split).await.0, 200);
    let all = levels(&app, "sku-2").await;
    assert!(all.iter().all(|level| (10..36).contains(level)), "{all:?}");
    // The process learnt the count from staff's split: a buyer's read asks for the variant's
    // item and c1's start shard alone, and every other shard reads as 0.
    let seen = levels_read(&app, "sku-2", 1).await;
    let read: Vec<usize> = (1..4).filter(|k| seen[*k] > 0).collect();
    assert!(read.len() <= 1 && seen[0] == all[0], "{seen:?} of {all:?}");
    assert!(read.iter().all(|k| seen[*k] == all[*k]));
    // A line its start shard cannot hold reads them all, and so does the read after it, so a
    // SKU running out is answered from one read.
    assert_eq!(levels_read(&app, "sku-2", 36).await, all);
    assert_eq!(levels_read(&app, "sku-2", 1).await, all);
    assert_eq!(
        levels_read(&app, "sku-2", 1).await,
        seen,
        "back to one shard"
    );
}

#[tokio::test]
async fn a_process_reads_a_sharded_variant_once_a_second_and_never_sells_at_an_old_price() {
    let app = TestApp::seeded().await.expect("app");
    put_tee(&app, "tee-1", "9.00").await;
    let split = stock_change(&app, "tee-1", json!({"delta": 40, "shards": 4})).await;
    assert_eq!(split.0, 200, "{}", split.1);
    let customers = buyers(&app, 4, "tee-1", 1).await;
    let (status, body) = check_out(&app.store, &customers[0], None).await;
    assert_eq!(
        (status, &body["items"][0]["price"]),
        (201, &json!("9.00")),
        "{body}"
    );
    let (status, _) = check_out(&app.store, &customers[1], None).await;
    assert_eq!(status, 201);
    // Another process (staff's) changes the price, and its shards' copies with it.
    let staff = app.direct_store();
    let body = json!({
        "title": "Tee",
        "status": "PUBLISHED",
        "variants": [{"sku": "tee-1", "options": {}, "price": "12.00"}],
    });
    let req = catalog::put_product(Who::Staff, "tee-1", &body.to_string());
    let (status, _, _) = parts(dispatch(&staff, req, functions::put_product::handle).await);
    assert_eq!(status, 200);
    // This process's copy still says 9.00 to an eventually consistent read...
    assert_eq!(
        price_read(&app, "tee-1", InputsRead::VariantsEventual).await,
        "9.00"
    );
    // ...but the take's condition on the shard does not: the checkout reads again, strongly
    // consistent, and sells at 12.00.
    for customer in &customers[2..] {
        let (status, body) = check_out(&app.store, customer, None).await;
        assert_eq!(
            (status, &body["items"][0]["price"]),
            (201, &json!("12.00")),
            "{body}"
        );
    }
    assert_eq!(app.stock("tee-1").await, 36);
    // The read again refreshed the copy.
    assert_eq!(
        price_read(&app, "tee-1", InputsRead::VariantsEventual).await,
        "12.00"
    );
}

#[tokio::test]
async fn a_buyer_whose_shard_another_is_taking_from_tries_another_at_once() {
    // A transaction holds its items 200 ms. The store's wait after a collision is drawn from up
    // to two minutes: a buyer that collided on a shard and waited would take that long.
    let model = local_engine::limits::Model::scaled(100.0);
    let (app, limits) = TestApp::seeded_with_limits(model).await.expect("app");
    let customers = buyers(&app, 12, "sku-4", 1).await;
    let (status, body) = stock_change(&app, "sku-4", json!({"shards": 4})).await;
    assert_eq!(status, 200, "{body}");
    let before = levels(&app, "sku-4").await.iter().sum::<u64>();
    // Two buyers who start on the same shard, at once.
    let count = ShardCount::new(4).expect("a count");
    let start = |c: &String| count.start_for(&buyer_seed(&CustomerId::parse(c).expect("id"), 0));
    let first = &customers[0];
    let second = (customers[1..].iter().find(|c| start(c) == start(first))).expect("a pair");
    let patient = shared::retry::Backoff {
        attempts: 6,
        base: Duration::from_secs(120),
        cap: Duration::from_secs(120),
    };
    let store = app.store.clone().with_transaction_backoff(patient);
    let sent = std::time::Instant::now();
    let answers = join_all([first, second].map(|c| check_out(&store, c, None))).await;
    for (status, body) in &answers {
        assert_eq!(*status, 201, "{body}");
    }
    assert!(limits.refusals().conflicts > 0, "{:?}", limits.refusals());
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(levels(&app, "sku-4").await.iter().sum::<u64>(), before - 2);
}
