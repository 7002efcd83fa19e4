//! `PUT /products/{productId}` through its handler: staff create and replace products with
//! options and variants (a replacement keeps each variant's stock); every broken rule of the
//! catalog is a 4xx problem with nothing written; customers and callers without a token change
//! nothing.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, catalog, from_event_file, parts};
use serde_json::{Value, json};

async fn put(app: &TestApp, who: Who<'_>, product: &str, body: &Value) -> (u16, Value) {
    let req = catalog::put_product(who, product, &body.to_string());
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_product::handle).await);
    (status, body)
}

pub(crate) async fn product(app: &TestApp, who: Who<'_>, product: &str) -> (u16, Value) {
    let req = catalog::get_product(who, product);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_product::handle).await);
    (status, body)
}

/// A variant of the tee: its SKU, size, colour and price.
fn variant(sku: &str, size: &str, colour: &str, price: &str) -> Value {
    json!({"sku": sku, "options": {"Size": size, "Colour": colour}, "price": price, "weightGrams": 180})
}

/// A plain tee in Size (S, M) × Colour (Red, Blue): four variants, in `status`.
pub(crate) fn tee(status: &str) -> Value {
    json!({
        "title": "Plain tee",
        "description": "Heavy cotton.\nCut straight.",
        "status": status,
        "categoryIds": ["textiles"],
        "options": [
            {"name": "Size", "values": ["S", "M"]},
            {"name": "Colour", "values": ["Red", "Blue"]}
        ],
        "variants": [
            variant("tee-s-red", "S", "Red", "18.00"),
            variant("tee-s-blue", "S", "Blue", "18.00"),
            variant("tee-m-red", "M", "Red", "19.00"),
            variant("tee-m-blue", "M", "Blue", "19.00"),
        ],
    })
}

/// Puts the tee in `status` as staff; its answer.
pub(crate) async fn put_tee(app: &TestApp, status: &str) -> Value {
    let (code, body) = put(app, Who::Staff, "tee", &tee(status)).await;
    assert!(code == 201 || code == 200, "{code} {body}");
    body
}

#[tokio::test]
async fn a_product_of_two_options_has_four_variants_and_a_replacement_keeps_their_stock() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = put(&app, Who::Staff, "tee", &tee("PUBLISHED")).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["productId"], "tee");
    assert_eq!(
        body["options"][1],
        json!({"name": "Colour", "values": ["Red", "Blue"]})
    );
    let variants = body["variants"].as_array().expect("variants");
    assert_eq!(variants.len(), 4);
    assert_eq!(
        variants[3],
        json!({
            "sku": "tee-m-blue", "productId": "tee", "title": "Plain tee",
            "options": {"Size": "M", "Colour": "Blue"}, "price": "19.00", "weightGrams": 180,
            "inStock": false, "stock": 0, "status": "PUBLISHED"
        })
    );
    let stocked = catalog::adjust_stock(Who::Staff, "tee-m-blue", 7);
    assert_eq!(
        parts(dispatch(&app.store, stocked, functions::adjust_stock::handle).await).0,
        200
    );
    // Replaced: retitled, repriced, one variant dropped.
    let mut replaced = tee("PUBLISHED");
    replaced["title"] = json!("Plain tee, organic");
    replaced["variants"][3]["price"] = json!("21.00");
    replaced["variants"]
        .as_array_mut()
        .expect("variants")
        .remove(0);
    let (status, body) = put(&app, Who::Admin, "tee", &replaced).await;
    assert_eq!(status, 200, "a replacement: {body}");
    let variants = body["variants"].as_array().expect("variants");
    assert_eq!(variants.len(), 3);
    assert_eq!(
        (
            &variants[2]["stock"],
            &variants[2]["price"],
            &variants[2]["title"]
        ),
        (&json!(7), &json!("21.00"), &json!("Plain tee, organic")),
        "a replacement keeps the stock"
    );
    let (_, seen) = product(&app, Who::Customer("c1"), "tee").await;
    assert_eq!(seen["variants"].as_array().map(Vec::len), Some(3));
    assert_eq!(seen["variants"][2]["inStock"], true);
    assert!(seen["variants"][2].get("stock").is_none(), "{seen}");
    // The dropped variant is no longer sold, and its SKU stays the tee's.
    let dropped = catalog::get_variant(Who::Customer("c1"), "tee-s-red");
    assert_eq!(
        parts(dispatch(&app.store, dropped, functions::get_variant::handle).await).0,
        404
    );
    let dropped = catalog::get_variant(Who::Staff, "tee-s-red");
    let (_, _, body) = parts(dispatch(&app.store, dropped, functions::get_variant::handle).await);
    assert_eq!(
        (&body["status"], &body["productId"]),
        (&json!("ARCHIVED"), &json!("tee"))
    );
}

