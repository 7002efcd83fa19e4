//! `GET /customers/{customerId}/cart/quote` through its handler, against the sample data: c2's
//! cart (sku-1 × 1 at 19.95, sku-3 × 2 at 12.00: 43.95), the sample ways to ship, taxes and
//! promotions (SAVE10: 10 % from 20.00; candles three for two). Each figure below is worked by
//! hand from docs/pricing.md's rules, never read off the code.

use local_engine::LOCAL_TABLE;
use local_engine::testing::{TestApp, Who, dispatch, from_event_file, get, parts};
use serde_json::{Value, json};
use shared::domain::cart::CartLine;
use shared::domain::ids::{CustomerId, Sku};
use shared::dynamo::entities::cart_line;

const ROUTE: &str = "GET /customers/{customerId}/cart/quote";

async fn quote(
    app: &TestApp,
    store: &shared::Store,
    who: Who<'_>,
    customer: &str,
    query: &str,
) -> (u16, Value) {
    let req = get(
        who,
        ROUTE,
        &format!("/customers/{customer}/cart/quote"),
        query,
    );
    let _ = app;
    let (status, _, body) = parts(dispatch(store, req, functions::quote_cart::handle).await);
    (status, body)
}

/// `customer`'s cart line of `quantity` × `sku`, live for a day.
async fn in_cart(app: &TestApp, customer: &str, sku: &str, quantity: u32) {
    let line = CartLine {
        sku: Sku::parse(sku).expect("sku"),
        quantity,
    };
    let expires_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        + 86_400;
    let item = cart_line::to_item(&CustomerId::parse(customer).expect("id"), &line, expires_at);
    app.engine
        .client()
        .put_item()
        .table_name(LOCAL_TABLE)
        .set_item(Some(item))
        .send()
        .await
        .expect("put");
}

#[tokio::test]
async fn the_sample_event_prices_the_cart_with_a_code_shipping_and_tax() {
    let app = TestApp::seeded().await.expect("app");
    app.requests.reset();
    let req = from_event_file("../events/quote-cart.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::quote_cart::handle).await);
    assert_eq!(status, 200, "{body}");
    // SAVE10: 4.395 rounds to 4.40, split 2.00 / 2.40 by the lines' subtotals (19.95 : 24.00,
    // the leftover cent to the larger remainder). New York's 8.875 % on what is left:
    // 17.95 → 1.59, 21.60 → 1.917 → 1.92; the United States tax no shipping. Express: 15.00.
    assert_eq!(
        body,
        json!({
            "lines": [
                {"sku": "sku-1", "quantity": 1, "price": "19.95", "subtotal": "19.95", "discount": "2.00", "tax": "1.59"},
                {"sku": "sku-3", "quantity": 2, "price": "12.00", "subtotal": "24.00", "discount": "2.40", "tax": "1.92"},
            ],
            "subtotal": "43.95", "discount": "4.40", "shipping": "15.00", "shippingDiscount": "0.00",
            "shippingTax": "0.00", "tax": "3.51", "total": "58.06", "pricesIncludeTax": false,
            "promotions": [{"promotionId": "save10", "code": "SAVE10", "discount": "4.40"}],
            "shippingOptionId": "express", "country": "US", "region": "US-NY",
        })
    );
    assert_eq!(
        app.requests.by_operation(),
        [("BatchGetItem".to_owned(), 1), ("Query".to_owned(), 2)].into(),
        "the cart and the promotions, then one BatchGetItem"
    );
}

#[tokio::test]
async fn without_an_address_the_cart_is_its_lines_and_an_automatic_promotion_applies_alone() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = quote(&app, &app.store, Who::Customer("c2"), "c2", "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (
            &body["subtotal"],
            &body["discount"],
            &body["tax"],
            &body["total"]
        ),
        (
            &json!("43.95"),
            &json!("0.00"),
            &json!("0.00"),
            &json!("43.95")
        )
    );
    // A third candle: two bought, the cheapest rewarded unit free (12.00 off).
    in_cart(&app, "c2", "sku-3", 3).await;
    let (_, body) = quote(&app, &app.store, Who::Staff, "c2", "").await;
    assert_eq!(
        (&body["lines"][1]["discount"], &body["total"]),
        (&json!("12.00"), &json!("43.95")),
        "{body}"
    );
    // SAVE10 combines, the candles do not: 10 % of 55.95 (5.60) is less than 12.00.
    let (_, body) = quote(&app, &app.store, Who::Customer("c2"), "c2", "code=save10").await;
    assert_eq!(
        (&body["discount"], &body["promotions"][0]["promotionId"]),
        (&json!("12.00"), &json!("candles-3-for-2")),
        "{body}"
    );
}

