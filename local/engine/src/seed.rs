//! Sample data, written the way the source design's boto3 code writes it (the attributes of the key
//! design and nothing more), so that serving it proves compatibility with that code.
//!
//! The source design's own customer c1, order o100 and line item sku-1 come first; further customers
//! and orders, generated deterministically, make paging and every status visible. Each order
//! also gets the header this store's own API writes (which the source design's queries never see),
//! so that `GET /orders/{orderId}` and `PATCH` work on the sample orders too.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
use shared::domain::category::Category;
use shared::domain::customer::Customer;
use shared::domain::ids::{CategoryId, CustomerId, OrderId, ProductId, Sku};
use shared::domain::money::{Decimal, Money};
use shared::domain::order::{LineItem, Order};
use shared::domain::product::{CatalogEntry, OptionValues, Product, ProductStatus};
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;

/// The statuses the sample orders are spread over: orders placed directly, none of them a hold
/// (a hold is made by a checkout, with its end).
const SEEDED_STATUSES: [OrderStatus; 4] = [
    OrderStatus::Placed,
    OrderStatus::Shipped,
    OrderStatus::Delivered,
    OrderStatus::Cancelled,
];
use shared::domain::variant::Variant;
use shared::dynamo::entities::{
    cart_line, catalog_entry, category, category_listing, category_tree, customer, line_item,
    order_header, order_listing, product, variant,
};

use crate::Error;

pub use shared::dynamo::codec::Item;

pub struct SampleCustomer {
    pub id: &'static str,
    pub name: &'static str,
    pub email: &'static str,
}

pub const CUSTOMERS: [SampleCustomer; 6] = [
    SampleCustomer {
        id: "c1",
        name: "Ana Torres",
        email: "ana@example.com",
    },
    SampleCustomer {
        id: "c2",
        name: "Bruno Costa",
        email: "bruno@example.com",
    },
    SampleCustomer {
        id: "c3",
        name: "Chen Wei",
        email: "chen@example.com",
    },
    SampleCustomer {
        id: "c4",
        name: "Dana Okafor",
        email: "dana@example.com",
    },
    SampleCustomer {
        id: "c5",
        name: "Elif Yilmaz",
        email: "elif@example.com",
    },
    SampleCustomer {
        id: "c6",
        name: "Farid Haddad",
        email: "farid@example.com",
    },
];

/// The catalog, which the generated orders draw from: (sku, unit price, name). The source design's
/// line item is sku-1 at 19.95.
pub const CATALOG: [(&str, &str, &str); 8] = [
    ("sku-1", "19.95", "Stoneware mug"),
    ("sku-2", "4.50", "Tea towel"),
    ("sku-3", "12.00", "Beeswax candle"),
    ("sku-4", "99.99", "Cast-iron pan"),
    ("sku-5", "0.99", "Greeting card"),
    ("sku-6", "35.10", "Linen apron"),
    ("sku-7", "7.25", "Coffee beans, 250 g"),
    ("sku-8", "249.00", "Espresso grinder"),
];

/// How many of each product the sample catalog has in stock.
pub const SAMPLE_STOCK: u64 = 100;

/// How many orders each customer has: c1 has more than one default page (25).
const ORDERS_PER_CUSTOMER: [usize; 6] = [30, 6, 5, 4, 3, 2];

#[derive(Debug, Clone)]
pub struct SampleOrder {
    pub order_id: String,
    pub customer_id: String,
    pub placed_at: String,
    pub status: OrderStatus,
    pub lines: Vec<(String, u32, String)>,
}

impl SampleOrder {
    pub fn total(&self) -> Result<Money, Error> {
        let mut total = Decimal::ZERO;
        for (sku, quantity, price) in &self.lines {
            let price = Money::parse_number(price).ok_or_else(|| format!("{sku}: bad price"))?;
            total += price.amount() * Decimal::from(*quantity);
        }
        Ok(Money::new(total))
    }
}

