//! A variant is what is sold: checked out, paid and refunded by its SKU as any product before
//! it; its order line keeps the product's title and the variant's options as they were, whatever
//! the catalog says later; a variant of a product that is not published is refused in the cart
//! and at checkout, with nothing held.

use local_engine::testing::payments::hold_line;
use local_engine::testing::{TestApp, Who, catalog, dispatch, parts, send_json};
use serde_json::json;

use super::{cart_len, check_out};
use crate::flows::{ledger, order_of, paid, pay_refunds};
use crate::put_product::{put_tee, tee};

/// Staff add `delta` to `sku`'s stock.
async fn stock(app: &TestApp, sku: &str, delta: i64) {
    let req = catalog::adjust_stock(Who::Staff, sku, delta);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::adjust_stock::handle).await);
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_variant_is_sold_by_its_sku_and_its_line_keeps_what_was_bought() {
    let app = TestApp::seeded().await.expect("app");
    put_tee(&app, "PUBLISHED").await;
    stock(&app, "tee-m-blue", 5).await;
    let (order, amount, _) = paid(&app.store, "c1", &[("tee-m-blue", 2)]).await;
    assert_eq!(amount, 3800);
    assert_eq!(app.stock("tee-m-blue").await, 3);
    // The catalog changes after the order: retitled and repriced.
    let mut renamed = tee("PUBLISHED");
    renamed["title"] = json!("Plain tee, organic");
    renamed["variants"][3]["price"] = json!("25.00");
    let req = catalog::put_product(Who::Staff, "tee", &renamed.to_string());
    assert_eq!(
        parts(dispatch(&app.store, req, functions::put_product::handle).await).0,
        200
    );
    let line = order_of(&app.store, &order).await["items"][0].clone();
    assert_eq!(
        line,
        json!({
            "sku": "tee-m-blue", "quantity": 2, "price": "19.00", "title": "Plain tee",
            "options": {"Size": "M", "Colour": "Blue"}, "discount": "0.00", "tax": "0.00",
        }),
        "the line as bought, priced with no promotion and no tax"
    );
    // Refunded by its SKU, the unit back in stock, as before variants.
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/refunds",
        &format!("/orders/{order}/refunds"),
        &[("idempotency-key", "tee-back")],
        r#"{"lines":[{"sku":"tee-m-blue","quantity":1}],"reason":"too small","restock":true}"#,
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::refund_order::handle).await);
    assert_eq!(status, 202, "{body}");
    pay_refunds(&app.store).await;
    let ledger = ledger(&app.store, &order).await;
    assert_eq!(
        (&ledger["refunded"], &ledger["refunds"][0]["status"]),
        (&json!(1900), &json!("SUCCEEDED")),
        "{ledger}"
    );
    assert_eq!(app.stock("tee-m-blue").await, 4);
}

#[tokio::test]
async fn a_variant_of_a_product_not_published_is_refused_in_the_cart_and_at_checkout() {
    let app = TestApp::seeded().await.expect("app");
    put_tee(&app, "DRAFT").await;
    stock(&app, "tee-s-red", 5).await;
    let req = hold_line("c3", "tee-s-red", 1);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::edit_cart::handle).await);
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        (&body["type"], &body["skus"]),
        (&json!("/problems/not-for-sale"), &json!(["tee-s-red"]))
    );
    assert_eq!(cart_len(&app, "c3").await, 0, "nothing added");
    // Published, put in the cart, then taken back to a draft before the checkout.
    put_tee(&app, "PUBLISHED").await;
    let req = hold_line("c3", "tee-s-red", 1);
    assert_eq!(
        parts(dispatch(&app.store, req, functions::edit_cart::handle).await).0,
        200
    );
    put_tee(&app, "DRAFT").await;
    let (status, body) = check_out(&app.store, "c3", None).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["type"], "/problems/not-for-sale");
    assert_eq!(app.stock("tee-s-red").await, 5, "nothing held");
    assert_eq!(cart_len(&app, "c3").await, 1, "the cart is kept");
}
