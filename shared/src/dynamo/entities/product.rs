//! A product, `PRODUCT#<productId>` / `DETAILS`: its title, description, status, categories,
//! options and the SKUs of its variants (each variant is an item of its own,
//! `entities::variant`). It carries GSI3 keys `PRODUCT#<productId>` / `DETAILS`, so that one
//! Query of GSI3 reads it with its variants (access pattern 12). `version` counts its
//! replacements, so that one never overwrites a concurrent one.

use crate::domain::ids::{CategoryId, ProductId, Sku};
use crate::domain::media::{MediaSummary, Picture};
use crate::domain::product::{Product, ProductOption, ProductStatus};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::keys::{self, Entity, MalformedKey, PRODUCT_PREFIX, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::{PutSpec, UpdateSpec};

/// The product's sort key (and its GSI3 sort key).
pub const SORT_KEY: &str = keys::DETAILS_SK;

record! {
    /// What the product's item stores of it.
    pub Record stores Product beside (product_id: ProductId) {
        /// What the catalog calls it.
        title: String = TITLE "title", required, store;
        /// What a storefront says of it.
        description: String = DESCRIPTION "description", default, store;
        /// Who sees it.
        status: ProductStatus = STATUS "status", required, store;
        /// The categories that list it.
        category_ids: Vec<CategoryId> = CATEGORY_IDS "categoryIds", empty, store;
        /// Its options, in order.
        options: Vec<ProductOption> = OPTIONS "options", empty, store;
        /// Its variants' SKUs, in order.
        skus: Vec<Sku> = SKUS "skus", required, store;
        /// When it was first written.
        created_at: Timestamp = CREATED_AT "createdAt", required, store;
    }
}

/// How many times it was written (a picture shown or removed moves it on too).
pub const VERSION: Attr<u64> = Attr::new("version");
/// How many pictures it shows.
pub const MEDIA_COUNT: Attr<u32> = Attr::new("mediaCount");
/// The rank its next picture gets.
pub const NEXT_RANK: Attr<u32> = Attr::new("nextRank");
/// Its first picture, which its listings show too.
pub const COVER: Attr<Picture> = Attr::new("cover");
/// GSI3's partition key: its own.
pub const GSI3PK: Attr<String> = Attr::new(keys::GSI3PK);
/// GSI3's sort key: [`SORT_KEY`].
pub const GSI3SK: Attr<String> = Attr::new(keys::GSI3SK);

/// What writing a product puts: the item whole, on the condition that its version is the one
/// read (or that there is none).
pub const PUT: PutSpec = PutSpec {
    entity: Entity::Product,
    attributes: &[
        keys::PK,
        keys::SK,
        keys::GSI3PK,
        keys::GSI3SK,
        TITLE.name,
        DESCRIPTION.name,
        STATUS.name,
        CATEGORY_IDS.name,
        OPTIONS.name,
        SKUS.name,
        CREATED_AT.name,
        VERSION.name,
        MEDIA_COUNT.name,
        NEXT_RANK.name,
        COVER.name,
    ],
};
/// A picture shown or removed: its pictures' summary, and its version moved on, on the
/// condition that the version is the one read (so that a write of the product, which carries
/// the summary to its listings, never misses it).
pub const MEDIA: UpdateSpec = UpdateSpec {
    set: &[VERSION.name, MEDIA_COUNT.name, NEXT_RANK.name, COVER.name],
    remove: &[COVER.name],
    ..UpdateSpec::of(Entity::Product)
};

/// The product's partition key.
pub fn pk(product: &ProductId) -> String {
    format!("{PRODUCT_PREFIX}{product}")
}

/// The product's GSI3 partition: its own key's text, where its variants join it.
pub fn gsi3pk(product: &ProductId) -> String {
    pk(product)
}

/// The product a partition key names.
pub fn parse_pk(pk: &str) -> Result<ProductId, MalformedKey> {
    pk.strip_prefix(PRODUCT_PREFIX)
        .and_then(|raw| ProductId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::PK, pk))
}

/// The product's key.
pub fn key(product: &ProductId) -> Item {
    primary_key(pk(product), SORT_KEY)
}

/// The product at `version`, with its pictures' summary and its GSI3 keys.
pub fn to_item(product: &Product, version: u64, media: &MediaSummary) -> Item {
    let mut item = key(&product.product_id);
    Record::write(&mut item, product);
    VERSION.put(&mut item, &version);
    if media.count > 0 || media.next_rank > 0 {
        MEDIA_COUNT.put(&mut item, &media.count);
        NEXT_RANK.put(&mut item, &media.next_rank);
    }
    COVER.put_optional(&mut item, media.cover.as_ref());
    GSI3PK.put(&mut item, &gsi3pk(&product.product_id));
    GSI3SK.put(&mut item, &SORT_KEY.to_owned());
    item
}

/// What the product's item keeps of its pictures (none: no attributes).
pub fn media_of(item: &Item) -> MediaSummary {
    MediaSummary {
        count: MEDIA_COUNT.get(item).unwrap_or(0),
        next_rank: NEXT_RANK.get(item).unwrap_or(0),
        cover: COVER.get(item),
    }
}

/// The product and its version.
pub fn from_item(mut item: Item) -> Result<(Product, u64), BadItem> {
    let product_id = parse_pk(&PK.take(&mut item)?)?;
    let product = Record::read(&mut item, product_id)?;
    Ok((product, VERSION.take_optional(&mut item)?.unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{placed, sku1};

    #[test]
    fn product_keys() {
        let tee = ProductId::parse("tee").expect("id");
        assert_eq!(pk(&tee), "PRODUCT#tee");
        assert_eq!(SORT_KEY, "DETAILS");
        assert_eq!(gsi3pk(&tee), "PRODUCT#tee");
        assert_eq!(parse_pk("PRODUCT#tee"), Ok(tee));
    }

    #[test]
    fn a_product_reads_back_with_its_version() {
        let tee = Product {
            product_id: ProductId::parse("tee").expect("id"),
            title: "Plain tee".into(),
            description: "Cotton.\nMade to last.".into(),
            status: ProductStatus::Published,
            category_ids: vec![CategoryId::parse("shirts").expect("id")],
            options: vec![ProductOption {
                name: "Size".into(),
                values: vec!["S".into(), "M".into()],
            }],
            skus: vec![sku1()],
            created_at: placed(),
        };
        let item = to_item(&tee, 2, &MediaSummary::default());
        assert_eq!(
            item["PK"].as_s().ok().map(String::as_str),
            Some("PRODUCT#tee")
        );
        assert_eq!(
            item["GSI3SK"].as_s().ok().map(String::as_str),
            Some("DETAILS")
        );
        assert_eq!(from_item(item).expect("reads"), (tee, 2));
    }
}