/// Every sample order, o100 (the source design's) first.
pub fn orders() -> Vec<SampleOrder> {
    let mut orders = vec![SampleOrder {
        order_id: "o100".into(),
        customer_id: "c1".into(),
        placed_at: "2026-10-08T14:30:00Z".into(),
        status: OrderStatus::Placed,
        lines: vec![("sku-1".into(), 2, "19.95".into())],
    }];
    let mut n: usize = 101;
    for (c, count) in ORDERS_PER_CUSTOMER.iter().enumerate() {
        // c1 already has o100.
        let count = if c == 0 { count - 1 } else { *count };
        for k in 0..count {
            // Spread over September and October 2026, at distinct seconds.
            let day = 1 + (n * 7 + k * 3) % 60;
            let (month, day) = if day > 30 { (10, day - 30) } else { (9, day) };
            let placed_at = format!(
                "2026-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
                (n * 5) % 24,
                (n * 13) % 60,
                (n * 29) % 60
            );
            let lines = (0..1 + n % 3)
                .map(|j| {
                    let (sku, price, _) = CATALOG[(n + j * 3) % CATALOG.len()];
                    (sku.to_owned(), (1 + (n + j) % 4) as u32, price.to_owned())
                })
                .collect();
            orders.push(SampleOrder {
                order_id: format!("o{n}"),
                customer_id: CUSTOMERS[c].id.to_owned(),
                placed_at,
                status: SEEDED_STATUSES[n % SEEDED_STATUSES.len()],
                lines,
            });
            n += 1;
        }
    }
    orders
}

/// The customer item exactly as the source design's boto3 `put_item` writes it.
pub fn customer_item(customer: &SampleCustomer) -> Result<Item, Error> {
    let id = CustomerId::parse(customer.id)?;
    Ok(customer::to_item(&Customer::new(
        id,
        customer.name,
        customer.email,
    )?))
}

/// The order as its listing and header describe it.
fn order(sample: &SampleOrder) -> Result<Order, Error> {
    Ok(Order {
        order_id: OrderId::parse(&sample.order_id)?,
        customer_id: CustomerId::parse(&sample.customer_id)?,
        placed_at: Timestamp::parse(&sample.placed_at)?,
        status: sample.status,
        total: sample.total()?,
        hold_until: None,
        payment_intent_id: None,
        payment_id: None,
        payment_error: None,
        dispute: None,
        withdrawn: None,
    })
}

/// The header this store's API writes beside the line items, without an event counter: the
/// sample data is history, which no event ever told (docs/events.md).
pub fn header_item(sample: &SampleOrder) -> Result<Item, Error> {
    let mut item = order_header::to_item(&order(sample)?);
    item.remove(order_header::EVENT_SEQUENCE.name);
    Ok(item)
}

