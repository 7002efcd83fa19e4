//! The catalog's events, from its items' stream records (`dynamo::events` sends each record
//! here by its entity): a product published or unpublished; a variant's price changed, its
//! stock reaching 0 or rising from it, and falling below the store's low-stock threshold. None
//! has a counter: each is named by its record's sequence number, which a redelivery repeats,
//! and a record gives at most one event of each subject (a write changes a variant's price or
//! its stock, never both).

use crate::domain::event::{
    EventType, ProductChange, StockLevel, StoreEvent, Subject, VariantChange,
};
use crate::domain::product::ProductStatus;
use crate::domain::stock_shards::ShardCount;
use crate::domain::time::Timestamp;
use crate::domain::variant::Variant;
use crate::dynamo::codec::{BadItem, Item};
use crate::dynamo::entities::{product, variant};

/// A record's images: none before an INSERT.
type Images = (Option<Item>, Item);

/// A product's event: published (from any other status, or new and published), or unpublished
/// (from PUBLISHED to a draft or archived). A write that keeps the status gives none: a title
/// or a category changed is not an event of its own (the product's answer says it). Only a
/// write of the store's API moves the product's version on: an item written at version 0 (the
/// sample data, `0002-products`' conversion of what was on sale before) is history, and tells
/// nothing.
pub(crate) fn product_events(
    (old, new): Images,
    at: Timestamp,
    at_record: String,
) -> Result<Vec<StoreEvent>, BadItem> {
    let (after, version) = product::from_item(new)?;
    let old = old.map(product::from_item).transpose()?;
    if version <= old.as_ref().map_or(0, |(_, version)| *version) {
        return Ok(Vec::new());
    }
    let before = old.map(|(product, _)| product.status);
    let published = |status: Option<ProductStatus>| status == Some(ProductStatus::Published);
    let kind = match (published(before), published(Some(after.status))) {
        (false, true) => EventType::ProductPublished,
        (true, false) => EventType::ProductUnpublished,
        _ => return Ok(Vec::new()),
    };
    let subject = Subject::Catalog {
        product: after.product_id.clone(),
        at: at_record,
    };
    Ok(vec![StoreEvent {
        catalog: Some(ProductChange {
            product_id: after.product_id,
            title: after.title,
            status: after.status,
            previous_status: before,
        }),
        ..StoreEvent::new(kind, &subject, 0, at)
    }])
}

/// A variant's events: its price changed; its stock reaching 0 (sold out) or rising from it
/// (back in stock); and its stock crossing below `threshold`, once per crossing (a change that
/// leaves it below gives none; one that takes it back up and down again gives another). A new
/// variant gives none: its product's `product.published` tells of it. A variant whose stock is
/// split over shards gives only the first: its item holds one shard's part of the stock.
pub(crate) fn variant_events(
    (old, new): Images,
    at: Timestamp,
    at_record: String,
    threshold: u64,
) -> Result<Vec<StoreEvent>, BadItem> {
    let Some(old) = old else {
        return Ok(Vec::new());
    };
    let before = variant::from_item(old)?;
    let after = variant::from_item(new)?;
    let mut events = Vec::new();
    // Split over stock shards, the item holds one shard's part: not the SKU's stock.
    let whole = before.stock_shards == ShardCount::ONE && after.stock_shards == ShardCount::ONE;
    let kind = if before.price != after.price {
        Some(EventType::VariantPriceChanged)
    } else if !whole {
        None
    } else if before.stock > 0 && after.stock == 0 {
        Some(EventType::VariantSoldOut)
    } else if before.stock == 0 && after.stock > 0 {
        Some(EventType::VariantBackInStock)
    } else {
        None
    };
    if let Some(kind) = kind {
        let subject = Subject::Variant {
            sku: after.sku.clone(),
            at: at_record.clone(),
        };
        events.push(StoreEvent {
            variant: Some(change(&before, &after, kind)),
            ..StoreEvent::new(kind, &subject, 0, at)
        });
    }
    if whole && before.stock >= threshold && after.stock < threshold {
        let subject = Subject::Product {
            sku: after.sku.clone(),
            at: at_record,
        };
        events.push(StoreEvent {
            product: Some(StockLevel {
                sku: after.sku,
                stock: after.stock,
                previous_stock: before.stock,
                threshold,
            }),
            ..StoreEvent::new(EventType::StockLow, &subject, 0, at)
        });
    }
    Ok(events)
}

