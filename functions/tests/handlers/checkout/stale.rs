//! A checkout's first read of its variants is eventually consistent (every buyer of a flash
//! sale reads the same one): a read that has not yet seen them is read again consistently
//! before anything is refused, and a sold-out SKU is answered from the read. A warm process
//! reads the cart at the same time as the customer's own items.

use local_engine::faults::Fault;
use local_engine::testing::dispatch;
use local_engine::testing::payments::hold_line;
use local_engine::testing::{TestApp, parts};

use super::check_out;
use super::limits::buyers;

#[tokio::test]
async fn a_stale_read_of_the_variants_never_refuses_a_checkout() {
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    let line = hold_line("c1", "sku-1", 1);
    let (status, _, body) = parts(dispatch(&app.store, line, functions::edit_cart::handle).await);
    assert_eq!(status, 200, "{body}");
    let before = app.stock("sku-1").await;

    // The variant not seen at all: an unknown product to the first read, held on the second.
    faults.inject("BatchGetItem", Fault::StaleRead, 1);
    let (status, body) = check_out(&app.store, "c1", Some("stale-1")).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        faults.injected(),
        [("BatchGetItem".to_owned(), Fault::StaleRead)]
    );
    assert_eq!(app.stock("sku-1").await, before - 1);

    // The same key again: the first answer, from the record read consistently.
    let (status, again) = check_out(&app.store, "c1", Some("stale-1")).await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["orderId"], body["orderId"]);
    assert_eq!(app.stock("sku-1").await, before - 1);
}

#[tokio::test]
async fn a_warm_process_reads_the_cart_and_the_customer_at_once() {
    let app = TestApp::seeded().await.expect("app");
    let customers = buyers(&app, 2, "sku-2", 1).await;
    // A process's first checkout reads them one after the other: a cold start opens one
    // connection.
    let (status, body) = check_out(&app.store, &customers[0], None).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(app.requests.most_at_once(), 1);
    // The next reads the cart and the customer's items at once.
    app.requests.reset();
    let (status, body) = check_out(&app.store, &customers[1], None).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(app.requests.most_at_once(), 2);
}
