//! Reading a product with its variants and pictures in ONE Query of GSI3 (access pattern 12): its item and
//! its variants' and its shown pictures' items share the GSI3 partition `PRODUCT#<productId>`.

use serde::Serialize;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::ProductId;
use crate::domain::media::{MediaSeen, Picture};
use crate::domain::product::{Product, ProductStatus};
use crate::domain::variant::{Variant, VariantSeen};
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::text;
use crate::dynamo::entities::product_media::{self, StoredMedia};
use crate::dynamo::entities::{product, variant};
use crate::dynamo::keys::GSI3SK;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

/// A product as `GET /products/{productId}` answers it: the product, and its variants in the
/// order staff gave them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductSeen {
    /// The product.
    #[serde(flatten)]
    pub product: Product,
    /// Its variants.
    pub variants: Vec<VariantSeen>,
    /// Its pictures, lowest rank first, each with a URL a browser can load.
    pub media: Vec<MediaSeen>,
}

impl ProductSeen {
    /// `product` with those of `variants` that are its own, in its order, as `caller` sees
    /// them, and its pictures.
    pub fn of(
        product: Product,
        variants: &[Variant],
        media: Vec<MediaSeen>,
        caller: &Caller,
    ) -> Self {
        let variants = product
            .skus
            .iter()
            .filter_map(|sku| variants.iter().find(|v| v.sku == *sku))
            .filter_map(|v| v.seen_by(caller))
            .collect();
        ProductSeen {
            product,
            variants,
            media,
        }
    }
}

/// What a product's GSI3 partition holds: the product, its variants, its pictures.
type Assembled = (Product, Vec<Variant>, Vec<Picture>);

/// The product, its variants and the pictures it shows (in rank order, as GSI3 sorts them) a
/// GSI3 partition's items hold.
fn assemble(items: Vec<Item>) -> Result<Option<Assembled>, AppError> {
    let (mut found, mut variants, mut pictures) = (None, Vec::new(), Vec::new());
    for item in items {
        match text(&item, GSI3SK) {
            Some(product::SORT_KEY) => found = Some(product::from_item(item)?.0),
            Some(sk) if variant::parse_gsi3sk(sk).is_some() => {
                variants.push(variant::from_item(item)?);
            }
            Some(sk) if product_media::is_gsi3sk(sk) => {
                if let StoredMedia::Shown(picture) = product_media::from_item(item)? {
                    pictures.push(picture);
                }
            }
            _ => {
                return Err(AppError::internal(
                    "an item of a product's GSI3 partition is neither it, a variant nor a picture",
                ));
            }
        }
    }
    Ok(found.map(|product| (product, variants, pictures)))
}

impl Store {
    /// Product `id` with its variants, by ONE Query of GSI3 (eventually consistent, as every
    /// index read; a variant with stock shards adds one BatchGetItem of them), as `caller` may
    /// see it: `None` when there is no such product, or when it
    /// is not published and the caller is not staff (a draft is not told to exist).
    pub async fn get_product(
        &self,
        id: &ProductId,
        caller: &Caller,
    ) -> Result<Option<ProductSeen>, AppError> {
        // At most 1 + MAX_VARIANTS small items: far inside one page of 1 MB.
        let out = KeyQuery::on(Index::Gsi3, product::gsi3pk(id))
            .request(self)
            .send()
            .await?;
        let Some((product, mut variants, pictures)) = assemble(out.items.unwrap_or_default())?
        else {
            return Ok(None);
        };
        if product.status != ProductStatus::Published && !caller.is_staff() {
            return Ok(None);
        }
        // A variant whose stock is split over shards: their levels, in one BatchGetItem.
        self.read_stock_shards(&mut variants, false).await?;
        let media = self.pictures_seen(&product.product_id, &pictures).await?;
        Ok(Some(ProductSeen::of(product, &variants, media, caller)))
    }
}