#[tokio::test]
async fn prices_with_tax_included_show_its_part_and_the_total_does_not_grow() {
    let app = TestApp::seeded().await.expect("app");
    let store = app.store.clone().with_prices_include_tax(true);
    // Germany, 19 % and shipping taxed; standard weighs nothing here, so its first band (4.00).
    let (status, body) = quote(
        &app,
        &store,
        Who::Customer("c2"),
        "c2",
        "shippingOptionId=standard&country=DE",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // 19.95 holds 19.95 - 19.95 / 1.19 = 3.1853 → 3.19 of tax; 24.00 → 3.83; 4.00 → 0.64.
    assert_eq!(
        (
            &body["lines"][0]["tax"],
            &body["lines"][1]["tax"],
            &body["shippingTax"],
            &body["tax"],
            &body["total"]
        ),
        (
            &json!("3.19"),
            &json!("3.83"),
            &json!("0.64"),
            &json!("7.66"),
            &json!("47.95")
        ),
        "{body}"
    );
}

#[tokio::test]
async fn what_cannot_be_quoted_is_a_clear_problem() {
    let app = TestApp::seeded().await.expect("app");
    for (query, status, kind) in [
        ("code=NOPE", 422, "/problems/unknown-code"),
        ("code=x", 400, "/problems/invalid-request"),
        ("region=US-CA", 400, "/problems/invalid-request"),
        ("country=XX", 400, "/problems/invalid-request"),
        (
            "shippingOptionId=express&country=DE",
            400,
            "/problems/invalid-request",
        ),
        ("shippingOptionId=express", 400, "/problems/invalid-request"),
        (
            "shippingOptionId=drone&country=US",
            404,
            "/problems/not-found",
        ),
        (
            "code=A1B,C2D,E3F,G4H,I5J,K6L",
            400,
            "/problems/invalid-request",
        ),
    ] {
        let (got, body) = quote(&app, &app.store, Who::Customer("c2"), "c2", query).await;
        assert_eq!(
            (got, body["type"].as_str()),
            (status, Some(kind)),
            "{query}: {body}"
        );
    }
    let (status, body) = quote(&app, &app.store, Who::Customer("c3"), "c3", "").await;
    assert_eq!(
        (status, &body["type"]),
        (409, &json!("/problems/cart-empty"))
    );
}

#[tokio::test]
async fn a_promotion_for_a_category_takes_off_only_its_products_lines() {
    let app = TestApp::seeded().await.expect("app");
    // Half off the kitchen (the mug, sku-1, is in it; the candles, sku-3, are not).
    crate::flows::put_promotion(&app.store, "kitchen-half", crate::flows::KITCHEN_HALF).await;
    app.requests.reset();
    let (status, body) = quote(&app, &app.store, Who::Customer("c2"), "c2", "code=kitchen").await;
    assert_eq!(status, 200, "{body}");
    // 50 % of 19.95 is 9.975, so 9.98, all on the mug.
    assert_eq!(
        (
            &body["lines"][0]["discount"],
            &body["lines"][1]["discount"],
            &body["total"]
        ),
        (&json!("9.98"), &json!("0.00"), &json!("33.97")),
        "{body}"
    );
    assert_eq!(
        app.requests.by_operation(),
        [
            ("BatchGetItem".to_owned(), 2),
            ("GetItem".to_owned(), 1),
            ("Query".to_owned(), 2)
        ]
        .into(),
        "the products' categories in a second BatchGetItem; the profile for an address"
    );
}

/// A store with many limited codes: a quote reads the counts of the promotions that may apply
/// (the code given), never of every code the store has (60 with two limits each would be 120
/// keys, more than one BatchGetItem reads).
#[tokio::test]
async fn a_quote_reads_the_counts_of_the_codes_given_only() {
    let app = TestApp::seeded().await.expect("app");
    for i in 0..60 {
        let body: shared::domain::promotions::PromotionBody = serde_json::from_value(json!({
            "code": format!("LIMITED{i}"), "type": "fixed", "value": "1.00",
            "usageLimit": 10, "perCustomerLimit": 1,
        }))
        .expect("shape");
        let id = shared::domain::ids::PromotionId::parse(&format!("limited-{i}")).expect("id");
        let rule = body.check(id).expect("valid");
        app.direct_store()
            .put_promotion(&rule)
            .await
            .expect("promotion");
    }
    app.requests.reset();
    let (status, body) = quote(&app, &app.store, Who::Customer("c2"), "c2", "country=US").await;
    assert_eq!((status, &body["discount"]), (200, &json!("0.00")), "{body}");
    assert_eq!(
        app.requests.by_operation(),
        [("BatchGetItem".to_owned(), 1), ("Query".to_owned(), 2)].into(),
        "no count read for codes nobody gave"
    );
    app.requests.reset();
    let (status, body) = quote(
        &app,
        &app.store,
        Who::Customer("c2"),
        "c2",
        "country=US&code=limited7",
    )
    .await;
    assert_eq!((status, &body["discount"]), (200, &json!("1.00")), "{body}");
    assert_eq!(
        app.requests.by_operation()["BatchGetItem"],
        2,
        "the given code's two counts, in one more"
    );
}
