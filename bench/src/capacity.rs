//! What each operation costs in DynamoDB request units, as the engine reports them
//! (`ReturnConsumedCapacity: INDEXES` on every request, `local_engine::capacity`), beside the
//! article's boto3 calls for the same thing on the same data; then the cost of a million orders
//! at on-demand prices.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use lambda_http::{Body, Request, Response};
use local_engine::capacity::{CapacityMeter, US_EAST_1, Units};
use local_engine::runtime_api::Error;
use local_engine::streams::{self, StreamSource};
use local_engine::testing::{call, get, send_json};
use local_engine::{Engine, LOCAL_TABLE};
use shared::Store;
use shared::http::serve::dispatch;

/// Lines of the order that pattern 3 reads: a page of 25, as the list patterns' pages.
const PAGE: usize = 25;

struct Bench {
    store: Store,
    meter: CapacityMeter,
    /// The article's code gets an engine of its own, holding what its calls wrote.
    article: aws_sdk_dynamodb::Client,
    article_meter: CapacityMeter,
    /// The consumer's view of the stream (records of orders only, as the template filters).
    stream: StreamSource,
}

fn body(response: &Response<Body>) -> serde_json::Value {
    match response.body() {
        Body::Text(text) => serde_json::from_str(text).unwrap_or_default(),
        _ => serde_json::Value::Null,
    }
}

