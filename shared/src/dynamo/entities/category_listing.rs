//! A published product's place in a category's listings, `PRODUCT#<productId>` /
//! `LISTED#<categoryId>#<PRICE|NEWEST>` (access pattern 14: one Query of GSI3 per page): its
//! title and lowest price, twice a category, each under its own GSI3 partition and order —
//! `CATEGORY#<categoryId>#PRICE` / `<price in cents, 12 digits>#<productId>` and
//! `CATEGORY#<categoryId>#NEWEST` / `<createdAt>#<productId>`. Written in the transaction that
//! writes the product: a product that moves category, changes price or is unpublished leaves or
//! moves in the listing with it, never after.

use crate::domain::ids::{CategoryId, ProductId};
use crate::domain::media::Picture;
use crate::domain::money::{Decimal, Money};
use crate::domain::product::{CatalogEntry, Product, ProductStatus};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::entities::product;
use crate::dynamo::keys::{self, CATEGORY_PREFIX, Entity, LISTED_PREFIX};
use crate::dynamo::record::record;
use crate::dynamo::update::{DeleteSpec, PutSpec, UpdateSpec};

record! {
    /// What a listing stores of its product.
    pub Record stores CatalogEntry beside (product_id: ProductId) {
        /// Its product's title.
        title: String = TITLE "title", required, store;
        /// Its product's lowest variant price.
        price: Money = PRICE "price", required, store;
        /// Its product's first picture.
        cover: Picture = COVER "cover", optional, store;
    }
}

/// GSI3's partition key: the category and the order.
pub const GSI3PK: Attr<String> = Attr::new(keys::GSI3PK);
/// GSI3's sort key: the place in that order.
pub const GSI3SK: Attr<String> = Attr::new(keys::GSI3SK);

/// What listing a product puts: the entry whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::CategoryListing,
    attributes: &[
        keys::PK,
        keys::SK,
        keys::GSI3PK,
        keys::GSI3SK,
        TITLE.name,
        PRICE.name,
        COVER.name,
    ],
};
/// Its product's first picture changed (shown, or removed): the entry's copy, on the
/// condition that the entry is there.
pub const COVER_CHANGE: UpdateSpec = UpdateSpec {
    set: &[COVER.name],
    remove: &[COVER.name],
    ..UpdateSpec::of(Entity::CategoryListing)
};
/// What a product that leaves a category (or is unpublished) deletes: its entries there.
pub const REMOVE: DeleteSpec = DeleteSpec {
    entity: Entity::CategoryListing,
    checks: &[],
};

/// The two orders a category lists its products in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// By lowest price (read either way).
    Price,
    /// By when the product was created (read newest first).
    Newest,
}

impl Order {
    /// Both.
    pub const BOTH: [Order; 2] = [Order::Price, Order::Newest];

    fn name(self) -> &'static str {
        match self {
            Order::Price => "PRICE",
            Order::Newest => "NEWEST",
        }
    }
}

/// The entry's sort key, in its product's partition.
pub fn sk(category: &CategoryId, order: Order) -> String {
    format!("{LISTED_PREFIX}{category}#{}", order.name())
}

/// The entry's key.
pub fn key(product: &ProductId, category: &CategoryId, order: Order) -> Item {
    primary_key(product::pk(product), sk(category, order))
}

/// The GSI3 partition of `category`'s products in `order`.
pub fn gsi3pk(category: &CategoryId, order: Order) -> String {
    format!("{CATEGORY_PREFIX}{category}#{}", order.name())
}

/// The entry's GSI3 sort key: its price in cents, 12 digits (prices are at most 1,000,000.00),
/// or its creation time; then its product, which orders equal ones.
pub fn gsi3sk(entry: &CatalogEntry, created_at: Timestamp, order: Order) -> String {
    match order {
        Order::Price => {
            let cents = (entry.price.amount() * Decimal::ONE_HUNDRED).trunc();
            format!("{cents:0>12}#{}", entry.product_id)
        }
        Order::Newest => format!("{created_at}#{}", entry.product_id),
    }
}

