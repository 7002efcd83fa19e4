//! Round five, finding 1: an order's partition is read in ONE Query, so everything an order may
//! hold has a cap that keeps it under the 1 MB one page returns. This builds the largest order
//! the caps allow, every free-text field at its most bytes (4-byte characters where a field
//! takes any, ASCII where it takes only that), writes it through the entities' own codecs, and
//! reads it: one page, nothing left behind, and the route answers it whole.

use aws_sdk_dynamodb::types::AttributeValue;
use shared::domain::cancellation::{
    Cancellation, MAX_CANCELLATIONS_PER_ORDER, MAX_CANCELLED_LINES,
};
use shared::domain::fulfilment::{
    Fulfilment, MAX_FULFILMENTS_PER_ORDER, MAX_TRACKING_CHANGES, MAX_TRACKING_CHARS,
    MAX_TRACKING_URL_CHARS, Tracking, TrackingChange,
};
use shared::domain::ids::{
    CancellationId, CustomerId, DisputeId, FulfilmentId, OrderId, PaymentId, ProviderRefundId,
    RefundId, ReturnId, Sku,
};
use shared::domain::money::Money;
use shared::domain::order::{LineItem, LineQuantity, MAX_LINES, Order, OrderDispute};
use shared::domain::payment::MAX_PAYMENT_ERROR_CHARS;
use shared::domain::refund::{
    MAX_FAILURE_CHARS, MAX_REASON_CHARS, MAX_REFUNDS_PER_ORDER, Refund, RefundKind,
};
use shared::domain::returns::{MAX_RETURN_LINES, MAX_RETURNS_PER_ORDER, OrderReturn, ReceivedLine};
use shared::domain::status::OrderStatus;
use shared::domain::stock_shards::ShardCount;
use shared::domain::text::MAX_NOTE_CHARS;
use shared::domain::time::Timestamp;
use shared::dynamo::codec::Item;
use shared::dynamo::entities::{
    cancellation, fulfilment, line_item, order_header, order_return, refund,
};

use super::*;

/// The most a Query page holds.
const PAGE_BYTES: usize = 1024 * 1024;

/// `chars` characters of 4 bytes each: the most bytes a field of that many characters holds.
fn widest(chars: usize) -> String {
    "\u{1D11E}".repeat(chars)
}

/// An ID of the most characters one takes, unique by `n`.
fn id(prefix: &str, n: usize, len: usize) -> String {
    let head = format!("{prefix}{n}-");
    format!("{head}{}", "x".repeat(len - head.len()))
}

fn sku(n: usize) -> Sku {
    Sku::parse(&id("sku-", n, 64)).expect("sku")
}

fn at() -> Timestamp {
    Timestamp::parse("2026-12-06T10:00:00Z").expect("time")
}

fn lines(n: usize) -> Vec<LineQuantity> {
    (0..n)
        .map(|i| LineQuantity {
            sku: sku(i),
            quantity: 10_000,
        })
        .collect()
}

fn tracking() -> Tracking {
    let url = format!(
        "https://a.example/{}",
        "t".repeat(MAX_TRACKING_URL_CHARS - 18)
    );
    Tracking {
        carrier: Some(widest(MAX_TRACKING_CHARS)),
        tracking_number: Some(widest(MAX_TRACKING_CHARS)),
        tracking_url: Some(url),
    }
}

/// DynamoDB's size of an item: each attribute's name and value (strings and binaries in bytes,
/// numbers at most 21 bytes, 3 bytes for each list or map and each of its elements).
fn size(item: &Item) -> usize {
    fn value(v: &AttributeValue) -> usize {
        match v {
            AttributeValue::S(s) => s.len(),
            AttributeValue::N(n) => n.len().div_ceil(2) + 1,
            AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
            AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value(v)).sum::<usize>(),
            AttributeValue::M(map) => {
                3 + map
                    .iter()
                    .map(|(k, v)| 1 + k.len() + value(v))
                    .sum::<usize>()
            }
            AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
            other => panic!("an attribute of a kind the order does not write: {other:?}"),
        }
    }
    item.iter().map(|(name, v)| name.len() + value(v)).sum()
}

