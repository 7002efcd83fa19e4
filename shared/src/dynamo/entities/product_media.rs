//! A product's picture, `PRODUCT#<productId>` / `MEDIA#<mediaId>`: put when staff start an
//! upload (awaited: its type, its most bytes, its text, and `expiresAt`, the table's TTL, when
//! the upload's form has long expired), then shown once the object arrived and passed its check:
//! its `rank` and GSI3 keys `PRODUCT#<productId>` / `MEDIA#<rank, 4 digits>#<mediaId>` set, so
//! that the Query of access pattern 12 reads it with its product, in rank order. An awaited one
//! has no GSI3 keys: a product's answer never shows a picture that has not arrived.

use crate::domain::ids::{MediaId, ProductId};
use crate::domain::media::{MediaType, MediaUpload, PendingMedia, Picture};
use crate::dynamo::codec::{Attr, BadItem, Item, PK, SK, primary_key};
use crate::dynamo::entities::product;
use crate::dynamo::keys::{self, Entity, MEDIA_PREFIX, MalformedKey, malformed};
use crate::dynamo::update::{DeleteSpec, PutSpec, UpdateSpec};

/// The picture's type.
pub const CONTENT_TYPE: Attr<MediaType> = Attr::new("contentType");
/// The most bytes its upload may have.
pub const CONTENT_LENGTH: Attr<u64> = Attr::new("contentLength");
/// Its text alternative.
pub const ALT: Attr<String> = Attr::new("alt");
/// Its place among the product's pictures, once shown.
pub const RANK: Attr<u32> = Attr::new("rank");
/// When an awaited upload's item goes (seconds since the epoch): the table's TTL attribute.
pub const EXPIRES_AT: Attr<u64> = Attr::new("expiresAt");
/// GSI3's partition key, once shown: its product's.
pub const GSI3PK: Attr<String> = Attr::new(keys::GSI3PK);
/// GSI3's sort key, once shown: [`gsi3sk`].
pub const GSI3SK: Attr<String> = Attr::new(keys::GSI3SK);

/// An upload started: the awaited picture, put where none is.
pub const START: PutSpec = PutSpec {
    entity: Entity::ProductMedia,
    attributes: &[
        keys::PK,
        keys::SK,
        CONTENT_TYPE.name,
        CONTENT_LENGTH.name,
        ALT.name,
        EXPIRES_AT.name,
    ],
};
/// The object arrived and passed: the picture shown, on the condition that it was awaited.
pub const SHOW: UpdateSpec = UpdateSpec {
    set: &[RANK.name, GSI3PK.name, GSI3SK.name],
    remove: &[EXPIRES_AT.name],
    ..UpdateSpec::of(Entity::ProductMedia)
};
/// A picture removed by staff, or an arrival refused.
pub const DISCARD: DeleteSpec = DeleteSpec {
    entity: Entity::ProductMedia,
    checks: &[],
};

/// The picture's sort key.
pub fn sk(media: &MediaId) -> String {
    format!("{MEDIA_PREFIX}{media}")
}

/// The picture's key.
pub fn key(product: &ProductId, media: &MediaId) -> Item {
    primary_key(product::pk(product), sk(media))
}

/// Its GSI3 sort key once shown: its rank, 4 digits (at most [`crate::domain::media::MAX_MEDIA`]
/// show at once, and ranks are never reused), then its ID.
pub fn gsi3sk(picture: &Picture) -> String {
    format!("{MEDIA_PREFIX}{:04}#{}", picture.rank, picture.media_id)
}

/// Whether a GSI3 sort key is a picture's.
pub fn is_gsi3sk(sk: &str) -> bool {
    sk.starts_with(MEDIA_PREFIX)
}

/// The picture a sort key names.
pub fn parse_sk(sk: &str) -> Result<MediaId, MalformedKey> {
    sk.strip_prefix(MEDIA_PREFIX)
        .and_then(|raw| MediaId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// The awaited picture's item, its item gone at `expires_at`.
pub fn to_item(pending: &PendingMedia, expires_at: u64) -> Item {
    let mut item = key(&pending.product_id, &pending.media_id);
    CONTENT_TYPE.put(&mut item, &pending.upload.media_type);
    CONTENT_LENGTH.put(&mut item, &pending.upload.content_length);
    ALT.put(&mut item, &pending.upload.alt);
    EXPIRES_AT.put(&mut item, &expires_at);
    item
}

/// A picture's item as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredMedia {
    /// An upload awaited, until `expires_at`.
    Awaited(PendingMedia, u64),
    /// A picture the product shows.
    Shown(Picture),
}

/// The picture an item holds.
pub fn from_item(mut item: Item) -> Result<StoredMedia, BadItem> {
    let product_id = product::parse_pk(&PK.take(&mut item)?)?;
    let media_id = parse_sk(&SK.take(&mut item)?)?;
    let alt = ALT.take_optional(&mut item)?.unwrap_or_default();
    if let Some(rank) = RANK.take_optional(&mut item)? {
        return Ok(StoredMedia::Shown(Picture {
            media_id,
            alt,
            rank,
        }));
    }
    let upload = MediaUpload {
        media_type: CONTENT_TYPE.take(&mut item)?,
        content_length: CONTENT_LENGTH.take(&mut item)?,
        alt,
    };
    let expires_at = EXPIRES_AT.take(&mut item)?;
    Ok(StoredMedia::Awaited(
        PendingMedia {
            product_id,
            media_id,
            upload,
        },
        expires_at,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn a_picture_is_awaited_then_shown_in_its_products_partition() {
        let pending = PendingMedia {
            product_id: ProductId::parse("tee").expect("id"),
            media_id: MediaId::parse("md_01").expect("id"),
            upload: MediaUpload {
                media_type: MediaType::Png,
                content_length: 2_048,
                alt: "A folded tee".into(),
            },
        };
        let item = to_item(&pending, 1_800_000_000);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S PRODUCT#tee"),
                ("SK", "S MEDIA#md_01"),
                ("alt", "S A folded tee"),
                ("contentLength", "N 2048"),
                ("contentType", "S image/png"),
                ("expiresAt", "N 1800000000"),
            ])
        );
        assert_eq!(
            Entity::of("PRODUCT#tee", "MEDIA#md_01"),
            Some(Entity::ProductMedia)
        );
        assert_eq!(
            from_item(item.clone()).expect("reads"),
            StoredMedia::Awaited(pending, 1_800_000_000)
        );
        let shown = Picture {
            media_id: MediaId::parse("md_01").expect("id"),
            alt: "A folded tee".into(),
            rank: 3,
        };
        assert_eq!(gsi3sk(&shown), "MEDIA#0003#md_01");
        let mut item = item;
        RANK.put(&mut item, &3);
        assert_eq!(from_item(item).expect("reads"), StoredMedia::Shown(shown));
    }
}