/// The entry of `entry` in `category`'s listing in `order`.
pub fn to_item(
    entry: &CatalogEntry,
    category: &CategoryId,
    created_at: Timestamp,
    order: Order,
) -> Item {
    let mut item = key(&entry.product_id, category, order);
    Record::write(&mut item, entry);
    GSI3PK.put(&mut item, &gsi3pk(category, order));
    GSI3SK.put(&mut item, &gsi3sk(entry, created_at, order));
    item
}

/// The categories whose listings hold `product`: its own while it is published, none otherwise.
pub fn listed_in(product: &Product) -> &[CategoryId] {
    if product.status == ProductStatus::Published {
        &product.category_ids
    } else {
        &[]
    }
}

/// `product`'s entries (as `entry` lists it): both orders, in each category it is listed in.
pub fn entries(entry: &CatalogEntry, product: &Product) -> Vec<Item> {
    listed_in(product)
        .iter()
        .flat_map(|category| {
            Order::BOTH.map(|order| to_item(entry, category, product.created_at, order))
        })
        .collect()
}

/// The product an entry lists.
pub fn from_item(mut item: Item) -> Result<CatalogEntry, BadItem> {
    let product_id = product::parse_pk(&PK.take(&mut item)?)?;
    Record::read(&mut item, product_id)
}

/// Whether `(gsi3pk, gsi3sk, pk, sk)` is, byte for byte, an entry of `category`'s listing in
/// `order` as the store writes it: what a cursor may carry.
pub fn is_entry_of(
    (gsi3pk, gsi3sk, pk, sk): (&str, &str, &str, &str),
    category: &CategoryId,
    order: Order,
) -> bool {
    let Ok(product) = product::parse_pk(pk) else {
        return false;
    };
    let place = gsi3sk
        .strip_suffix(product.as_str())
        .and_then(|p| p.strip_suffix('#'));
    let well_formed = match (order, place) {
        (Order::Price, Some(cents)) => {
            cents.len() == 12 && cents.bytes().all(|b| b.is_ascii_digit())
        }
        (Order::Newest, Some(at)) => Timestamp::parse(at).is_ok_and(|t| t.to_string() == at),
        _ => false,
    };
    well_formed && gsi3pk == self::gsi3pk(category, order) && sk == self::sk(category, order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, placed, shape};

    #[test]
    fn a_product_is_listed_by_price_and_by_newest() {
        let entry = CatalogEntry {
            product_id: ProductId::parse("tee").expect("id"),
            title: "Plain tee".into(),
            price: Money::parse_number("18.5").expect("money"),
            cover: None,
        };
        let coffee = CategoryId::parse("shirts").expect("id");
        let by_price = to_item(&entry, &coffee, placed(), Order::Price);
        assert_eq!(
            shape(&by_price),
            pairs(&[
                ("GSI3PK", "S CATEGORY#shirts#PRICE"),
                ("GSI3SK", "S 000000001850#tee"),
                ("PK", "S PRODUCT#tee"),
                ("SK", "S LISTED#shirts#PRICE"),
                ("price", "N 18.50"),
                ("title", "S Plain tee"),
            ])
        );
        let newest = to_item(&entry, &coffee, placed(), Order::Newest);
        assert_eq!(
            newest["GSI3SK"].as_s().ok().map(String::as_str),
            Some("2026-10-08T14:30:00Z#tee")
        );
        assert_eq!(from_item(by_price).expect("reads"), entry);
        let position = (
            "CATEGORY#shirts#PRICE",
            "000000001850#tee",
            "PRODUCT#tee",
            "LISTED#shirts#PRICE",
        );
        assert!(is_entry_of(position, &coffee, Order::Price));
        assert!(!is_entry_of(position, &coffee, Order::Newest));
        let forged = (
            "CATEGORY#shirts#PRICE",
            "1850#tee",
            "PRODUCT#tee",
            "LISTED#shirts#PRICE",
        );
        assert!(!is_entry_of(forged, &coffee, Order::Price));
    }
}