impl Bench {
    /// `handler` on `req`, which must answer `status`; the units its requests consumed.
    async fn units<'a, F, Fut>(
        &'a self,
        handler: F,
        req: Request,
        status: u16,
    ) -> Result<(Units, serde_json::Value), Error>
    where
        F: FnOnce(&'a Store, Request) -> Fut,
        Fut: Future<Output = shared::http::HttpResult> + 'a,
    {
        self.meter.take();
        let response = dispatch(&self.store, req, handler).await;
        let json = body(&response);
        if response.status() != status {
            return Err(format!("expected {status}, got {}: {json}", response.status()).into());
        }
        Ok((self.meter.take_units()?, json))
    }

    /// The stream consumer on every record written since the last call; its units, per record.
    async fn consumer_units(&mut self) -> Result<(Units, usize), Error> {
        let records = self.stream.read_all()?;
        let count = records.len();
        self.meter.take();
        let mut event = aws_lambda_events::event::dynamodb::Event::default();
        event.records = records;
        let response = order_stats::handle(&self.store, event).await;
        if !response.batch_item_failures.is_empty() {
            return Err("the consumer reported failures".into());
        }
        Ok((self.meter.take_units()?, count))
    }

    /// `request` as the article's boto3 code sends it, to the article's engine.
    async fn article<T, E: std::error::Error + Send + Sync + 'static>(
        &self,
        request: impl Future<Output = Result<T, E>>,
    ) -> Result<Units, Error> {
        self.article_meter.take();
        request.await?;
        Ok(self.article_meter.take_units()?)
    }

    /// The article's puts for an order of `n` lines: its listing item and one item per line.
    async fn article_order(&self, order: &serde_json::Value, n: usize) -> Result<Units, Error> {
        let order_id = order["orderId"].as_str().unwrap_or_default();
        let placed_at = order["placedAt"].as_str().unwrap_or_default();
        let mut units = self
            .article(
                self.article
                    .put_item()
                    .table_name(LOCAL_TABLE)
                    .item("PK", s("CUSTOMER#c1"))
                    .item("SK", s(&format!("ORDER#{placed_at}#{order_id}")))
                    .item("orderId", s(order_id))
                    .item("status", s("PLACED"))
                    .item(
                        "total",
                        AttributeValue::N(format!("{:.2}", 12.5 * n as f64)),
                    )
                    .item("GSI1PK", s("STATUS#PLACED"))
                    .item("GSI1SK", s(placed_at))
                    .send(),
            )
            .await?;
        for i in 0..n {
            units = units.plus(
                self.article(
                    self.article
                        .put_item()
                        .table_name(LOCAL_TABLE)
                        .item("PK", s(&format!("ORDER#{order_id}")))
                        .item("SK", s(&format!("ITEM#bench-{i:02}")))
                        .item("quantity", AttributeValue::N("1".into()))
                        .item("price", AttributeValue::N("12.50".into()))
                        .send(),
                )
                .await?,
            );
        }
        Ok(units)
    }
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn lines(skus: std::ops::Range<usize>) -> String {
    let lines: Vec<String> = skus
        .map(|i| format!(r#"{{"sku":"bench-{i:02}","quantity":1}}"#))
        .collect();
    format!(r#"{{"items":[{}]}}"#, lines.join(","))
}

/// One row: what we spend, and what the article's calls spend, per operation.
struct Row {
    operation: String,
    ours: Units,
    article: Option<Units>,
    note: &'static str,
}

fn units_text(u: Units) -> String {
    if u.write == 0.0 {
        format!("{} R", u.read)
    } else if u.read == 0.0 {
        format!("{} W", u.write)
    } else {
        format!("{} R + {} W", u.read, u.write)
    }
}

pub async fn section() -> Result<(), Error> {
    let engine = Engine::in_memory().await?;
    let meter = CapacityMeter::default();
    let store = Store::new(engine.intercepted_client(meter.clone()), LOCAL_TABLE);
    let template = local_engine::template::parse()?;
    let consumer = streams::consumers(&template)?
        .into_iter()
        .next()
        .ok_or("the template has a stream consumer")?;
    let stream = StreamSource::open(engine.database(), LOCAL_TABLE, consumer, None)?;
    let article_engine = Engine::in_memory().await?;
    let article_meter = CapacityMeter::default();
    let mut b = Bench {
        store,
        meter,
        article: article_engine.intercepted_client(article_meter.clone()),
        article_meter,
        stream,
    };
    let mut rows = Vec::new();
    let mut row = |operation: &str, ours: Units, article: Option<Units>, note: &'static str| {
        rows.push(Row {
            operation: operation.to_owned(),
            ours,
            article,
            note,
        })
    };

    // The catalog: 25 products with stock.
    let mut put_product = Units::default();
    for i in 0..PAGE {
        let path = format!("/products/bench-{i:02}");
        let (u, _) = b
            .units(
                put_product::handle,
                call(
                    "PUT /products/{sku}",
                    &path,
                    "",
                    &[("content-type", "application/json")],
                    format!(r#"{{"name":"Bench product {i}","price":"12.50"}}"#).as_bytes(),
                ),
                201,
            )
            .await?;
        put_product = u;
        b.units(
            adjust_stock::handle,
            send_json(
                "POST /products/{sku}/stock",
                &format!("{path}/stock"),
                &[],
                r#"{"delta":1000}"#,
            ),
            200,
        )
        .await?;
    }
    row(
        "PUT product (new)",
        put_product,
        None,
        "the catalog is ours",
    );

    // PUT customer.
    let (ours, _) = b
        .units(
            put_customer::handle,
            send_json(
                "PUT /customers/{customerId}",
                "/customers/c1",
                &[],
                r#"{"name":"Ana Torres","email":"ana@example.com"}"#,
            ),
            201,
        )
        .await?;
    let article = b
        .article(
            b.article
                .put_item()
                .table_name(LOCAL_TABLE)
                .item("PK", s("CUSTOMER#c1"))
                .item("SK", s("PROFILE"))
                .item("name", s("Ana Torres"))
                .item("email", s("ana@example.com"))
                .send(),
        )
        .await;
    row("PUT customer", ours, Some(article?), "");
    b.consumer_units().await?;

    // POST order: 1 line, then 10, each with an Idempotency-Key.
    let mut placed = Vec::new();
    let mut first = None;
    for (n, key) in [(1, "k-1"), (10, "k-10"), (1, "")] {
        let headers: Vec<(&str, &str)> = if key.is_empty() {
            vec![]
        } else {
            vec![("idempotency-key", key)]
        };
        let (ours, order) = b
            .units(
                place_order::handle,
                send_json(
                    "POST /customers/{customerId}/orders",
                    "/customers/c1/orders",
                    &headers,
                    &lines(0..n),
                ),
                201,
            )
            .await?;
        let article = b.article_order(&order, n).await?;
        let order_id = order["orderId"].as_str().unwrap_or_default().to_owned();
        let placed_at = order["placedAt"].as_str().unwrap_or_default().to_owned();
        let label = format!(
            "POST order, {n} line{}{}",
            if n == 1 { "" } else { "s" },
            if key.is_empty() {
                ", no Idempotency-Key"
            } else {
                ""
            }
        );
        row(
            &label,
            ours,
            Some(article),
            "ours: one transaction, stock taken, key recorded",
        );
        let (consumer, records) = b.consumer_units().await?;
        if first.is_none() {
            // The first order a customer's statistics meet counts the partition once.
            first = Some(consumer);
            row(
                "  consumer, the customer's first order event",
                consumer,
                None,
                "once per customer: counts the partition",
            );
        } else if n == 10 {
            row(
                &format!("  consumer, per order event ({records} record)"),
                consumer,
                None,
                "the order's share and the profile, in one transaction",
            );
        }
        placed.push((order_id, placed_at, n));
    }

    // More orders, so that each list pattern has a full page.
    for n in std::iter::repeat_n(1, PAGE + 1 - placed.len()).chain([PAGE]) {
        let (_, order) = b
            .units(
                place_order::handle,
                send_json(
                    "POST /customers/{customerId}/orders",
                    "/customers/c1/orders",
                    &[],
                    &lines(0..n),
                ),
                201,
            )
            .await?;
        b.article_order(&order, n).await?;
    }
    b.consumer_units().await?;
    let (_, big) = b
        .units(
            list_customer_orders::handle,
            get(
                "GET /customers/{customerId}/orders",
                "/customers/c1/orders",
                "limit=1",
            ),
            200,
        )
        .await?;
    let big_order = big["items"][0]["orderId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();

    // The four read patterns, a page of 25 each, and GET order.
    let client = b.article.clone();
    let (ours, _) = b
        .units(
            get_customer::handle,
            get("GET /customers/{customerId}", "/customers/c1", ""),
            200,
        )
        .await?;
    let article = b
        .article(
            client
                .get_item()
                .table_name(LOCAL_TABLE)
                .key("PK", s("CUSTOMER#c1"))
                .key("SK", s("PROFILE"))
                .send(),
        )
        .await?;
    row("(1) GET customer", ours, Some(article), "");
    let (ours, _) = b
        .units(
            list_customer_orders::handle,
            get(
                "GET /customers/{customerId}/orders",
                "/customers/c1/orders",
                "limit=25",
            ),
            200,
        )
        .await?;
    let article = b
        .article(
            client
                .query()
                .table_name(LOCAL_TABLE)
                .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
                .expression_attribute_values(":pk", s("CUSTOMER#c1"))
                .expression_attribute_values(":sk", s("ORDER#"))
                .scan_index_forward(false)
                .send(),
        )
        .await?;
    row(
        "(2) customer's orders, page of 25",
        ours,
        Some(article),
        "the article reads the whole partition (27 orders)",
    );
    let path = format!("/orders/{big_order}/items");
    let (ours, _) = b
        .units(
            get_order_items::handle,
            get("GET /orders/{orderId}/items", &path, "limit=25"),
            200,
        )
        .await?;
    let article = b
        .article(
            client
                .query()
                .table_name(LOCAL_TABLE)
                .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
                .expression_attribute_values(":pk", s(&format!("ORDER#{big_order}")))
                .expression_attribute_values(":sk", s("ITEM#"))
                .send(),
        )
        .await?;
    row("(3) order's line items, 25", ours, Some(article), "");
    let (ours, _) = b
        .units(
            list_orders_by_status::handle,
            get("GET /orders", "/orders", "status=PLACED&limit=25"),
            200,
        )
        .await?;
    let article = b
        .article(
            client
                .query()
                .table_name(LOCAL_TABLE)
                .index_name("GSI1")
                .key_condition_expression("GSI1PK = :pk")
                .expression_attribute_values(":pk", s("STATUS#PLACED"))
                .send(),
        )
        .await?;
    row(
        "(4) orders by status, page of 25",
        ours,
        Some(article),
        "the article reads every PLACED order (27)",
    );
    let get_order_path = format!("/orders/{}", placed[0].0);
    let (get_order_units, _) = b
        .units(
            get_order::handle,
            get("GET /orders/{orderId}", &get_order_path, ""),
            200,
        )
        .await?;
    let article_get_order = b
        .article(
            client
                .query()
                .table_name(LOCAL_TABLE)
                .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
                .expression_attribute_values(":pk", s(&format!("ORDER#{}", placed[0].0)))
                .expression_attribute_values(":sk", s("ITEM#"))
                .send(),
        )
        .await?;
    row(
        "GET order (1 line)",
        get_order_units,
        Some(article_get_order),
        "ours: strongly consistent (read-your-writes); article: the line items query",
    );

    // PATCH status: PLACED → SHIPPED → DELIVERED, and a cancellation.
    let patch = |status: &'static str, order: String| {
        let path = format!("/orders/{order}");
        let body = format!(r#"{{"status":"{status}"}}"#);
        send_json("PATCH /orders/{orderId}", &path, &[], &body)
    };
    let (order_id, placed_at, _) = placed[0].clone();
    let (ship, _) = b
        .units(
            update_order_status::handle,
            patch("SHIPPED", order_id.clone()),
            200,
        )
        .await?;
    let article_patch = b
        .article(
            client
                .update_item()
                .table_name(LOCAL_TABLE)
                .key("PK", s("CUSTOMER#c1"))
                .key("SK", s(&format!("ORDER#{placed_at}#{order_id}")))
                .update_expression("SET #s = :s, GSI1PK = :g")
                .expression_attribute_names("#s", "status")
                .expression_attribute_values(":s", s("SHIPPED"))
                .expression_attribute_values(":g", s("STATUS#SHIPPED"))
                .send(),
        )
        .await?;
    row(
        "PATCH status (PLACED → SHIPPED)",
        ship,
        Some(article_patch),
        "ours: consistent read, then header and listing in one transaction",
    );
    let (shipped_consumer, records) = b.consumer_units().await?;
    row(
        &format!("  consumer, status change event ({records} record)"),
        shipped_consumer,
        None,
        "the total does not move: nothing written",
    );
    let (deliver, _) = b
        .units(
            update_order_status::handle,
            patch("DELIVERED", order_id.clone()),
            200,
        )
        .await?;
    b.consumer_units().await?;
    let (cancel, _) = b
        .units(
            update_order_status::handle,
            patch("CANCELLED", placed[1].0.clone()),
            200,
        )
        .await?;
    row(
        "PATCH status (PLACED → CANCELLED, 10 lines)",
        cancel,
        None,
        "the stock of each line given back",
    );
    let (cancel_consumer, _) = b.consumer_units().await?;
    row(
        "  consumer, cancellation event",
        cancel_consumer,
        None,
        "the order's share leaves the statistics",
    );

    println!();
    println!(
        "### Capacity per operation (request units as the engine reports them with ReturnConsumedCapacity: INDEXES; R = read, W = write)"
    );
    println!();
    println!("| operation | ours | the article's boto3 calls | note |");
    println!("|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} |",
            r.operation,
            units_text(r.ours),
            r.article.map_or("-".into(), units_text),
            r.note
        );
    }

    // A million orders, each placed, shipped and delivered, and read (GET order) twice in each
    // of those states; the consumer on each of its three events.
    let find = |name: &str| {
        rows.iter()
            .find(|r| r.operation == name)
            .map(|r| (r.ours, r.article))
    };
    let (place1, article_place1) = find("POST order, 1 line").ok_or("a 1-line order")?;
    let (place10, article_place10) = find("POST order, 10 lines").ok_or("a 10-line order")?;
    let (consumer_insert, _) =
        find("  consumer, per order event (1 record)").ok_or("the consumer's row")?;
    let reads = get_order_units.times(6.0);
    let lifecycle = |place: Units| {
        place
            .plus(ship)
            .plus(deliver)
            .plus(reads)
            .plus(consumer_insert)
            .plus(shipped_consumer.times(2.0))
    };
    let article_lifecycle = |place: Option<Units>| {
        place
            .unwrap_or_default()
            .plus(article_patch.times(2.0))
            .plus(article_get_order.times(6.0))
    };
    let mut lines_of_cost = BTreeMap::new();
    for (label, ours, article) in [
        (
            "1 line",
            lifecycle(place1),
            article_lifecycle(article_place1),
        ),
        (
            "10 lines",
            lifecycle(place10),
            article_lifecycle(article_place10),
        ),
    ] {
        lines_of_cost.insert(label, (ours, article));
    }
    println!();
    println!(
        "### A million orders at on-demand prices ({}: ${} per million read, ${} per million write request units; Standard table class)",
        US_EAST_1.region, US_EAST_1.per_million_reads, US_EAST_1.per_million_writes
    );
    println!();
    println!(
        "Each order placed (with an Idempotency-Key), shipped and delivered, read twice (GET order) in each of those three states, and its three stream records through the consumer. The article's column: its puts, two status updates of the listing item and six line-item queries, with nothing else (no stock, no idempotency, no statistics, no guard against lost updates)."
    );
    println!();
    println!(
        "| order size | ours per order | ours per million orders | article per order | article per million orders |"
    );
    println!("|---|---|---|---|---|");
    for (label, (ours, article)) in &lines_of_cost {
        println!(
            "| {label} | {} | ${:.2} | {} | ${:.2} |",
            units_text(*ours),
            US_EAST_1.cost(ours.times(1e6)),
            units_text(*article),
            US_EAST_1.cost(article.times(1e6)),
        );
    }
    Ok(())
}
