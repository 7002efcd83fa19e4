//! What each operation costs in DynamoDB request units, as the engine reports them
//! (`ReturnConsumedCapacity: INDEXES` on every request, `local_engine::capacity`), beside the
//! source design's boto3 calls for the same thing on the same data; then the cost of a million
//! orders, and of a million checkouts paid (`checkout`), at on-demand prices.

use aws_sdk_dynamodb::types::AttributeValue;
use lambda_http::{Body, Request, Response};
use local_engine::capacity::{CapacityMeter, US_EAST_1, Units};
use local_engine::runtime_api::Error;
use local_engine::streams::{self, StreamSource};
use local_engine::testing::{Who, catalog, change_status, get, send_json};
use local_engine::{Engine, LOCAL_TABLE};
use shared::Store;
use shared::http::serve::dispatch;

mod checkout;
mod events;
mod fulfilment;
mod pricing;
mod refunds;

/// Lines of the order that pattern 3 reads: a page of 25, as the list patterns' pages.
const PAGE: usize = 25;

struct Bench {
    /// The row of each operation measured, in order.
    rows: Vec<Row>,
    figures: Figures,
    /// The engines the clients talk to, kept running for the section.
    _engines: (Engine, Engine),
    store: Store,
    meter: CapacityMeter,
    /// The source design's boto3 code gets an engine of its own, holding what its calls wrote.
    boto3: aws_sdk_dynamodb::Client,
    boto3_meter: CapacityMeter,
    /// The consumer's view of the stream (records of orders only, as the template filters).
    stream: StreamSource,
    /// What the events of the orders come to.
    events: events::EventFigures,
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
        self.units_on(&self.store, handler, req, status).await
    }

    /// `handler` given `deps` (a store on this bench's client, or the webhook) on `req`, which
    /// must answer `status`; the units its requests consumed.
    async fn units_on<'a, D, F, Fut>(
        &self,
        deps: &'a D,
        handler: F,
        req: Request,
        status: u16,
    ) -> Result<(Units, serde_json::Value), Error>
    where
        F: FnOnce(&'a D, Request) -> Fut,
        Fut: Future<Output = shared::http::HttpResult> + 'a,
    {
        self.meter.take();
        let response = dispatch(deps, req, handler).await;
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
        let response = functions::order_stats::handle(&self.store, event).await;
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
        self.units(functions::place_order::handle, req, 201).await
    }

    /// PATCH `order` to `status`: its units.
    async fn patch(&self, order: &str, status: &str) -> Result<Units, Error> {
        let req = change_status(Who::Staff, order, status);
        Ok(self
            .units(functions::update_order_status::handle, req, 200)
            .await?
            .0)
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

/// What later rows and the cost per million orders are made of, as the steps measure them.
#[derive(Default)]
struct Figures {
    /// Each order placed first: its id, when, our units and the boto3 code's.
    placed: Vec<(String, String, Units, Units)>,
    consumer_per_order: Units,
    big_order: String,
    get_order: Units,
    boto3_get_order: Units,
    ship: Units,
    boto3_patch: Units,
    shipped_consumer: Units,
    deliver: Units,
    delivered_consumer: Units,
    checkouts_paid: Vec<checkout::CheckoutPaid>,
    checkout_expired: checkout::CheckoutExpired,
}

/// The section, as its scenarios in order (each reads what the ones before it wrote): the
/// catalog, a customer, orders placed, enough orders for full pages, the reads, the status
/// changes, the cart and checkout; then the table, what a million orders cost and what a million
/// checkouts cost.
pub(crate) async fn section() -> Result<(), Error> {
    let mut b = open().await?;
    b.catalog().await?;
    b.customer().await?;
    b.orders().await?;
    b.full_pages().await?;
    b.reads().await?;
    b.index_reads().await?;
    b.get_order().await?;
    b.status_changes().await?;
    b.fulfilments().await?;
    let mut publisher_stream = stream_of(&b, "publish-events")?;
    b.events(&mut publisher_stream).await?;
    b.checkout_paid().await?;
    b.checkout_expired().await?;
    b.refunds().await?;
    b.pricing().await?;
    b.checkout_sharded().await?;
    print_rows(&b.rows);
    print_costs(&b.figures);
    let f = &b.figures;
    let posted: Vec<Units> = f.placed[..2]
        .iter()
        .map(|(_, _, place, _)| place.plus(f.consumer_per_order))
        .collect();
    checkout::print_checkout_costs(&f.checkouts_paid, &posted, &f.checkout_expired);
    events::print_costs(&b.events);
    Ok(())
}

/// The stream as the template's consumer built from `binary` sees it, from its start.
fn stream_of(b: &Bench, binary: &str) -> Result<StreamSource, Error> {
    let consumer = streams::consumer(&local_engine::template::parse()?, binary)?;
    StreamSource::open(b._engines.0.database(), LOCAL_TABLE, consumer, None)
}

/// Our store and its meter on one engine, the boto3 code's on another, the consumer's view of
/// our stream.
async fn open() -> Result<Bench, Error> {
    let engine = Engine::in_memory().await?;
    let meter = CapacityMeter::default();
    // The caps on open orders and units held are on, as deployed (MaxOpenOrders,
    // MaxHeldQuantity); their checks cost the same whatever the cap, and these are high enough
    // for the orders the section places.
    let store = Store::new(engine.intercepted_client(meter.clone()), LOCAL_TABLE)
        .with_max_open_orders(Some(1_000))
        .with_max_held_quantity(Some(1_000_000))
        // What each request costs when it reads: no copy of the promotions or of a sharded
        // variant from the request before (a process keeps them a second, which at a flash
        // sale's rates saves most of those reads; at a shop's usual rates, none).
        .with_copies_kept(std::time::Duration::ZERO)
        // Only signs upload forms here (no request reaches a bucket): what the table pays.
        .with_media(local_engine::testing::signing_only_bucket());
    let consumer = streams::consumer(&local_engine::template::parse()?, "order-stats")?;
    let stream = StreamSource::open(engine.database(), LOCAL_TABLE, consumer, None)?;
    let boto3_engine = Engine::in_memory().await?;
    let boto3_meter = CapacityMeter::default();
    Ok(Bench {
        store,
        meter,
        boto3: boto3_engine.intercepted_client(boto3_meter.clone()),
        boto3_meter,
        stream,
        rows: Vec::new(),
        figures: Figures::default(),
        events: events::EventFigures::default(),
        _engines: (engine, boto3_engine),
    })
}

impl Bench {
    fn row(&mut self, operation: &str, ours: Units, boto3: Option<Units>, note: &'static str) {
        self.rows.push(Row {
            operation: operation.to_owned(),
            ours,
            boto3,
            note,
        });
    }

    /// The catalog: a category, and 25 products with stock in it (and one in none).
    async fn catalog(&mut self) -> Result<(), Error> {
        let (put_category, _) = self
            .units(
                functions::put_category::handle,
                send_json(
                    Who::Staff,
                    "PUT /categories/{categoryId}",
                    "/categories/bench-shelf",
                    &[],
                    r#"{"name":"Bench shelf"}"#,
                ),
                201,
            )
            .await?;
        self.row(
            "PUT category (new)",
            put_category,
            None,
            "the tree read (one Query), then the category and the tree's version: one transaction",
        );
        let (put_product, _) = self
            .units(
                functions::put_product::handle,
                catalog::put_single(Who::Staff, "bench-plain", "Bench product", "12.50"),
                201,
            )
            .await?;
        self.row(
            "PUT product (new, one variant)",
            put_product,
            None,
            "the product read; product, variant, catalog entry: one transaction; the variant and its pictures read back",
        );
        self.picture_form().await?;
        let mut in_category = Units::default();
        for i in 0..PAGE {
            let sku = format!("bench-{i:02}");
            let body = serde_json::json!({
                "title": format!("Bench product {i}"), "status": "PUBLISHED",
                "categoryIds": ["bench-shelf"],
                "variants": [{"sku": sku, "options": {}, "price": format!("{}.50", 10 + i)}],
            });
            let (u, _) = self
                .units(
                    functions::put_product::handle,
                    catalog::put_product(Who::Staff, &sku, &body.to_string()),
                    201,
                )
                .await?;
            in_category = u;
            self.units(
                functions::adjust_stock::handle,
                send_json(
                    Who::Staff,
                    "POST /variants/{sku}/stock",
                    &format!("/variants/{sku}/stock"),
                    &[],
                    r#"{"delta":1000}"#,
                ),
                200,
            )
            .await?;
        }
        self.row(
            "PUT product (new, one variant, in one category)",
            in_category,
            None,
            "as above, the category read first, and its two listing entries in the transaction",
        );
        Ok(())
    }

    /// A picture's upload form for the product [`Self::catalog`] made first.
    async fn picture_form(&mut self) -> Result<(), Error> {
        let (upload, _) = self
            .units(
                functions::add_product_media::handle,
                send_json(
                    Who::Staff,
                    "POST /products/{productId}/media",
                    "/products/bench-plain/media",
                    &[],
                    r#"{"contentType":"image/png","contentLength":204800}"#,
                ),
                201,
            )
            .await?;
        self.row(
            "POST product picture (the upload's form)",
            upload,
            None,
            "the product read (how many pictures it shows), then the awaited picture put; the form is signed in the function",
        );
        Ok(())
    }

    async fn customer(&mut self) -> Result<(), Error> {
        let (ours, _) = self
            .units(
                functions::put_customer::handle,
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
        let boto3 = self
            .boto3(
                self.boto3
                    .put_item()
                    .table_name(LOCAL_TABLE)
                    .item("PK", s("CUSTOMER#c1"))
                    .item("SK", s("PROFILE"))
                    .item("name", s("Ana Torres"))
                    .item("email", s("ana@example.com"))
                    .send(),
            )
            .await;
        self.row("PUT customer", ours, Some(boto3?), "");
        self.consumer_units().await?;
        Ok(())
    }

    /// POST order: 1 line and 10 lines with an Idempotency-Key, 1 line without.
    async fn orders(&mut self) -> Result<(), Error> {
        let mut placed = Vec::new();
        let mut consumer_per_order = Units::default();
        for (n, key) in [(1, Some("k-1")), (10, Some("k-10")), (1, None)] {
            let (ours, order) = self.place(n, key).await?;
            let boto3 = self.boto3_order(&order, n).await?;
            let label = format!(
                "POST order, {n} line{}{}",
                if n == 1 { "" } else { "s" },
                if key.is_none() {
                    ", no Idempotency-Key"
                } else {
                    ""
                }
            );
            self.row(
                &label,
                ours,
                Some(boto3),
                "ours: one transaction, stock taken, key recorded; GSI2 and GSI3 +1 W a line each",
            );
            let (consumer, records) = self.consumer_units().await?;
            if placed.is_empty() {
                // The first order a customer's statistics meet counts the partition once.
                self.row(
                    "  consumer, the customer's first order event",
                    consumer,
                    None,
                    "once per customer: counts the partition",
                );
            } else if n == 10 {
                consumer_per_order = consumer;
                self.row(
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
        self.figures.placed = placed;
        self.figures.consumer_per_order = consumer_per_order;
        Ok(())
    }

    /// More orders, so that each list pattern has a full page; the last has 25 lines.
    async fn full_pages(&mut self) -> Result<(), Error> {
        for n in std::iter::repeat_n(1, PAGE + 1 - self.figures.placed.len()).chain([PAGE]) {
            let (_, order) = self.place(n, None).await?;
            self.boto3_order(&order, n).await?;
        }
        self.consumer_units().await?;
        let (_, newest) = self
            .units(
                functions::list_customer_orders::handle,
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
        self.figures.big_order = big_order;
        Ok(())
    }

    /// The patterns on the table, a page of 25 each: a customer, their orders, an order's lines.
    async fn reads(&mut self) -> Result<(), Error> {
        let big_order = self.figures.big_order.clone();
        let (ours, _) = self
            .units(
                functions::get_customer::handle,
                get(
                    Who::Staff,
                    "GET /customers/{customerId}",
                    "/customers/c1",
                    "",
                ),
                200,
            )
            .await?;
        let boto3 = self
            .boto3(
                self.boto3
                    .get_item()
                    .table_name(LOCAL_TABLE)
                    .key("PK", s("CUSTOMER#c1"))
                    .key("SK", s("PROFILE"))
                    .send(),
            )
            .await?;
        self.row("(1) GET customer", ours, Some(boto3), "");
        let (ours, _) = self
            .units(
                functions::list_customer_orders::handle,
                get(
                    Who::Staff,
                    "GET /customers/{customerId}/orders",
                    "/customers/c1/orders",
                    "limit=25",
                ),
                200,
            )
            .await?;
        let boto3 = self.boto3_query("CUSTOMER#c1", "ORDER#", true).await?;
        self.row(
            "(2) customer's orders, page of 25",
            ours,
            Some(boto3),
            "the boto3 code reads the whole partition (27 orders)",
        );
        let path = format!("/orders/{big_order}/items");
        let (ours, _) = self
            .units(
                functions::get_order_items::handle,
                get(Who::Staff, "GET /orders/{orderId}/items", &path, "limit=25"),
                200,
            )
            .await?;
        let boto3 = self
            .boto3_query(&format!("ORDER#{big_order}"), "ITEM#", false)
            .await?;
        self.row("(3) order's line items, 25", ours, Some(boto3), "");
        Ok(())
    }

    /// The patterns through an index: orders by status (GSI1), a product's orders (GSI2).
    async fn index_reads(&mut self) -> Result<(), Error> {
        let (ours, _) = self
            .units(
                functions::list_orders_by_status::handle,
                get(
                    Who::Staff,
                    "GET /orders",
                    "/orders",
                    "status=PLACED&limit=25",
                ),
                200,
            )
            .await?;
        let boto3 = self
            .boto3(
                self.boto3
                    .query()
                    .table_name(LOCAL_TABLE)
                    .index_name("GSI1")
                    .key_condition_expression("GSI1PK = :pk")
                    .expression_attribute_values(":pk", s("STATUS#PLACED"))
                    .send(),
            )
            .await?;
        self.row(
            "(4) orders by status, page of 25",
            ours,
            Some(boto3),
            "the boto3 code reads every PLACED order (27)",
        );
        let (ours, _) = self
            .units(
                functions::list_product_orders::handle,
                get(
                    Who::Staff,
                    "GET /variants/{sku}/orders",
                    "/variants/sku-1/orders",
                    "limit=25",
                ),
                200,
            )
            .await?;
        self.row(
            "(8) a product's orders, page of 25",
            ours,
            None,
            "GSI2 projects customerId, quantity, price: 25 lines in one 4 KB read; beside it, the variant (eventually consistent), which says over how many GSI2 partitions its lines are",
        );
        self.catalog_reads().await
    }

    /// Patterns 13 and 14: the category tree, and a page of a category's products.
    async fn catalog_reads(&mut self) -> Result<(), Error> {
        let (ours, _) = self
            .units(
                functions::list_categories::handle,
                get(Who::Customer("c1"), "GET /categories", "/categories", ""),
                200,
            )
            .await?;
        self.row(
            "(13) the category tree",
            ours,
            None,
            "one eventually consistent Query of its partition",
        );
        let (ours, _) = self
            .units(
                functions::list_category_products::handle,
                get(
                    Who::Customer("c1"),
                    "GET /categories/{categoryId}/products",
                    "/categories/bench-shelf/products",
                    "sort=price-asc&limit=25",
                ),
                200,
            )
            .await?;
        self.row(
            "(14) a category's products by price, page of 25",
            ours,
            None,
            "one Query of GSI3 (projecting everything)",
        );
        Ok(())
    }

    async fn get_order(&mut self) -> Result<(), Error> {
        let (order_id, _, _, _) = self.figures.placed[0].clone();
        let (get_order_units, _) = self
            .units(
                functions::get_order::handle,
                get(
                    Who::Staff,
                    "GET /orders/{orderId}",
                    &format!("/orders/{order_id}"),
                    "",
                ),
                200,
            )
            .await?;
        let boto3_get_order = self
            .boto3_query(&format!("ORDER#{order_id}"), "ITEM#", false)
            .await?;
        self.row(
            "GET order (1 line)",
            get_order_units,
            Some(boto3_get_order),
            "ours: strongly consistent (read-your-writes); boto3: the line items query",
        );
        self.figures.get_order = get_order_units;
        self.figures.boto3_get_order = boto3_get_order;
        Ok(())
    }

    /// PATCH status: PLACED → SHIPPED → DELIVERED, and a cancellation.
    async fn status_changes(&mut self) -> Result<(), Error> {
        let (order_id, placed_at, _, _) = self.figures.placed[0].clone();
        let cancelled = self.figures.placed[1].0.clone();
        let ship = self.patch(&order_id, "SHIPPED").await?;
        let boto3_patch = self
            .boto3(
                self.boto3
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
        self.row(
            "PATCH status (PLACED → SHIPPED)",
            ship,
            Some(boto3_patch),
            "ours: consistent read, then a fulfilment of everything, header and listing in one transaction",
        );
        let (shipped_consumer, records) = self.consumer_units().await?;
        self.row(
            &format!("  consumer, status change event ({records} record)"),
            shipped_consumer,
            None,
            "the total does not move: nothing written",
        );
        let deliver = self.patch(&order_id, "DELIVERED").await?;
        let (delivered_consumer, _) = self.consumer_units().await?;
        let cancel = self.patch(&cancelled, "CANCELLED").await?;
        self.row(
            "PATCH status (PLACED → CANCELLED, 10 lines)",
            cancel,
            None,
            "the stock of each line given back",
        );
        let (cancel_consumer, _) = self.consumer_units().await?;
        self.row(
            "  consumer, cancellation event",
            cancel_consumer,
            None,
            "the order's share leaves the statistics",
        );
        self.figures.ship = ship;
        self.figures.boto3_patch = boto3_patch;
        self.figures.shipped_consumer = shipped_consumer;
        self.figures.deliver = deliver;
        self.figures.delivered_consumer = delivered_consumer;
        Ok(())
    }
}

fn print_rows(rows: &[Row]) {
    println!();
    println!(
        "### Capacity per operation (request units as the engine reports them with ReturnConsumedCapacity: INDEXES; R = read, W = write)"
    );
    println!();
    println!("| operation | ours | the source design's boto3 calls | note |");
    println!("|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {} | {} | {} |",
            r.operation,
            units_text(r.ours),
            r.boto3.map_or("-".into(), units_text),
            r.note
        );
    }
}

/// A million orders, each placed, shipped and delivered, and read (GET order) twice in each of
/// those states; the consumer on each of its three events.
fn print_costs(f: &Figures) {
    let ours_after_placing = f
        .ship
        .plus(f.deliver)
        .plus(f.get_order.times(6.0))
        .plus(f.consumer_per_order)
        .plus(f.shipped_consumer)
        .plus(f.delivered_consumer);
    let boto3_after_placing = f.boto3_patch.times(2.0).plus(f.boto3_get_order.times(6.0));
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
    for (label, (_, _, place, boto3_place)) in ["1 line", "10 lines"].iter().zip(&f.placed) {
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
}
