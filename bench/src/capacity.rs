//! What each operation costs in DynamoDB request units, as the engine reports them
//! (`ReturnConsumedCapacity: INDEXES` on every request, `local_engine::capacity`), beside the
//! source design's boto3 calls for the same thing on the same data; then the cost of a million orders
//! at on-demand prices.

use aws_sdk_dynamodb::types::AttributeValue;
use lambda_http::{Body, Request, Response};
use local_engine::capacity::{CapacityMeter, US_EAST_1, Units};
use local_engine::runtime_api::Error;
use local_engine::streams::{self, StreamSource};
use local_engine::testing::{Who, call, change_status, get, send_json};
use local_engine::{Engine, LOCAL_TABLE};
use shared::Store;
use shared::http::serve::dispatch;

/// Lines of the order that pattern 3 reads: a page of 25, as the list patterns' pages.
const PAGE: usize = 25;

struct Bench {
    store: Store,
    meter: CapacityMeter,
    /// The source design's boto3 code gets an engine of its own, holding what its calls wrote.
    boto3: aws_sdk_dynamodb::Client,
    boto3_meter: CapacityMeter,
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

    /// `request` as the source design's boto3 code sends it, to the source design's engine.
    async fn boto3<T, E: std::error::Error + Send + Sync + 'static>(
        &self,
        request: impl Future<Output = Result<T, E>>,
    ) -> Result<Units, Error> {
        self.boto3_meter.take();
        request.await?;
        Ok(self.boto3_meter.take_units()?)
    }

    /// POST an order of `n` lines (with `key` as its Idempotency-Key): its units and its body.
    async fn place(
        &self,
        n: usize,
        key: Option<&str>,
    ) -> Result<(Units, serde_json::Value), Error> {
        let headers: Vec<(&str, &str)> = key.map(|k| ("idempotency-key", k)).into_iter().collect();
        let req = send_json(
            Who::Staff,
            "POST /customers/{customerId}/orders",
            "/customers/c1/orders",
            &headers,
            &lines(0..n),
        );
        self.units(place_order::handle, req, 201).await
    }

    /// PATCH `order` to `status`: its units.
    async fn patch(&self, order: &str, status: &str) -> Result<Units, Error> {
        let req = change_status(Who::Staff, order, status);
        Ok(self.units(update_order_status::handle, req, 200).await?.0)
    }

    /// The source design's Query of `pk`'s items whose SK begins with `prefix`.
    async fn boto3_query(
        &self,
        pk: &str,
        prefix: &str,
        newest_first: bool,
    ) -> Result<Units, Error> {
        self.boto3(
            self.boto3
                .query()
                .table_name(LOCAL_TABLE)
                .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
                .expression_attribute_values(":pk", s(pk))
                .expression_attribute_values(":sk", s(prefix))
                .scan_index_forward(!newest_first)
                .send(),
        )
        .await
    }

    /// The source design's puts for an order of `n` lines: its listing item and one item per line.
    async fn boto3_order(&self, order: &serde_json::Value, n: usize) -> Result<Units, Error> {
        let order_id = order["orderId"].as_str().unwrap_or_default();
        let placed_at = order["placedAt"].as_str().unwrap_or_default();
        let mut units = self
            .boto3(
                self.boto3
                    .put_item()
                    .table_name(LOCAL_TABLE)
                    .item("PK", s("CUSTOMER#c1"))
                    .item("SK", s(&format!("ORDER#{placed_at}#{order_id}")))
                    .item("orderId", s(order_id))
                    .item("status", s("PLACED"))
                    .item("total", AttributeValue::N(cents(1250 * n)))
                    .item("GSI1PK", s("STATUS#PLACED"))
                    .item("GSI1SK", s(placed_at))
                    .send(),
            )
            .await?;
        for i in 0..n {
            units = units.plus(
                self.boto3(
                    self.boto3
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

/// An amount of cents as a decimal number.
fn cents(cents: usize) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
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

/// One row: what we spend, and what the source design's calls spend, per operation.
struct Row {
    operation: String,
    ours: Units,
    boto3: Option<Units>,
    note: &'static str,
}

fn units_text(u: Units) -> String {
    if u == Units::default() {
        "0".into()
    } else if u.write == 0.0 {
        format!("{} R", u.read)
    } else if u.read == 0.0 {
        format!("{} W", u.write)
    } else {
        format!("{} R + {} W", u.read, u.write)
    }
}

pub(crate) async fn section() -> Result<(), Error> {
    let engine = Engine::in_memory().await?;
    let meter = CapacityMeter::default();
    // The cap on open orders is on, as deployed (MaxOpenOrders); its check costs the same
    // whatever the cap, and this one is high enough for the orders the section places.
    let store = Store::new(engine.intercepted_client(meter.clone()), LOCAL_TABLE)
        .with_max_open_orders(Some(1_000));
    let template = local_engine::template::parse()?;
    let consumer = streams::consumers(&template)?
        .into_iter()
        .next()
        .ok_or("the template has a stream consumer")?;
    let stream = StreamSource::open(engine.database(), LOCAL_TABLE, consumer, None)?;
    let boto3_engine = Engine::in_memory().await?;
    let boto3_meter = CapacityMeter::default();
    let mut b = Bench {
        store,
        meter,
        boto3: boto3_engine.intercepted_client(boto3_meter.clone()),
        boto3_meter,
        stream,
    };
    let mut rows = Vec::new();
    let mut row = |operation: &str, ours: Units, boto3: Option<Units>, note: &'static str| {
        rows.push(Row {
            operation: operation.to_owned(),
            ours,
            boto3,
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
                    Who::Staff,
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
                Who::Staff,
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
                Who::Staff,
                "PUT /customers/{customerId}",
                "/customers/c1",
                &[],
                r#"{"name":"Ana Torres","email":"ana@example.com"}"#,
            ),
            201,
        )
        .await?;
    let boto3 = b
        .boto3(
            b.boto3
                .put_item()
                .table_name(LOCAL_TABLE)
                .item("PK", s("CUSTOMER#c1"))
                .item("SK", s("PROFILE"))
                .item("name", s("Ana Torres"))
                .item("email", s("ana@example.com"))
                .send(),
        )
        .await;
    row("PUT customer", ours, Some(boto3?), "");
    b.consumer_units().await?;

    // POST order: 1 line and 10 lines with an Idempotency-Key, 1 line without.
    let mut placed = Vec::new();
    let mut consumer_per_order = Units::default();
    for (n, key) in [(1, Some("k-1")), (10, Some("k-10")), (1, None)] {
        let (ours, order) = b.place(n, key).await?;
        let boto3 = b.boto3_order(&order, n).await?;
        let label = format!(
            "POST order, {n} line{}{}",
            if n == 1 { "" } else { "s" },
            if key.is_none() {
                ", no Idempotency-Key"
            } else {
                ""
            }
        );
        row(
            &label,
            ours,
            Some(boto3),
            "ours: one transaction, stock taken, key recorded; GSI2 +1 W a line",
        );
        let (consumer, records) = b.consumer_units().await?;
        if placed.is_empty() {
            // The first order a customer's statistics meet counts the partition once.
            row(
                "  consumer, the customer's first order event",
                consumer,
                None,
                "once per customer: counts the partition",
            );
        } else if n == 10 {
            consumer_per_order = consumer;
            row(
                &format!("  consumer, per order event ({records} record)"),
                consumer,
                None,
                "the order's share and the profile, in one transaction",
            );
        }
        let id = order["orderId"].as_str().unwrap_or_default().to_owned();
        let placed_at = order["placedAt"].as_str().unwrap_or_default().to_owned();
        placed.push((id, placed_at, ours, boto3));
    }

    // More orders, so that each list pattern has a full page; the last has 25 lines.
    for n in std::iter::repeat_n(1, PAGE + 1 - placed.len()).chain([PAGE]) {
        let (_, order) = b.place(n, None).await?;
        b.boto3_order(&order, n).await?;
    }
    b.consumer_units().await?;
    let (_, newest) = b
        .units(
            list_customer_orders::handle,
            get(
                Who::Staff,
                "GET /customers/{customerId}/orders",
                "/customers/c1/orders",
                "limit=1",
            ),
            200,
        )
        .await?;
    let big_order = newest["items"][0]["orderId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();

    // The four read patterns, a page of 25 each, and GET order.
    let (ours, _) = b
        .units(
            get_customer::handle,
            get(
                Who::Staff,
                "GET /customers/{customerId}",
                "/customers/c1",
                "",
            ),
            200,
        )
        .await?;
    let boto3 = b
        .boto3(
            b.boto3
                .get_item()
                .table_name(LOCAL_TABLE)
                .key("PK", s("CUSTOMER#c1"))
                .key("SK", s("PROFILE"))
                .send(),
        )
        .await?;
    row("(1) GET customer", ours, Some(boto3), "");
    let (ours, _) = b
        .units(
            list_customer_orders::handle,
            get(
                Who::Staff,
                "GET /customers/{customerId}/orders",
                "/customers/c1/orders",
                "limit=25",
            ),
            200,
        )
        .await?;
    let boto3 = b.boto3_query("CUSTOMER#c1", "ORDER#", true).await?;
    row(
        "(2) customer's orders, page of 25",
        ours,
        Some(boto3),
        "the boto3 code reads the whole partition (27 orders)",
    );
    let path = format!("/orders/{big_order}/items");
    let (ours, _) = b
        .units(
            get_order_items::handle,
            get(Who::Staff, "GET /orders/{orderId}/items", &path, "limit=25"),
            200,
        )
        .await?;
    let boto3 = b
        .boto3_query(&format!("ORDER#{big_order}"), "ITEM#", false)
        .await?;
    row("(3) order's line items, 25", ours, Some(boto3), "");
    let (ours, _) = b
        .units(
            list_orders_by_status::handle,
            get(
                Who::Staff,
                "GET /orders",
                "/orders",
                "status=PLACED&limit=25",
            ),
            200,
        )
        .await?;
    let boto3 = b
        .boto3(
            b.boto3
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
        Some(boto3),
        "the boto3 code reads every PLACED order (27)",
    );
    let (ours, _) = b
        .units(
            list_product_orders::handle,
            get(
                Who::Staff,
                "GET /products/{sku}/orders",
                "/products/sku-1/orders",
                "limit=25",
            ),
            200,
        )
        .await?;
    row(
        "(8) a product's orders, page of 25",
        ours,
        None,
        "GSI2 projects customerId, quantity, price: 25 lines in one 4 KB read",
    );
    let (order_id, placed_at, _, _) = placed[0].clone();
    let (get_order_units, _) = b
        .units(
            get_order::handle,
            get(
                Who::Staff,
                "GET /orders/{orderId}",
                &format!("/orders/{order_id}"),
                "",
            ),
            200,
        )
        .await?;
    let boto3_get_order = b
        .boto3_query(&format!("ORDER#{order_id}"), "ITEM#", false)
        .await?;
    row(
        "GET order (1 line)",
        get_order_units,
        Some(boto3_get_order),
        "ours: strongly consistent (read-your-writes); boto3: the line items query",
    );

    // PATCH status: PLACED → SHIPPED → DELIVERED, and a cancellation.
    let ship = b.patch(&order_id, "SHIPPED").await?;
    let boto3_patch = b
        .boto3(
            b.boto3
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
        Some(boto3_patch),
        "ours: consistent read, then header and listing in one transaction",
    );
    let (shipped_consumer, records) = b.consumer_units().await?;
    row(
        &format!("  consumer, status change event ({records} record)"),
        shipped_consumer,
        None,
        "the total does not move: nothing written",
    );
    let deliver = b.patch(&order_id, "DELIVERED").await?;
    let (delivered_consumer, _) = b.consumer_units().await?;
    let cancel = b.patch(&placed[1].0, "CANCELLED").await?;
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
    println!("| operation | ours | the source design's boto3 calls | note |");
    println!("|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} |",
            r.operation,
            units_text(r.ours),
            r.boto3.map_or("-".into(), units_text),
            r.note
        );
    }

    // A million orders, each placed, shipped and delivered, and read (GET order) twice in each
    // of those states; the consumer on each of its three events.
    let ours_after_placing = ship
        .plus(deliver)
        .plus(get_order_units.times(6.0))
        .plus(consumer_per_order)
        .plus(shipped_consumer)
        .plus(delivered_consumer);
    let boto3_after_placing = boto3_patch.times(2.0).plus(boto3_get_order.times(6.0));
    println!();
    println!(
        "### A million orders at on-demand prices ({}: ${} per million read, ${} per million write request units; Standard table class)",
        US_EAST_1.region, US_EAST_1.per_million_reads, US_EAST_1.per_million_writes
    );
    println!();
    println!(
        "Each order placed (with an Idempotency-Key), shipped and delivered, read twice (GET order) in each of those three states, and its three stream records through the consumer. The source design's column: its puts, two status updates of the listing item and six line-item queries, with nothing else (no stock, no idempotency, no statistics, no guard against lost updates)."
    );
    println!();
    println!(
        "| order size | ours per order | ours per million orders | boto3 per order | boto3 per million orders |"
    );
    println!("|---|---|---|---|---|");
    for (label, (_, _, place, boto3_place)) in ["1 line", "10 lines"].iter().zip(&placed) {
        let ours = place.plus(ours_after_placing);
        let boto3 = boto3_place.plus(boto3_after_placing);
        println!(
            "| {label} | {} | ${:.2} | {} | ${:.2} |",
            units_text(ours),
            US_EAST_1.cost(ours.times(1e6)),
            units_text(boto3),
            US_EAST_1.cost(boto3.times(1e6)),
        );
    }
    Ok(())
}