/// Every item of the largest order the caps allow.
fn largest_order() -> (OrderId, Vec<Item>) {
    let order = Order {
        order_id: OrderId::parse(&id("o", 0, 64)).expect("id"),
        customer_id: CustomerId::parse(&id("c", 0, 64)).expect("id"),
        placed_at: at(),
        status: OrderStatus::PartiallyShipped,
        total: Money::parse_number("99999999.99").expect("money"),
        hold_until: Some(at()),
        payment_intent_id: Some(PaymentId::parse(&id("pi_", 0, 255)).expect("id")),
        payment_id: Some(PaymentId::parse(&id("pi_", 1, 255)).expect("id")),
        payment_error: Some(widest(MAX_PAYMENT_ERROR_CHARS)),
        dispute: Some(OrderDispute {
            dispute_id: DisputeId::parse(&id("dp_", 0, 255)).expect("id"),
            reason: "x".repeat(64),
            amount: 999_999_999,
            disputed_at: at(),
        }),
        withdrawn: Some(Money::parse_number("99999999.99").expect("money")),
    };
    let mut items = Vec::new();
    let mut header = order_header::to_item(&order);
    for attr in [
        &order_header::PAID_AMOUNT,
        &order_header::REFUNDABLE,
        &order_header::REFUNDED,
    ] {
        attr.put(&mut header, &999_999_999_999);
    }
    order_header::REFUND_COUNT.put(&mut header, &u32::MAX);
    order_header::EVENT_SEQUENCE.put(&mut header, &u64::MAX);
    order_header::LINES_VERSION.put(&mut header, &u64::MAX);
    items.push(header);
    for n in 0..MAX_LINES {
        // The longest title and options a product may have, each character four bytes.
        let long = |chars: usize| "𝄞".repeat(chars);
        let line = LineItem {
            title: Some(long(shared::domain::product::MAX_NAME_CHARS)),
            options: shared::domain::product::OptionValues(
                (0..shared::domain::product::MAX_OPTIONS)
                    .map(|i| (format!("{i}{}", long(49)), long(50)))
                    .collect(),
            ),
            discount: Money::parse_number("99999999.99"),
            tax: Money::parse_number("99999999.99"),
            ..LineItem::untitled(
                sku(n),
                10_000,
                Money::parse_number("99999999.99").expect("money"),
            )
        };
        let mut item = line_item::to_item(&order, &line, ShardCount::ONE);
        for attr in [
            &line_item::REFUNDED_QUANTITY,
            &line_item::RESTOCKED_QUANTITY,
            &line_item::CANCELLED_QUANTITY,
            &line_item::RETURNED_QUANTITY,
        ] {
            attr.put(&mut item, &10_000);
        }
        items.push(item);
    }
    let (o, c) = (&order.order_id, &order.customer_id);
    for n in 0..MAX_FULFILMENTS_PER_ORDER {
        let mut shipped = Fulfilment::shipped(
            FulfilmentId::parse(&id("ff_", n, 64)).expect("id"),
            lines(MAX_LINES),
            tracking(),
            at(),
        );
        shipped.delivered_at = Some(at());
        shipped.history = (0..MAX_TRACKING_CHANGES)
            .map(|_| TrackingChange {
                tracking: tracking(),
                replaced_at: at(),
            })
            .collect();
        shipped.event_sequence = u64::MAX;
        items.push(fulfilment::to_item(o, c, &shipped));
    }
    for n in 0..MAX_RETURNS_PER_ORDER {
        let mut asked = OrderReturn::requested(
            ReturnId::parse(&id("rt_", n, 64)).expect("id"),
            lines(MAX_RETURN_LINES),
            widest(MAX_REASON_CHARS),
            at(),
        );
        asked.received = (0..MAX_RETURN_LINES)
            .map(|i| ReceivedLine {
                sku: sku(i),
                received: 10_000,
                damaged: 10_000,
            })
            .collect();
        asked.refund_id = Some(RefundId::parse(&id("rf_rt_", n, 64)).expect("id"));
        asked.note = Some(widest(MAX_NOTE_CHARS));
        asked.event_sequence = u64::MAX;
        items.push(order_return::to_item(o, c, &asked));
    }
    for n in 0..MAX_CANCELLATIONS_PER_ORDER {
        let cancelled = Cancellation {
            cancellation_id: CancellationId::parse(&id("cn_", n, 64)).expect("id"),
            lines: lines(MAX_CANCELLED_LINES),
            reason: widest(MAX_REASON_CHARS),
            note: Some(widest(MAX_NOTE_CHARS)),
            refund_id: Some(RefundId::parse(&id("rf_cn_", n, 64)).expect("id")),
            cancelled_at: at(),
        };
        items.push(cancellation::to_item(o, c, &cancelled));
    }
    // Staff's refunds, and one for each cancellation and receipt, and the order's own
    // cancellation's.
    let refunds =
        MAX_REFUNDS_PER_ORDER as usize + MAX_CANCELLATIONS_PER_ORDER + MAX_RETURNS_PER_ORDER + 1;
    for n in 0..refunds {
        let mut paid_back = Refund::requested(
            RefundId::parse(&id("rf_", n, 64)).expect("id"),
            Some(o.clone()),
            PaymentId::parse(&id("pi_", 1, 255)).expect("id"),
            999_999_999,
            "usd",
            RefundKind::Staff,
            widest(MAX_REASON_CHARS),
        );
        paid_back.provider_refund_id =
            Some(ProviderRefundId::parse(&id("re_", n, 255)).expect("id"));
        paid_back.failure = Some(widest(MAX_FAILURE_CHARS));
        paid_back.note = Some(widest(MAX_NOTE_CHARS));
        paid_back.lines = lines(MAX_LINES);
        paid_back.restock = true;
        paid_back.cancellation_id = Some(CancellationId::parse(&id("cn_", n, 64)).expect("id"));
        paid_back.return_id = Some(ReturnId::parse(&id("rt_", n, 64)).expect("id"));
        paid_back.attempts = u32::MAX;
        paid_back.sent_at = Some(at());
        items.push(refund::to_item(&paid_back));
    }
    (order.order_id, items)
}