#[tokio::test]
async fn every_broken_rule_is_a_problem_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let with = |change: &dyn Fn(&mut Value)| {
        let mut body = tee("PUBLISHED");
        change(&mut body);
        body
    };
    let cases = [
        (
            "a fifth variant with a value outside its options",
            with(&|b| {
                let extra = variant("tee-l-red", "L", "Red", "20.00");
                b["variants"].as_array_mut().expect("variants").push(extra);
            }),
        ),
        (
            "two variants with the same values",
            with(&|b| b["variants"][1]["options"] = json!({"Size": "S", "Colour": "Red"})),
        ),
        (
            "a variant without a value of an option",
            with(&|b| b["variants"][1]["options"] = json!({"Size": "S"})),
        ),
        (
            "four options",
            with(&|b| {
                b["options"] = json!([
                    {"name": "Size", "values": ["S", "M"]},
                    {"name": "Colour", "values": ["Red", "Blue"]},
                    {"name": "Fit", "values": ["Slim"]},
                    {"name": "Neck", "values": ["Crew"]}
                ]);
            }),
        ),
        (
            "an option named twice",
            with(&|b| b["options"][1]["name"] = json!("size")),
        ),
        (
            "a SKU twice",
            with(&|b| b["variants"][1]["sku"] = json!("tee-s-red")),
        ),
        ("no variants", with(&|b| b["variants"] = json!([]))),
        ("an unknown status", with(&|b| b["status"] = json!("LIVE"))),
        (
            "a float price",
            with(&|b| b["variants"][0]["price"] = json!(18.0)),
        ),
        ("an empty title", with(&|b| b["title"] = json!(" "))),
        ("an unknown field", with(&|b| b["stock"] = json!(5))),
    ];
    for (case, body) in cases {
        let (status, problem) = put(&app, Who::Staff, "tee", &body).await;
        assert_eq!(status, 400, "{case}: {problem}");
        assert_eq!(problem["type"], "/problems/invalid-request", "{case}");
    }
    assert_eq!(
        product(&app, Who::Staff, "tee").await.0,
        404,
        "nothing written"
    );
    // A SKU another product holds: 409, and neither product changes.
    let mut theirs = tee("PUBLISHED");
    theirs["variants"][0]["sku"] = json!("sku-1");
    let (status, problem) = put(&app, Who::Staff, "tee", &theirs).await;
    assert_eq!(status, 409, "{problem}");
    assert_eq!(
        (&problem["type"], &problem["skus"]),
        (&json!("/problems/sku-taken"), &json!(["sku-1"]))
    );
    assert_eq!(
        product(&app, Who::Staff, "tee").await.0,
        404,
        "nothing written"
    );
    let variant = catalog::get_variant(Who::Staff, "tee-s-blue");
    assert_eq!(
        parts(dispatch(&app.store, variant, functions::get_variant::handle).await).0,
        404,
        "no variant of the refused product written"
    );
    let (_, mug) = product(&app, Who::Staff, "sku-1").await;
    assert_eq!(mug["variants"][0]["title"], "Stoneware mug");
}

#[tokio::test]
async fn customers_and_callers_without_a_token_change_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let body = tee("PUBLISHED");
    assert_eq!(put(&app, Who::Customer("c1"), "tee", &body).await.0, 403);
    assert_eq!(put(&app, Who::Nobody, "tee", &body).await.0, 401);
    assert_eq!(product(&app, Who::Staff, "tee").await.0, 404);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/put-product.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_product::handle).await);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["variants"].as_array().map(Vec::len), Some(4), "{body}");
}
