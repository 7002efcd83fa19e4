//! GET /returns?status= through API Gateway events, against its own engine: access pattern 11,
//! staff's work list of returns in a status, oldest first, ONE Query of GSI1 a page. The sample
//! data's rt_o106 is REQUESTED, rt_o110 APPROVED.

use local_engine::testing::returns::{list, request};
use local_engine::testing::{TestApp, Who, dispatch, from_event_file, get, parts};
use serde_json::Value;
use shared::Store;

async fn page(store: &Store, status: &str, query: &str) -> (u16, Value) {
    let (code, _, body) =
        parts(dispatch(store, list(status, query), functions::list_returns::handle).await);
    (code, body)
}

fn ids(body: &Value) -> Vec<String> {
    body["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["returnId"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn returns_are_listed_by_status_oldest_first_a_page_at_a_time() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (status, approved) = page(store, "APPROVED", "").await;
    assert_eq!((status, ids(&approved)), (200, vec!["rt_o110".to_owned()]));
    assert_eq!(approved["items"][0]["orderId"], "o110");
    assert_eq!(approved["items"][0]["customerId"], "c1");
    // Two more asked for now (staff record them for the customer): after the sample's.
    for order in ["o102", "o114"] {
        let sku = if order == "o102" { "sku-7" } else { "sku-3" };
        let req = request(Who::Staff, order, "", &[(sku, 1)]);
        let (code, _, body) = parts(dispatch(store, req, functions::request_return::handle).await);
        assert_eq!(code, 201, "{body}");
    }
    let (_, first) = page(store, "REQUESTED", "&limit=2").await;
    assert_eq!(ids(&first)[0], "rt_o106", "oldest first");
    let cursor = first["nextCursor"].as_str().expect("more");
    let (_, rest) = page(store, "REQUESTED", &format!("&limit=2&cursor={cursor}")).await;
    assert_eq!(ids(&first).len() + ids(&rest).len(), 3);
    assert!(rest["nextCursor"].is_null());
    let (_, none) = page(store, "REFUNDED", "").await;
    assert_eq!(ids(&none), Vec::<String>::new());
    // Without a status: REQUESTED.
    let req = get(Who::Staff, "GET /returns", "/returns", "");
    let (code, _, default) = parts(dispatch(store, req, functions::list_returns::handle).await);
    assert_eq!((code, ids(&default).len()), (200, 3));
    let (code, problem) = page(store, "SHIPPED", "").await;
    assert_eq!(code, 400, "{problem}");
    let req = get(Who::Customer("c1"), "GET /returns", "/returns", "");
    assert_eq!(
        parts(dispatch(store, req, functions::list_returns::handle).await).0,
        403
    );
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/list-returns.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::list_returns::handle).await);
    assert_eq!(
        (status, ids(&body)),
        (200, vec!["rt_o106".to_owned()]),
        "{body}"
    );
}