/// `items` written as they are, one PutItem each.
async fn put_all(app: &TestApp, items: &[Item]) {
    for item in items {
        (app.store.client().put_item())
            .table_name(LOCAL_TABLE)
            .set_item(Some(item.clone()))
            .send()
            .await
            .expect("put");
    }
}

#[tokio::test]
async fn the_largest_order_the_caps_allow_is_read_whole_in_one_query() {
    let app = TestApp::empty().await.expect("app");
    let (order, items) = largest_order();
    let bytes: usize = items.iter().map(size).sum();
    let mut by_kind = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for item in &items {
        let sk = item["SK"].as_s().expect("sk");
        let kind = sk.split('#').next().unwrap_or_default().to_owned();
        let entry = by_kind.entry(kind).or_default();
        entry.0 += 1;
        entry.1 += size(item);
    }
    println!("by kind (items, bytes): {by_kind:?}");
    println!(
        "the largest order: {} items, {bytes} bytes ({:.0}% of a page)",
        items.len(),
        100.0 * bytes as f64 / PAGE_BYTES as f64
    );
    assert!(
        bytes < PAGE_BYTES * 9 / 10,
        "{bytes} bytes leave less than a tenth of the page: lower a cap"
    );
    put_all(&app, &items).await;
    let page = app
        .store
        .client()
        .query()
        .table_name(LOCAL_TABLE)
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", AttributeValue::S(order_header::pk(&order)))
        .consistent_read(true)
        .send()
        .await
        .expect("query");
    assert_eq!(
        page.count() as usize,
        items.len(),
        "every item in the one page"
    );
    assert!(
        page.last_evaluated_key().is_none(),
        "nothing left for a second page"
    );

    app.requests.reset();
    let (status, _, body) = super::order(&app, order.as_str()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        [
            body["items"].as_array().map(Vec::len),
            body["fulfilments"].as_array().map(Vec::len),
            body["returns"].as_array().map(Vec::len),
            body["cancellations"].as_array().map(Vec::len),
        ],
        [
            Some(MAX_LINES),
            Some(MAX_FULFILMENTS_PER_ORDER),
            Some(MAX_RETURNS_PER_ORDER),
            Some(MAX_CANCELLATIONS_PER_ORDER),
        ]
    );
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), 1)].into(),
        "one request"
    );
}

/// What the caps keep from happening, should they ever be raised past the page: an order whose
/// partition outgrows one Query page is still read whole, its header included (it sorts after
/// its fulfilments, so it is what a single page would lose).
#[tokio::test]
async fn an_order_past_one_page_is_still_read_whole() {
    let app = TestApp::empty().await.expect("app");
    let (order, mut items) = largest_order();
    items.retain(|item| {
        let sk = item["SK"].as_s().expect("sk");
        sk == "HEADER" || sk.starts_with("ITEM#")
    });
    let header = items[0].clone();
    let (o, c) = (
        order_header::from_item(header).expect("header").order_id,
        CustomerId::parse(&id("c", 0, 64)).expect("id"),
    );
    let mut n = 0;
    while items.iter().map(size).sum::<usize>() < PAGE_BYTES * 3 / 2 {
        let shipped = Fulfilment::shipped(
            FulfilmentId::parse(&id("ff_", n, 64)).expect("id"),
            lines(MAX_LINES),
            tracking(),
            at(),
        );
        items.push(fulfilment::to_item(&o, &c, &shipped));
        n += 1;
    }
    put_all(&app, &items).await;
    let (status, _, body) = super::order(&app, order.as_str()).await;
    assert_eq!(status, 200, "the order is still there: {body}");
    assert_eq!(
        body["fulfilments"].as_array().map(Vec::len),
        Some(n),
        "every fulfilment, past the first page too"
    );
}