/// The fulfilment of a sample order that left: all of its lines in one, with its tracking
/// (delivered, for a DELIVERED order), shipped a day after it was placed; no event counter, as
/// for its header. `None` for an order that did not leave.
pub fn fulfilment_item(sample: &SampleOrder) -> Result<Option<Item>, Error> {
    use shared::domain::fulfilment::{Fulfilment, FulfilmentStatus, Tracking};
    use shared::domain::order::LineQuantity;
    if !matches!(sample.status, OrderStatus::Shipped | OrderStatus::Delivered) {
        return Ok(None);
    }
    let order = order(sample)?;
    let shipped_at =
        Timestamp::from_datetime(order.placed_at.as_datetime() + chrono::TimeDelta::days(1));
    let lines = sample
        .lines
        .iter()
        .map(|(sku, quantity, _)| {
            Ok(LineQuantity {
                sku: Sku::parse(sku)?,
                quantity: *quantity,
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let number = format!(
        "JD{:010}",
        sample
            .order_id
            .trim_start_matches('o')
            .parse::<u64>()
            .unwrap_or(0)
    );
    let mut fulfilment = Fulfilment::shipped(
        shared::domain::ids::FulfilmentId::parse(&format!("ff_{}", sample.order_id))?,
        lines,
        Tracking {
            carrier: Some("DHL".into()),
            tracking_url: Some(format!("https://www.dhl.com/track?id={number}")),
            tracking_number: Some(number),
        },
        shipped_at,
    );
    if sample.status == OrderStatus::Delivered {
        let delivered_at =
            Timestamp::from_datetime(shipped_at.as_datetime() + chrono::TimeDelta::days(2));
        fulfilment.status = FulfilmentStatus::Delivered;
        fulfilment.delivered_at = Some(delivered_at);
        fulfilment.updated_at = delivered_at;
    }
    let mut item = shared::dynamo::entities::fulfilment::to_item(
        &order.order_id,
        &order.customer_id,
        &fulfilment,
    );
    if let Some(at) = &fulfilment.delivered_at {
        shared::dynamo::entities::fulfilment::DELIVERED_AT.put(&mut item, at);
    }
    item.remove(shared::dynamo::entities::fulfilment::EVENT_SEQUENCE.name);
    Ok(Some(item))
}

/// The sample returns: one asked for of c1's o106 (REQUESTED), and one approved of c1's o110
/// (APPROVED), both DELIVERED sample orders; `events/update-return.json` approves the first,
/// `events/receive-return.json` receives the second. No event counter, as for the headers.
pub const SAMPLE_RETURNS: [(&str, &str, &str, u32, &str); 2] = [
    ("o106", "rt_o106", "sku-6", 1, "the wrong colour"),
    ("o110", "rt_o110", "sku-2", 1, "arrived torn"),
];

fn return_items() -> Result<Vec<Item>, Error> {
    use shared::domain::order::LineQuantity;
    use shared::domain::returns::{OrderReturn, ReturnStatus};
    let orders = orders();
    SAMPLE_RETURNS
        .iter()
        .enumerate()
        .map(|(i, (order_id, return_id, sku, quantity, reason))| {
            let sample = orders
                .iter()
                .find(|o| o.order_id == *order_id)
                .ok_or_else(|| format!("no sample order {order_id}"))?;
            let order = order(sample)?;
            // Asked for ten days after the order was placed (a week after its delivery).
            let asked_at = Timestamp::from_datetime(
                order.placed_at.as_datetime() + chrono::TimeDelta::days(10),
            );
            let mut asked = OrderReturn::requested(
                shared::domain::ids::ReturnId::parse(return_id)?,
                vec![LineQuantity {
                    sku: Sku::parse(sku)?,
                    quantity: *quantity,
                }],
                (*reason).to_owned(),
                asked_at,
            );
            if i == 1 {
                asked.status = ReturnStatus::Approved;
            }
            let mut item = shared::dynamo::entities::order_return::to_item(
                &order.order_id,
                &order.customer_id,
                &asked,
            );
            item.remove(shared::dynamo::entities::order_return::EVENT_SEQUENCE.name);
            Ok(item)
        })
        .collect()
}

/// The order listing item and the line items, exactly as the source design's boto3 `put_item` writes them.
pub fn order_items(sample: &SampleOrder) -> Result<Vec<Item>, Error> {
    let order = order(sample)?;
    let mut written = vec![order_listing::to_item(
        &order,
        shared::dynamo::keys::StatusShards::ONE,
    )];
    for (sku, quantity, price) in &sample.lines {
        let line = LineItem::untitled(
            Sku::parse(sku)?,
            *quantity,
            Money::parse_number(price).ok_or_else(|| format!("{sku}: bad price"))?,
        );
        written.push(line_item::source_design_item(&order.order_id, &line));
    }
    Ok(written)
}

/// The sample category tree: (categoryId, name, parentId).
pub const CATEGORIES: [(&str, &str, Option<&str>); 4] = [
    ("home", "Home", None),
    ("kitchen", "Kitchen", Some("home")),
    ("coffee", "Coffee", Some("kitchen")),
    ("textiles", "Textiles", Some("home")),
];

/// The categories each sample product is listed in.
fn categories_of(sku: &str) -> &'static [&'static str] {
    match sku {
        "sku-1" | "sku-4" => &["kitchen"],
        "sku-2" | "sku-6" => &["textiles"],
        "sku-3" => &["home"],
        "sku-7" => &["coffee"],
        "sku-8" => &["coffee", "kitchen"],
        _ => &[],
    }
}

/// The sample category tree's items, and its version.
fn category_items() -> Result<Vec<Item>, Error> {
    let mut items = Vec::new();
    for (id, name, parent) in CATEGORIES {
        items.push(category::to_item(&Category {
            category_id: CategoryId::parse(id)?,
            name: name.to_owned(),
            parent_id: parent.map(CategoryId::parse).transpose()?,
        }));
    }
    let mut version = category_tree::key();
    category_tree::VERSION.put(&mut version, &1);
    items.push(version);
    Ok(items)
}

/// When the sample catalog's products were first written.
const CATALOG_CREATED_AT: &str = "2026-09-01T09:00:00Z";

/// The products of the sample catalog, each published with one variant of its own SKU (the
/// product's ID), and their catalog entries (written by this store's API, not the source
/// design's boto3 code, which has no catalog).
pub fn catalog_items() -> Result<Vec<Item>, Error> {
    let mut items = Vec::new();
    for (sku, price, name) in CATALOG {
        let price = Money::parse_number(price).ok_or_else(|| format!("{sku}: bad price"))?;
        let product = Product {
            product_id: ProductId::parse(sku)?,
            title: name.to_owned(),
            description: String::new(),
            status: ProductStatus::Published,
            category_ids: categories_of(sku)
                .iter()
                .map(|id| CategoryId::parse(id))
                .collect::<Result<_, _>>()?,
            options: Vec::new(),
            skus: vec![Sku::parse(sku)?],
            created_at: Timestamp::parse(CATALOG_CREATED_AT)?,
        };
        let entry = CatalogEntry {
            product_id: product.product_id.clone(),
            title: product.title.clone(),
            price,
            cover: None,
        };
        items.extend(category_listing::entries(&entry, &product));
        items.push(catalog_entry::to_item(&entry));
        items.push(variant::to_item(&Variant {
            sku: Sku::parse(sku)?,
            product_id: Some(product.product_id.clone()),
            title: product.title.clone(),
            options: OptionValues::default(),
            price,
            stock: SAMPLE_STOCK,
            stock_shards: Default::default(),
            order_shards: Default::default(),
            status: ProductStatus::Published,
            weight_grams: 0,
        }));
        // Version 0: the sample data is history, and publishes nothing.
        items.push(product::to_item(&product, 0, &Default::default()));
    }
    items.extend(category_items()?);
    Ok(items)
}

/// Every sample item.
pub fn items() -> Result<Vec<Item>, Error> {
    let mut items = catalog_items()?;
    for customer in &CUSTOMERS {
        items.push(customer_item(customer)?);
    }
    for order in orders() {
        items.extend(order_items(&order)?);
        items.push(header_item(&order)?);
        items.extend(fulfilment_item(&order)?);
    }
    items.extend(return_items()?);
    items.extend(cart_items()?);
    items.extend(shipping_items()?);
    items.extend(tax_items()?);
    items.extend(promotion_items()?);
    Ok(items)
}

/// The sample tax: Germany's 19 %, shipping taxed; the United States' states that set one, in
/// two of them (no rate of the country's own).
fn tax_items() -> Result<Vec<Item>, Error> {
    use shared::domain::tax::TaxRateBody;
    let rates = [
        (
            "DE",
            serde_json::json!({"rate": "0.19", "shippingTaxed": true}),
        ),
        (
            "US",
            serde_json::json!({"rate": "0", "regions": {"US-CA": "0.0725", "US-NY": "0.08875"}}),
        ),
    ];
    rates
        .into_iter()
        .map(|(country, body)| {
            let body: TaxRateBody = serde_json::from_value(body)?;
            let rate = body.check(shared::domain::address::Country::parse(country)?)?;
            Ok(shared::dynamo::entities::tax_rate::to_item(&rate))
        })
        .collect()
}

/// The sample promotions: the code SAVE10 (10 % off from a 20.00 subtotal, combinable), and
/// candles three for two (automatic).
fn promotion_items() -> Result<Vec<Item>, Error> {
    use shared::domain::promotions::PromotionBody;
    use shared::dynamo::entities::{promotion, promotion_code};
    let promotions = [
        (
            "save10",
            serde_json::json!({
                "code": "SAVE10", "type": "percentage", "value": "10",
                "conditions": {"minSubtotal": "20.00"}, "combinable": true,
            }),
        ),
        (
            "candles-3-for-2",
            serde_json::json!({
                "type": "buy-x-get-y",
                "buy": {"skus": ["sku-3"], "quantity": 2}, "get": {"skus": ["sku-3"], "quantity": 1},
            }),
        ),
    ];
    let mut items = Vec::new();
    for (id, body) in promotions {
        let body: PromotionBody = serde_json::from_value(body)?;
        let rule = body.check(shared::domain::ids::PromotionId::parse(id)?)?;
        if let Some(code) = &rule.code {
            items.push(promotion_code::to_item(code, &rule.promotion_id));
        }
        items.push(promotion::to_item(&rule, 1));
    }
    Ok(items)
}

/// The sample ways to ship: standard to the United States and Germany by weight, free from
/// 100.00; express to California and New York, flat.
fn shipping_items() -> Result<Vec<Item>, Error> {
    use shared::domain::shipping::ShippingOptionBody;
    let options = [
        (
            "standard",
            serde_json::json!({
                "name": "Standard",
                "countries": ["US", "DE"],
                "rate": {"byWeight": [{"upToGrams": 1000, "amount": "4.00"}, {"upToGrams": 5000, "amount": "9.50"}]},
                "freeAbove": "100.00",
            }),
        ),
        (
            "express",
            serde_json::json!({
                "name": "Express",
                "regions": {"US": ["US-CA", "US-NY"]},
                "rate": {"flat": "15.00"},
            }),
        ),
    ];
    options
        .into_iter()
        .map(|(id, body)| {
            let body: ShippingOptionBody = serde_json::from_value(body)?;
            let option = body.check(shared::domain::ids::ShippingOptionId::parse(id)?)?;
            Ok(shared::dynamo::entities::shipping_option::to_item(&option))
        })
        .collect()
}

/// The sample cart: c2's, ready to check out (`events/checkout.json`), its lines expiring
/// the default 30 days after the seeding.
pub const SAMPLE_CART: (&str, [(&str, u32); 2]) = ("c2", [("sku-1", 1), ("sku-3", 2)]);

fn cart_items() -> Result<Vec<Item>, Error> {
    let customer = CustomerId::parse(SAMPLE_CART.0)?;
    let expires_at = shared::domain::cart::CartTtl::default().expiry(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    );
    SAMPLE_CART
        .1
        .iter()
        .map(|(sku, quantity)| {
            let line = shared::domain::cart::CartLine {
                sku: Sku::parse(sku)?,
                quantity: *quantity,
            };
            Ok(cart_line::to_item(&customer, &line, expires_at))
        })
        .collect()
}

/// Writes `items` with BatchWriteItem, retrying what the engine leaves unprocessed.
pub async fn write_all(client: &Client, table: &str, items: Vec<Item>) -> Result<(), Error> {
    let mut requests: Vec<WriteRequest> = items
        .into_iter()
        .map(|item| {
            PutRequest::builder()
                .set_item(Some(item))
                .build()
                .map(|put| WriteRequest::builder().put_request(put).build())
        })
        .collect::<Result<_, _>>()?;
    while !requests.is_empty() {
        let batch: Vec<WriteRequest> = requests.drain(..requests.len().min(25)).collect();
        let mut pending = Some(batch);
        let mut backoff = Duration::from_millis(10);
        while let Some(batch) = pending.take().filter(|b| !b.is_empty()) {
            let out = client
                .batch_write_item()
                .request_items(table, batch)
                .send()
                .await?;
            pending = out
                .unprocessed_items
                .and_then(|mut left| left.remove(table));
            if pending.as_ref().is_some_and(|b| !b.is_empty()) {
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
        }
    }
    Ok(())
}

/// Seeds the sample data unless the source design's customer c1 is already there. c1's profile is
/// written last, so an interrupted seeding is completed on the next start.
pub async fn seed_if_empty(client: &Client, table: &str) -> Result<bool, Error> {
    let c1 = customer_item(&CUSTOMERS[0])?;
    let present = client
        .get_item()
        .table_name(table)
        .set_key(Some(Item::from([
            ("PK".into(), c1["PK"].clone()),
            ("SK".into(), c1["SK"].clone()),
        ])))
        .send()
        .await?
        .item
        .is_some();
    if present {
        return Ok(false);
    }
    let mut all = items()?;
    all.retain(|item| item != &c1);
    write_all(client, table, all).await?;
    write_all(client, table, vec![c1]).await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn the_source_designs_order_is_the_first_sample() {
        let o100 = &orders()[0];
        assert_eq!(o100.order_id, "o100");
        assert_eq!(o100.total().expect("total").to_string(), "39.90");
        let items = order_items(o100).expect("items");
        let s = |v: &str| AttributeValue::S(v.to_owned());
        assert_eq!(items[0]["SK"], s("ORDER#2026-10-08T14:30:00Z#o100"));
        assert_eq!(items[0]["total"], AttributeValue::N("39.90".into()));
        assert_eq!(items[1]["PK"], s("ORDER#o100"));
        assert_eq!(items[1]["SK"], s("ITEM#sku-1"));
        assert_eq!(items[1]["price"], AttributeValue::N("19.95".into()));
    }

    #[test]
    fn samples_are_unique_and_show_every_status() {
        let orders = orders();
        let mut keys: Vec<_> = orders
            .iter()
            .map(|o| (&o.customer_id, &o.placed_at))
            .collect();
        keys.sort();
        keys.dedup();
        assert_eq!(
            keys.len(),
            orders.len(),
            "two orders of one customer share a second"
        );
        for status in SEEDED_STATUSES {
            assert!(orders.iter().filter(|o| o.status == status).count() >= 3);
        }
        assert!(orders.iter().filter(|o| o.customer_id == "c1").count() > 25);
        for order in &orders {
            let mut skus: Vec<_> = order.lines.iter().map(|l| &l.0).collect();
            skus.sort();
            skus.dedup();
            assert_eq!(
                skus.len(),
                order.lines.len(),
                "{} repeats a sku",
                order.order_id
            );
        }
    }
}
