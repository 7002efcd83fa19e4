//! A product's pictures against their own engine and their own S3, bus and queues (moto's
//! server, one per test, with template.yaml's bucket, rule and queue made on it): an upload
//! through the form the store signs, the arrival checked by check-media as its queue hands it
//! over, the picture in the product's answer and its listings with a URL that loads its bytes,
//! and what breaks the upload's limits never shown and deleted.

use std::time::Duration;

use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use local_engine::bus::{LocalBus, Provisioned};
use local_engine::declared::as_function;
use local_engine::plain_http::exchange_bytes;
use local_engine::testing::{TestApp, Who, call, catalog, dispatch, get, parts, send_json};
use serde_json::{Value, json};
use shared::Store;

/// A PNG's first bytes, then padding: what the check reads is the signature.
fn png(size: usize) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bytes.resize(size, 7);
    bytes
}

struct Harness {
    _app: TestApp,
    store: Store,
    bus: LocalBus,
    made: Provisioned,
}

impl Harness {
    /// The sample catalog, with tee-m published in category `kitchen`.
    async fn new() -> Self {
        let app = TestApp::seeded().await.expect("app");
        let (bus, made) = LocalBus::provisioned_for_test(&[])
            .await
            .expect("moto, with the template's bucket");
        let bucket = bus.media_bucket(&made, "MediaBucket").expect("the bucket");
        let store = app.store.clone().with_media(bucket);
        let body = json!({
            "title": "Plain tee",
            "status": "PUBLISHED",
            "categoryIds": ["kitchen"],
            "variants": [{"sku": "tee-m", "options": {}, "price": "18.00"}],
        });
        let put = catalog::put_product(Who::Staff, "tee", &body.to_string());
        let (status, _, _) = parts(dispatch(&store, put, functions::put_product::handle).await);
        assert_eq!(status, 201);
        Self {
            _app: app,
            store,
            bus,
            made,
        }
    }

    /// `POST /products/tee/media` from `who` asking `body`.
    async fn start(&self, who: Who<'_>, body: Value) -> (u16, Value) {
        let req = send_json(
            who,
            "POST /products/{productId}/media",
            "/products/tee/media",
            &[],
            &body.to_string(),
        );
        let (status, _, body) =
            parts(dispatch(&self.store, req, functions::add_product_media::handle).await);
        (status, body)
    }

