//! One file per stored entity: its key builders and parsers, its codec (the attributes it
//! holds, with their DynamoDB types, written and read through one description), and the
//! attribute names its writes touch. Everything about an item is in its entity's file;
//! `dynamo::keys` holds what entities share: the prefixes, and the registry of which sort keys
//! share a partition, in order.
//!
//! Items are read the way the source design's boto3 code writes them: only the attributes of
//! the key design are required, and what the keys already say (customerId, orderId, placedAt,
//! sku) is taken from the keys.

pub mod cancellation;
pub mod cart_line;
pub mod cart_version;
pub mod catalog_entry;
pub mod category;
pub mod category_listing;
pub mod category_tree;
pub mod counted_order;
pub mod customer;
pub mod customer_email;
pub mod fulfilment;
pub mod idempotency;
pub mod line_item;
pub mod migration_state;
pub mod open_order_count;
pub mod order_charges;
pub mod order_header;
pub mod order_listing;
pub mod order_return;
pub mod payment_event;
pub mod payment_order;
pub mod product;
pub mod product_media;
pub mod promotion;
pub mod promotion_code;
pub mod promotion_uses;
pub mod refund;
pub mod refund_due;
pub mod shipping_option;
pub mod stock_shard;
pub mod tax_rate;
pub mod unread_event;
pub mod variant;

#[cfg(test)]
pub(crate) mod test_support;

use crate::dynamo::update::{DeleteSpec, PutSpec, UpdateSpec};

/// Every kind of UpdateItem the store sends, as the entity files declare them.
pub const UPDATES: &[&UpdateSpec] = &[
    &customer::PROFILE_UPDATE,
    &customer::STATS_UPDATE,
    &order_listing::STATUS_CHANGE,
    &order_header::STATUS_CHANGE,
    &order_header::ON_TIME,
    &order_header::PAYMENT,
    &order_header::PAYMENT_INTENT,
    &order_header::PAYMENT_FAILED,
    &order_header::REFUND,
    &order_header::INTENT_CANCELED,
    &order_header::DISPUTE,
    &line_item::BACK,
    &refund::CLAIM,
    &refund::SETTLE,
    &refund_due::CLAIM,
    &refund_due::SETTLE,
    &line_item::GSI2_BACKFILL,
    &open_order_count::COUNT_UPDATE,
    &cart_version::MOVE_ON,
    &cart_version::MARK_PROFILED,
    &variant::WRITE,
    &variant::RETIRE,
    &variant::ADOPT,
    &category_tree::MOVE_ON,
    &variant::STOCK_UPDATE,
    &variant::TAKE_STOCK,
    &variant::SPREAD,
    &stock_shard::TAKE,
    &stock_shard::SPREAD,
    &stock_shard::TERMS,
    &customer_email::FINISH,
    &order_header::LINES_CHANGE,
    &fulfilment::UPDATE,
    &order_header::WITHDRAW,
    &order_listing::WITHDRAW,
    &order_return::MOVE,
    &product_media::SHOW,
    &product::MEDIA,
    &catalog_entry::COVER_CHANGE,
    &category_listing::COVER_CHANGE,
    &promotion_uses::COUNT,
];

/// Every kind of PutItem the store sends.
pub const PUTS: &[&PutSpec] = &[
    &order_listing::PUT,
    &order_listing::PUT_HOLD,
    &order_header::PUT,
    &order_header::PUT_HOLD,
    &line_item::PUT,
    &cart_line::PUT,
    &catalog_entry::PUT,
    &product::PUT,
    &category::PUT,
    &category_listing::PUT,
    &counted_order::PUT,
    &idempotency::PUT,
    &payment_event::PUT,
    &payment_order::PUT,
    &refund::PUT,
    &refund_due::PUT,
    &refund_due::POINTER,
    &unread_event::PUT,
    &customer_email::CLAIM,
    &fulfilment::PUT,
    &cancellation::PUT,
    &order_return::PUT,
    &product_media::START,
    &shipping_option::PUT,
    &tax_rate::PUT,
    &promotion::PUT,
    &promotion_code::CLAIM,
];