/// What a variant event says of the variant.
fn change(before: &Variant, after: &Variant, kind: EventType) -> VariantChange {
    VariantChange {
        sku: after.sku.clone(),
        product_id: after.product_id.clone(),
        price: after.price,
        previous_price: (kind == EventType::VariantPriceChanged).then_some(before.price),
        in_stock: after.stock > 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::variant::test_support::mug;
    use crate::dynamo::entities::test_support::sku1;

    fn at() -> Timestamp {
        Timestamp::parse("2026-12-06T10:00:00Z").expect("time")
    }

    fn kinds(events: &[StoreEvent]) -> Vec<&str> {
        events.iter().map(|e| e.kind.as_str()).collect()
    }

    fn item(change: impl Fn(&mut Variant)) -> Item {
        let mut variant = mug(sku1());
        change(&mut variant);
        variant::to_item(&variant)
    }

    #[test]
    fn a_variant_tells_its_price_and_its_stock_crossing_zero_once() {
        let events = |old: Item, new: Item| {
            variant_events((Some(old), new), at(), "77".into(), 5).expect("readable")
        };
        let repriced = events(
            item(|_| {}),
            item(|v| v.price = crate::domain::money::Money::parse_number("21").expect("money")),
        );
        assert_eq!(kinds(&repriced), ["variant.price-changed"]);
        let told = repriced[0].variant.as_ref().expect("the variant");
        assert_eq!(
            (
                told.price.to_string(),
                told.previous_price.map(|p| p.to_string())
            ),
            ("21.00".into(), Some("19.95".into()))
        );
        assert_eq!(repriced[0].event_id.as_str(), "variant/sku-1/77");
        assert_eq!(repriced[0].sequence, None);
        // 7 → 0: sold out, and below the threshold; 0 → 3 back in stock; 3 → 2 nothing.
        let sold_out = events(item(|_| {}), item(|v| v.stock = 0));
        assert_eq!(kinds(&sold_out), ["variant.sold-out", "product.stock-low"]);
        assert_ne!(sold_out[0].event_id, sold_out[1].event_id);
        let back = events(item(|v| v.stock = 0), item(|v| v.stock = 3));
        assert_eq!(kinds(&back), ["variant.back-in-stock"]);
        assert!(back[0].variant.as_ref().is_some_and(|v| v.in_stock));
        assert!(kinds(&events(item(|v| v.stock = 3), item(|v| v.stock = 2))).is_empty());
        assert!(
            variant_events((None, item(|_| {})), at(), "1".into(), 5)
                .expect("readable")
                .is_empty()
        );
    }

    #[test]
    fn a_product_tells_being_published_and_unpublished_not_other_changes() {
        // The store's writes move the version on: 1 for the first, 2 for the next.
        let tee = |status: ProductStatus, title: &str, version: u64| {
            product::to_item(
                &crate::domain::product::Product {
                    product_id: crate::domain::ids::ProductId::parse("tee").expect("id"),
                    title: title.into(),
                    description: String::new(),
                    status,
                    category_ids: Vec::new(),
                    options: Vec::new(),
                    skus: vec![sku1()],
                    created_at: at(),
                },
                version,
                &Default::default(),
            )
        };
        let events = |old: Option<Item>, new: Item| {
            product_events((old, new), at(), "9".into()).expect("readable")
        };
        use ProductStatus::{Archived, Draft, Published};
        assert!(events(None, tee(Draft, "Tee", 1)).is_empty(), "a new draft");
        let mut history = tee(Published, "Tee", 1);
        product::VERSION.put(&mut history, &0);
        assert!(
            events(None, history).is_empty(),
            "written at version 0: history"
        );
        let new_published = events(None, tee(Published, "Tee", 1));
        assert_eq!(kinds(&new_published), ["product.published"]);
        assert_eq!(new_published[0].event_id.as_str(), "product/tee/9");
        let published = events(Some(tee(Draft, "Tee", 1)), tee(Published, "Tee", 2));
        let change = published[0].catalog.as_ref().expect("the product");
        assert_eq!(
            (change.status, change.previous_status),
            (Published, Some(Draft))
        );
        assert_eq!(
            kinds(&events(
                Some(tee(Published, "Tee", 1)),
                tee(Archived, "Tee", 2)
            )),
            ["product.unpublished"]
        );
        assert!(
            events(
                Some(tee(Published, "Tee", 1)),
                tee(Published, "Tee, blue", 2)
            )
            .is_empty()
        );
        assert!(events(Some(tee(Draft, "Tee", 1)), tee(Archived, "Tee", 2)).is_empty());
        // A record whose version did not move (a write of no API's) tells nothing.
        assert!(events(Some(tee(Draft, "Tee", 2)), tee(Published, "Tee", 2)).is_empty());
    }
}