    /// A picture asked for as `content_type` of at most `length` bytes, then `bytes` posted
    /// with the form as `posted_type`; its media ID.
    async fn upload(
        &self,
        content_type: &str,
        length: u64,
        posted_type: &str,
        bytes: &[u8],
    ) -> String {
        let (status, started) = self
            .start(
                Who::Staff,
                json!({"contentType": content_type, "contentLength": length, "alt": "A folded tee"}),
            )
            .await;
        assert_eq!(status, 201, "{started}");
        let url = started["upload"]["url"].as_str().expect("a url").to_owned();
        let fields = started["upload"]["fields"]
            .as_object()
            .expect("fields")
            .clone();
        let (authority, path) = split_url(&url);
        let boundary = "----store-test-boundary";
        let mut body: Vec<u8> = Vec::new();
        for (name, value) in &fields {
            // The form's own Content-Type field is what S3 stores: a browser may post another.
            let value = if name == "Content-Type" {
                posted_type
            } else {
                value.as_str().expect("text")
            };
            body.extend(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                    .as_bytes(),
            );
        }
        body.extend(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"tee\"\r\nContent-Type: {posted_type}\r\n\r\n")
                .as_bytes(),
        );
        body.extend(bytes);
        body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        request.extend(body);
        let (status, answer) = tokio::task::spawn_blocking(move || {
            exchange_bytes(&authority, &request, "moto").expect("the upload")
        })
        .await
        .expect("join");
        assert!(
            status < 300,
            "{status} {}",
            String::from_utf8_lossy(&answer)
        );
        started["mediaId"].as_str().expect("an id").to_owned()
    }

    /// check-media over what the bucket's queue holds, as Lambda's SQS mapping hands it over;
    /// how many messages it took.
    async fn deliver(&self) -> usize {
        let queue = self.made.queue("MediaArrivalQueue").expect("the queue");
        let bodies = self
            .bus
            .take(queue, Duration::from_secs(2))
            .await
            .expect("the queue");
        let mut event = SqsEvent::default();
        event.records = bodies
            .iter()
            .enumerate()
            .map(|(n, body)| {
                let mut message = SqsMessage::default();
                message.message_id = Some(format!("m{n}"));
                message.body = Some(body.clone());
                message
            })
            .collect();
        let response = as_function(
            "check-media",
            functions::check_media::handle(&self.store, event, Duration::from_secs(20)),
        )
        .await;
        assert!(response.batch_item_failures.is_empty(), "{response:?}");
        bodies.len()
    }

    async fn product(&self, who: Who<'_>) -> Value {
        let req = catalog::get_product(who, "tee");
        let (status, _, body) =
            parts(dispatch(&self.store, req, functions::get_product::handle).await);
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn listed(&self) -> Value {
        let req = get(
            Who::Customer("c1"),
            "GET /categories/{categoryId}/products",
            "/categories/kitchen/products",
            "sort=newest",
        );
        let (status, _, body) =
            parts(dispatch(&self.store, req, functions::list_category_products::handle).await);
        assert_eq!(status, 200, "{body}");
        body["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|item| item["productId"] == "tee")
            .cloned()
            .expect("tee is listed")
    }

    /// `DELETE /products/tee/media/{media}` from staff: its status.
    async fn remove(&self, media: &str) -> u16 {
        let req = call(
            Who::Staff,
            "DELETE /products/{productId}/media/{mediaId}",
            &format!("/products/tee/media/{media}"),
            "",
            &[],
            b"",
        );
        parts(dispatch(&self.store, req, functions::remove_product_media::handle).await).0
    }

    /// Whether the bucket holds `media`'s object.
    async fn stored(&self, media: &str) -> bool {
        let bucket = &self.made.buckets["MediaBucket"];
        self.bus
            .s3()
            .head_object()
            .bucket(bucket)
            .key(format!("media/tee/{media}"))
            .send()
            .await
            .is_ok()
    }
}

/// `http://host:port/path?query` as (`host:port`, `/path?query`).
fn split_url(url: &str) -> (String, String) {
    let rest = url.strip_prefix("http://").expect("a local http URL");
    let (authority, path) = rest.split_once('/').expect("a path");
    (authority.to_owned(), format!("/{path}"))
}

/// A GET of `url`: its status and bytes.
async fn load(url: &str) -> (u16, Vec<u8>) {
    let (authority, path) = split_url(url);
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n")
        .into_bytes();
    tokio::task::spawn_blocking(move || {
        exchange_bytes(&authority, &request, "moto").expect("a GET")
    })
    .await
    .expect("join")
}

#[tokio::test]
async fn a_picture_uploaded_with_its_form_shows_loads_and_is_removed_with_its_object() {
    let h = Harness::new().await;
    let bytes = png(2_000);
    let media = h.upload("image/png", 4_096, "image/png", &bytes).await;
    // Not shown before its arrival is checked.
    assert_eq!(h.product(Who::Customer("c1")).await["media"], json!([]));
    assert_eq!(h.deliver().await, 1);

    let product = h.product(Who::Customer("c1")).await;
    let shown = &product["media"][0];
    assert_eq!(shown["mediaId"], media.as_str());
    assert_eq!(
        (shown["alt"].clone(), shown["rank"].clone()),
        (json!("A folded tee"), json!(0))
    );
    let url = shown["url"].as_str().expect("a url");
    assert_eq!(load(url).await, (200, bytes.clone()));
    // Its category's listing shows it as the product's picture.
    let listed = h.listed().await;
    assert_eq!(listed["picture"]["mediaId"], media.as_str());
    assert_eq!(
        load(listed["picture"]["url"].as_str().expect("url"))
            .await
            .1,
        bytes
    );

    // A second picture ranks after it; the first stays the listing's.
    let second = h
        .upload("image/gif", 100, "image/gif", b"GIF89a\x01\0\x01\0")
        .await;
    assert_eq!(h.deliver().await, 1);
    let product = h.product(Who::Staff).await;
    let ranks: Vec<(Value, Value)> = product["media"]
        .as_array()
        .expect("media")
        .iter()
        .map(|m| (m["mediaId"].clone(), m["rank"].clone()))
        .collect();
    assert_eq!(ranks, [(json!(media), json!(0)), (json!(second), json!(1))]);

    // Removing the first deletes its object, and the listing shows the second.
    assert_eq!(h.remove(&media).await, 204);
    assert!(
        !h.stored(&media).await,
        "the removed picture's object is deleted"
    );
    assert_eq!(load(url).await.0, 404);
    let product = h.product(Who::Customer("c1")).await;
    assert_eq!(product["media"].as_array().map(Vec::len), Some(1));
    assert_eq!(h.listed().await["picture"]["mediaId"], second.as_str());
    // Removing it again is a 404.
    assert_eq!(h.remove(&media).await, 404);
}

#[tokio::test]
async fn objects_that_break_their_uploads_limits_never_show_and_are_deleted() {
    let h = Harness::new().await;
    let too_large = h.upload("image/png", 100, "image/png", &png(5_000)).await;
    let other_type = h.upload("image/png", 4_096, "text/html", &png(200)).await;
    let not_an_image = h
        .upload(
            "image/png",
            4_096,
            "image/png",
            b"<html><body>not a picture</body></html>",
        )
        .await;
    assert_eq!(h.deliver().await, 3);
    assert_eq!(h.product(Who::Staff).await["media"], json!([]));
    assert!(h.listed().await.get("picture").is_none());
    for media in [too_large, other_type, not_an_image] {
        assert!(!h.stored(&media).await, "{media} is deleted");
    }
    // A notification delivered again finds nothing to show.
    let store = h.store.clone();
    let again = store
        .media_arrived("media/tee/md_none")
        .await
        .expect("checked");
    assert_eq!(
        again,
        shared::dynamo::media::Arrival::Gone,
        "an object that is not there"
    );
}

#[tokio::test]
async fn an_upload_outside_the_limits_is_refused_before_anything_is_signed() {
    let h = Harness::new().await;
    for (who, body, expected) in [
        (
            Who::Staff,
            json!({"contentType": "text/html", "contentLength": 10}),
            400,
        ),
        (
            Who::Staff,
            json!({"contentType": "image/png", "contentLength": 0}),
            400,
        ),
        (
            Who::Staff,
            json!({"contentType": "image/png", "contentLength": 10_485_761}),
            400,
        ),
        (
            Who::Customer("c1"),
            json!({"contentType": "image/png", "contentLength": 10}),
            403,
        ),
    ] {
        let (status, answer) = h.start(who, body.clone()).await;
        assert_eq!(status, expected, "{body} {answer}");
    }
    let req = send_json(
        Who::Staff,
        "POST /products/{productId}/media",
        "/products/no-such/media",
        &[],
        r#"{"contentType": "image/png", "contentLength": 10}"#,
    );
    let (status, _, _) = parts(dispatch(&h.store, req, functions::add_product_media::handle).await);
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_sample_events_start_an_upload_and_check_an_arrival() {
    let h = Harness::new().await;
    let req =
        local_engine::testing::from_event_file("../events/add-product-media.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&h.store, req, functions::add_product_media::handle).await);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["upload"]["fields"]["Content-Type"], "image/png");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../events/check-media.json"
    ))
    .expect("event");
    let event: SqsEvent = serde_json::from_str(&text).expect("an SQS event");
    let response = as_function(
        "check-media",
        functions::check_media::handle(&h.store, event, Duration::from_secs(20)),
    )
    .await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
    let req = local_engine::testing::from_event_file("../events/remove-product-media.json")
        .expect("event");
    let (status, _, _) =
        parts(dispatch(&h.store, req, functions::remove_product_media::handle).await);
    assert_eq!(
        status, 404,
        "the sample names a picture the mug does not have"
    );
}