/// Every kind of DeleteItem the store sends.
pub const DELETES: &[&DeleteSpec] = &[
    &cart_line::REMOVE,
    &cart_line::TAKE,
    &customer_email::RELEASE,
    &catalog_entry::REMOVE,
    &category_listing::REMOVE,
    &product_media::DISCARD,
    &promotion_code::RELEASE,
    &stock_shard::DROP,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::{IdempotencyKey, PaymentEventId, PaymentId, Sku};
    use crate::dynamo::codec::{Item, PK, SK};
    use crate::dynamo::keys::{
        CUSTOMER_PARTITION, Entity, ORDER_PARTITION, Partition, SortKeys, warm_up,
    };
    use test_support::{c1, o100};

    /// Whether every sort key of `keys` is inside the inclusive range `lo..=hi` (`Some(true)`),
    /// none is (`Some(false)`), or some are and some are not (`None`).
    fn inside(keys: SortKeys, lo: &str, hi: &str) -> Option<bool> {
        match keys {
            SortKeys::Exactly(exact) => Some(lo <= exact && exact <= hi),
            // Every key of a prefix is longer than it, and below its highest bound.
            SortKeys::Prefixed(prefix) => {
                let top = keys.highest();
                if lo <= prefix && top.as_str() <= hi {
                    Some(true)
                } else if top.as_str() <= lo || prefix >= hi {
                    Some(false)
                } else {
                    None
                }
            }
        }
    }

    /// What a range read is for, the partition it reads, its bounds and what it means to read.
    type RangeRead = (
        &'static str,
        &'static Partition,
        (String, String),
        Vec<Entity>,
    );

    /// Each range a Query reads over a shared partition, and the entities it means to read.
    fn ranges_the_store_reads() -> Vec<RangeRead> {
        vec![
            (
                "a customer's orders (pattern 2)",
                &CUSTOMER_PARTITION,
                order_listing::sk_range(None, None),
                vec![Entity::OrderListing],
            ),
            (
                "the statistics' recount",
                &CUSTOMER_PARTITION,
                counted_order::with_listings_range(),
                vec![Entity::CountedOrder, Entity::OrderListing],
            ),
            (
                "an order's header and lines (patterns 3, 7)",
                &ORDER_PARTITION,
                ORDER_PARTITION.range(Entity::OrderHeader, Entity::LineItem),
                vec![Entity::OrderHeader, Entity::LineItem],
            ),
            (
                "the source design's begins_with(SK, \"ORDER#\")",
                &CUSTOMER_PARTITION,
                (
                    order_listing::SK_PREFIX.to_owned(),
                    SortKeys::Prefixed(order_listing::SK_PREFIX).highest(),
                ),
                vec![Entity::OrderListing],
            ),
            (
                "a customer's cart (pattern 9)",
                &CUSTOMER_PARTITION,
                (
                    cart_line::SK_PREFIX.to_owned(),
                    SortKeys::Prefixed(cart_line::SK_PREFIX).highest(),
                ),
                vec![Entity::CartLine],
            ),
            (
                "the source design's begins_with(SK, \"ITEM#\")",
                &ORDER_PARTITION,
                (
                    line_item::SK_PREFIX.to_owned(),
                    SortKeys::Prefixed(line_item::SK_PREFIX).highest(),
                ),
                vec![Entity::LineItem],
            ),
        ]
    }

    #[test]
    fn every_range_the_store_reads_holds_only_the_entities_it_names() {
        for (what, partition, (lo, hi), meant) in ranges_the_store_reads() {
            assert!(lo <= hi, "{what}: {lo} > {hi}");
            for (entity, keys) in partition.sort_keys {
                let expected = meant.contains(entity);
                assert_eq!(
                    inside(*keys, &lo, &hi),
                    Some(expected),
                    "{what} ({lo}..={hi}) and {entity:?} ({keys:?})"
                );
            }
        }
    }

    #[test]
    fn the_sort_keys_of_a_shared_partition_are_listed_in_order_and_never_overlap() {
        for partition in [&CUSTOMER_PARTITION, &ORDER_PARTITION] {
            for pair in partition.sort_keys.windows(2) {
                let ((a, a_keys), (b, b_keys)) = (pair[0], pair[1]);
                // Every key of `a` sorts below every key of `b`.
                let below = match (a_keys, b_keys) {
                    (SortKeys::Exactly(x), SortKeys::Exactly(y)) => x < y,
                    _ => a_keys.highest().as_str() <= b_keys.lowest(),
                };
                assert!(
                    below,
                    "{a:?} ({a_keys:?}) must sort wholly below {b:?} ({b_keys:?})"
                );
                assert!(
                    !a_keys.holds(b_keys.lowest()) && !b_keys.holds(a_keys.lowest()),
                    "{a:?} and {b:?} share keys"
                );
            }
        }
    }

    /// A prefix added between the counted orders and the listings would be read, billed and
    /// logged by the recount: the registry check catches it.
    #[test]
    fn an_entity_placed_inside_a_read_range_is_caught() {
        let cart = SortKeys::Prefixed("DRAFT#");
        let (lo, hi) = counted_order::with_listings_range();
        assert_eq!(inside(cart, &lo, &hi), Some(true));
        let after_profile = SortKeys::Exactly("ZZZ");
        assert_eq!(inside(after_profile, &lo, &hi), Some(false));
        let straddling = SortKeys::Prefixed("ORDER$");
        assert_eq!(inside(straddling, "ORDER#", "ORDER$x"), None);
    }

    /// Each PutSpec names exactly what its entity's codec writes, so the grants derived from it
    /// allow the put and nothing more.
    /// A promotion with every field its item can hold (a buy-x-get-y holds no `value`, so
    /// one is set by hand: the put spec must still declare it).
    fn every_field() -> crate::domain::promotions::PromotionRule {
        let body: crate::domain::promotions::PromotionBody =
            serde_json::from_value(serde_json::json!({
                "code": "SAVE10", "type": "buy-x-get-y",
                "buy": {"skus": ["sku-1"], "quantity": 2}, "get": {"skus": ["sku-1"], "quantity": 1},
                "conditions": {"minSubtotal": "20.00", "skus": [], "categories": ["kitchen"]},
                "startsAt": "2026-01-01T00:00:00Z", "endsAt": "2027-01-01T00:00:00Z",
                "usageLimit": 3, "perCustomerLimit": 1, "combinable": true,
            }))
            .expect("shape");
        let mut rule = body
            .check(crate::domain::ids::PromotionId::parse("p1").expect("id"))
            .expect("valid");
        rule.value = Some(crate::domain::money::Decimal::from(10));
        rule.skus = vec![sku_one()];
        rule
    }

    /// What a checked-out order is charged, every part of it.
    fn every_charge() -> crate::domain::pricing::quote::Charged {
        serde_json::from_value(serde_json::json!({
            "subtotal": "43.95", "discount": "4.40", "shipping": "15.00",
            "shippingDiscount": "0.00", "shippingTax": "0.00", "tax": "3.51",
            "pricesIncludeTax": false, "shippingOptionId": "express",
            "shippingAddress": {"name": "Ana", "line1": "1 Main St", "city": "Albany",
                "postalCode": "12207", "country": "US", "region": "US-NY"},
            "promotions": [{"promotionId": "save10", "code": "SAVE10", "discount": "4.40"}],
        }))
        .expect("charges")
    }

    fn sku_one() -> Sku {
        Sku::parse("sku-1").expect("sku")
    }

    #[test]
    fn every_put_spec_names_exactly_what_its_codec_writes() {
        use crate::domain::cart::CartLine;
        use crate::domain::idempotency::IdempotencyRecord;
        use crate::domain::ids::RefundId;
        use crate::domain::money::{Decimal, Money};
        use crate::domain::order::LineItem;
        use crate::domain::order::LineQuantity;
        use crate::domain::product::CatalogEntry;
        use crate::domain::refund::RefundReason;
        use crate::domain::refund::{Refund, RefundKind};
        use crate::domain::stats::ShareVersion;
        use crate::domain::status::OrderStatus;
        use crate::domain::stock_shards::ShardCount;
        use crate::dynamo::keys::StatusShards;

        let sku = Sku::parse("sku-1").expect("sku");
        let order = test_support::order(OrderStatus::Placed);
        let mut hold = test_support::order(OrderStatus::PendingPayment);
        hold.hold_until = Some(test_support::placed());
        let line = LineItem {
            title: Some("Plain tee".into()),
            options: crate::domain::product::OptionValues(vec![("Size".into(), "M".into())]),
            discount: Money::parse_number("1.00"),
            tax: Money::parse_number("3.80"),
            ..LineItem::untitled(sku.clone(), 2, Money::parse_number("19.95").expect("money"))
        };
        let payment = PaymentId::parse("pi_1").expect("id");
        let event = PaymentEventId::parse("evt_1").expect("id");
        let record = IdempotencyRecord {
            fingerprint: "f".into(),
            order_id: o100(),
            response: "{}".into(),
        };
        // Every attribute a put may write: an order's refund of a payment by lines (what a real
        // one writes is a part of this), and a payment's that names no order.
        let refund = Refund {
            note: Some("n".into()),
            event_id: Some(event.clone()),
            cancellation_id: Some(crate::domain::ids::CancellationId::parse("cn_1").expect("id")),
            return_id: Some(crate::domain::ids::ReturnId::parse("rt_1").expect("id")),
            lines: vec![LineQuantity {
                sku: sku.clone(),
                quantity: 1,
            }],
            ..Refund::requested(
                RefundId::parse("rf_1").expect("id"),
                Some(o100()),
                payment.clone(),
                100,
                "usd",
                RefundKind::Payment,
                RefundReason::HoldEnded.to_string(),
            )
        };
        let due = Refund {
            order_id: None,
            note: None,
            cancellation_id: None,
            return_id: None,
            ..refund.clone()
        };
        let product_id = crate::domain::ids::ProductId::parse("tee").expect("id");
        let entry = CatalogEntry {
            product_id: product_id.clone(),
            title: "Mug".into(),
            price: Money::parse_number("9").expect("money"),
            cover: Some(crate::domain::media::Picture {
                media_id: crate::domain::ids::MediaId::parse("md_1").expect("id"),
                alt: String::new(),
                rank: 0,
            }),
        };
        let product = crate::domain::product::Product {
            product_id,
            title: "Plain tee".into(),
            description: "Cotton.".into(),
            status: crate::domain::product::ProductStatus::Draft,
            category_ids: vec![crate::domain::ids::CategoryId::parse("shirts").expect("id")],
            options: vec![crate::domain::product::ProductOption {
                name: "Size".into(),
                values: vec!["M".into()],
            }],
            skus: vec![sku.clone()],
            created_at: test_support::placed(),
        };
        let version = ShareVersion::parse("1").expect("version");
        let spent = Decimal::new(399, 1);
        let cart = CartLine {
            sku: sku.clone(),
            quantity: 1,
        };
        let written: Vec<(&PutSpec, Item)> = vec![
            (
                &order_listing::PUT,
                order_listing::to_item(&order, StatusShards::ONE),
            ),
            (
                &order_listing::PUT_HOLD,
                order_listing::to_item(&hold, StatusShards::ONE),
            ),
            (&order_header::PUT, order_header::to_item(&order)),
            (
                &order_header::PUT_HOLD,
                order_header::hold_item(&hold, Some(&every_charge())),
            ),
            (
                &line_item::PUT,
                line_item::to_item(&order, &line, ShardCount::ONE),
            ),
            (&cart_line::PUT, cart_line::to_item(&c1(), &cart, 1)),
            (&catalog_entry::PUT, catalog_entry::to_item(&entry)),
            (
                &product::PUT,
                product::to_item(
                    &product,
                    1,
                    &crate::domain::media::MediaSummary {
                        count: 1,
                        next_rank: 1,
                        cover: entry.cover.clone(),
                    },
                ),
            ),
            (
                &category::PUT,
                category::to_item(&crate::domain::category::Category {
                    category_id: crate::domain::ids::CategoryId::parse("coffee").expect("id"),
                    name: "Coffee".into(),
                    parent_id: Some(crate::domain::ids::CategoryId::parse("kitchen").expect("id")),
                }),
            ),
            (
                &category_listing::PUT,
                category_listing::to_item(
                    &entry,
                    &crate::domain::ids::CategoryId::parse("coffee").expect("id"),
                    test_support::placed(),
                    category_listing::Order::Price,
                ),
            ),
            (
                &counted_order::PUT,
                counted_order::to_item(
                    &c1(),
                    &counted_order::Share {
                        order_id: o100(),
                        spent: Some(spent),
                        version: version.clone(),
                    },
                ),
            ),
            (
                &idempotency::PUT,
                idempotency::to_item(&c1(), &IdempotencyKey::parse("k").expect("key"), &record, 1),
            ),
            (
                &payment_event::PUT,
                payment_event::to_item(
                    &event,
                    crate::domain::payment::EventOutcome::Placed,
                    Some(&o100()),
                    1,
                ),
            ),
            (
                &payment_order::PUT,
                payment_order::to_item(&payment, &o100()),
            ),
            (&refund::PUT, refund::to_item(&refund)),
            (&refund_due::PUT, refund::to_item(&due)),
            (
                &refund_due::POINTER,
                refund_due::pointer(&refund).expect("an order's"),
            ),
            (
                &product_media::START,
                product_media::to_item(
                    &crate::domain::media::PendingMedia {
                        product_id: crate::domain::ids::ProductId::parse("tee").expect("id"),
                        media_id: crate::domain::ids::MediaId::parse("md_1").expect("id"),
                        upload: crate::domain::media::MediaUpload {
                            media_type: crate::domain::media::MediaType::Png,
                            content_length: 100,
                            alt: "A tee".into(),
                        },
                    },
                    1,
                ),
            ),
            (
                &shipping_option::PUT,
                shipping_option::to_item(&crate::domain::shipping::ShippingOption {
                    option_id: crate::domain::ids::ShippingOptionId::parse("standard").expect("id"),
                    name: "Standard".into(),
                    zones: vec![crate::domain::shipping::Zone {
                        country: crate::domain::address::Country::parse("US").expect("us"),
                        regions: Vec::new(),
                    }],
                    rate: crate::domain::shipping::Rate::Flat(
                        Money::parse_number("5").expect("money"),
                    ),
                    free_above: Money::parse_number("50"),
                }),
            ),
            (
                &tax_rate::PUT,
                tax_rate::to_item(&crate::domain::tax::TaxRate {
                    country: crate::domain::address::Country::parse("DE").expect("de"),
                    rate: crate::domain::money::Decimal::from(19),
                    regions: std::collections::BTreeMap::from([(
                        crate::domain::address::Country::parse("DE")
                            .expect("de")
                            .region("BY")
                            .expect("by"),
                        crate::domain::money::Decimal::from(7),
                    )]),
                    shipping_taxed: true,
                }),
            ),
            (&promotion::PUT, promotion::to_item(&every_field(), 1)),
            (
                &promotion_code::CLAIM,
                promotion_code::to_item(
                    &crate::domain::promotions::PromotionCode::parse("SAVE10").expect("code"),
                    &crate::domain::ids::PromotionId::parse("p1").expect("id"),
                ),
            ),
            (
                &unread_event::PUT,
                unread_event::to_item(b"{}", "unreadable", test_support::placed()),
            ),
            (
                &customer_email::CLAIM,
                customer_email::to_item(
                    &crate::domain::email::CustomerEmail {
                        event_id: crate::domain::event::EventId::parse("order/o100/1").expect("id"),
                        kind: crate::domain::event::EventType::Placed,
                        state: crate::domain::email::EmailState::Sending,
                        claimed_at: test_support::placed(),
                        message_id: None,
                        reason: None,
                    },
                    1,
                ),
            ),
            (
                &fulfilment::PUT,
                fulfilment::to_item(
                    &o100(),
                    &c1(),
                    &crate::domain::fulfilment::Fulfilment::shipped(
                        crate::domain::ids::FulfilmentId::parse("ff_1").expect("id"),
                        vec![LineQuantity {
                            sku: sku.clone(),
                            quantity: 1,
                        }],
                        crate::domain::fulfilment::Tracking {
                            carrier: Some("DHL".into()),
                            tracking_number: Some("1".into()),
                            tracking_url: Some("https://dhl.example/1".into()),
                        },
                        test_support::placed(),
                    ),
                ),
            ),
            (
                &cancellation::PUT,
                cancellation::to_item(
                    &o100(),
                    &c1(),
                    &crate::domain::cancellation::Cancellation {
                        cancellation_id: crate::domain::ids::CancellationId::parse("cn_1")
                            .expect("id"),
                        lines: vec![LineQuantity {
                            sku: sku.clone(),
                            quantity: 1,
                        }],
                        reason: "r".into(),
                        note: Some("n".into()),
                        refund_id: Some(RefundId::parse("rf_cn_1").expect("id")),
                        cancelled_at: test_support::placed(),
                    },
                ),
            ),
            (
                &order_return::PUT,
                order_return::to_item(
                    &o100(),
                    &c1(),
                    &crate::domain::returns::OrderReturn::requested(
                        crate::domain::ids::ReturnId::parse("rt_1").expect("id"),
                        vec![LineQuantity {
                            sku: sku.clone(),
                            quantity: 1,
                        }],
                        "r".into(),
                        test_support::placed(),
                    ),
                ),
            ),
        ];
        assert_eq!(written.len(), PUTS.len(), "a put spec without an item here");
        for (spec, item) in &written {
            let pk = PK.get(item).expect("PK");
            let sk = SK.get(item).expect("SK");
            assert_eq!(Entity::of(&pk, &sk), Some(spec.entity), "{pk} {sk}");
            let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
            let mut declared = spec.attributes.to_vec();
            names.sort_unstable();
            declared.sort_unstable();
            assert_eq!(names, declared, "{:?}", spec.entity);
            assert!(PUTS.contains(spec));
        }
    }

    #[test]
    fn every_entity_is_known_by_the_keys_its_builders_write() {
        let sku = Sku::parse("sku-1").expect("sku");
        let key = IdempotencyKey::parse("k-1").expect("key");
        let written = [
            (customer::key(&c1()), Entity::Customer),
            (
                order_listing::key(&test_support::order(
                    crate::domain::status::OrderStatus::Placed,
                )),
                Entity::OrderListing,
            ),
            (line_item::key(&o100(), &sku), Entity::LineItem),
            (order_header::key(&o100()), Entity::OrderHeader),
            (counted_order::key(&c1(), &o100()), Entity::CountedOrder),
            (open_order_count::key(&c1()), Entity::OpenOrderCount),
            (
                product::key(&crate::domain::ids::ProductId::parse("tee").expect("id")),
                Entity::Product,
            ),
            (variant::key(&sku), Entity::Variant),
            (
                stock_shard::key(
                    &sku,
                    crate::domain::stock_shards::ShardIndex::parse_extra("1").expect("shard"),
                ),
                Entity::StockShard,
            ),
            (
                catalog_entry::key(&crate::domain::ids::ProductId::parse("tee").expect("id")),
                Entity::CatalogEntry,
            ),
            (
                category::key(&crate::domain::ids::CategoryId::parse("coffee").expect("id")),
                Entity::Category,
            ),
            (category_tree::key(), Entity::CategoryTree),
            (
                category_listing::key(
                    &crate::domain::ids::ProductId::parse("tee").expect("id"),
                    &crate::domain::ids::CategoryId::parse("coffee").expect("id"),
                    category_listing::Order::Newest,
                ),
                Entity::CategoryListing,
            ),
            (
                product_media::key(
                    &crate::domain::ids::ProductId::parse("tee").expect("id"),
                    &crate::domain::ids::MediaId::parse("md_1").expect("id"),
                ),
                Entity::ProductMedia,
            ),
            (
                shipping_option::key(
                    &crate::domain::ids::ShippingOptionId::parse("standard").expect("id"),
                ),
                Entity::ShippingOption,
            ),
            (
                tax_rate::key(&crate::domain::address::Country::parse("US").expect("us")),
                Entity::TaxRate,
            ),
            (
                promotion::key(&crate::domain::ids::PromotionId::parse("p1").expect("id")),
                Entity::Promotion,
            ),
            (
                promotion_code::key(
                    &crate::domain::promotions::PromotionCode::parse("SAVE10").expect("code"),
                ),
                Entity::PromotionCode,
            ),
            (
                promotion_uses::customer_key(
                    &crate::domain::ids::PromotionId::parse("p1").expect("id"),
                    &c1(),
                ),
                Entity::PromotionUses,
            ),
            (idempotency::key(&c1(), &key), Entity::IdempotencyRecord),
            (
                migration_state::status_key("0001-line-item-gsi2"),
                Entity::MigrationState,
            ),
            (cart_line::key(&c1(), &sku), Entity::CartLine),
            (cart_version::key(&c1()), Entity::CartVersion),
            (
                payment_event::key(&PaymentEventId::parse("evt_1").expect("id")),
                Entity::PaymentEvent,
            ),
            (
                payment_order::key(&PaymentId::parse("pi_1").expect("id")),
                Entity::PaymentOrder,
            ),
            (
                refund_due::key(&PaymentId::parse("pi_1").expect("id")),
                Entity::RefundDue,
            ),
            (
                crate::dynamo::codec::primary_key(
                    line_item::pk(&o100()),
                    refund::sk(&crate::domain::ids::RefundId::parse("rf_1").expect("id")),
                ),
                Entity::OrderRefund,
            ),
            (unread_event::key(b"{}"), Entity::UnreadEvent),
            (
                customer_email::key(
                    &crate::domain::event::EventId::parse("order/o100/1").expect("id"),
                ),
                Entity::CustomerEmail,
            ),
            (
                fulfilment::key(
                    &o100(),
                    &crate::domain::ids::FulfilmentId::parse("ff_1").expect("id"),
                ),
                Entity::Fulfilment,
            ),
            (
                cancellation::key(
                    &o100(),
                    &crate::domain::ids::CancellationId::parse("cn_1").expect("id"),
                ),
                Entity::Cancellation,
            ),
            (
                order_return::key(
                    &o100(),
                    &crate::domain::ids::ReturnId::parse("rt_1").expect("id"),
                ),
                Entity::OrderReturn,
            ),
        ];
        for (item, entity) in &written {
            let pk = PK.get(item).expect("PK");
            let sk = SK.get(item).expect("SK");
            assert_eq!(Entity::of(&pk, &sk), Some(*entity), "{pk} {sk}");
        }
        let named: Vec<Entity> = written.iter().map(|(_, e)| *e).collect();
        assert_eq!(named, Entity::ALL, "every entity, in the legend's order");
        for (pk, sk) in [
            (warm_up::PK, warm_up::SK),
            ("CUSTOMER#", "PROFILE"),
            ("CUSTOMER#c1", "OTHER"),
            ("CUSTOMER#c1", "ORDER#"),
            ("ORDER#o1", "PROFILE"),
            ("PRODUCT#sku-1", "ITEM#x"),
        ] {
            assert_eq!(Entity::of(pk, sk), None, "{pk} {sk}");
        }
    }
}
