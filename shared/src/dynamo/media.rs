//! A product's pictures: an upload started (the awaited item, and a form signed for the bucket),
//! an arrival checked and shown, a picture removed; and the URLs answers carry. Showing or
//! removing a picture moves its product's version on in the same transaction that changes the
//! picture, its product's summary and, when its first picture changes, the copies its catalog
//! entry and category listings keep: so a concurrent write of the product (which carries the
//! summary to its listings) reads again, and no listing keeps a picture the product lost.

use crate::AppError;
use crate::domain::ids::{MediaId, ProductId};
use crate::domain::media::{
    self, Arrived, MAX_MEDIA, MAX_RANK, MediaSeen, MediaSummary, MediaUpload, PendingMedia,
    Picture, Rejected, UPLOAD_SECONDS,
};
use crate::domain::product::{CatalogEntry, ListedProduct, Product, ProductStatus};
use crate::dynamo::entities::product_media::{self, StoredMedia};
use crate::dynamo::entities::{catalog_entry, category_listing, product};
use crate::dynamo::keys::MEDIA_PREFIX;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::{Store, epoch_seconds};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::dynamo::update::Change;
use crate::media::{MediaBucket, UploadForm};
use crate::retry::{Backoff, retry};

/// An awaited picture's item outlives its form by this much, so that an upload posted at the
/// form's last second still finds it.
const AWAITED_GRACE_SECONDS: u64 = 3_600;

/// What `POST /products/{productId}/media` answers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadStarted {
    /// The picture's ID.
    pub media_id: MediaId,
    /// The form that uploads it.
    pub upload: UploadForm,
}

/// What became of an object that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Checked and shown by its product.
    Shown,
    /// Shown already (a redelivered notification).
    AlreadyShown,
    /// Gone from the bucket before it was read (removed since).
    Gone,
    /// Refused: the object and the awaited item deleted.
    Refused(Rejected),
}

/// Why a picture's transaction did not commit on this attempt.
enum Retry {
    /// The product or the picture changed between the read and the write.
    Changed,
    Failed(AppError),
}

impl From<AppError> for Retry {
    fn from(err: AppError) -> Self {
        Retry::Failed(err)
    }
}

/// What each action of a picture's transaction is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Picture,
    Product,
    Copy,
}

impl Store {
    /// The media bucket; a function deployed without one (`MEDIA_BUCKET`) cannot serve
    /// pictures.
    pub fn media_bucket(&self) -> Result<&MediaBucket, AppError> {
        self.media
            .as_ref()
            .ok_or_else(|| AppError::internal("this function has no media bucket (MEDIA_BUCKET)"))
    }

    /// Starts an upload of a picture of `product`: its awaited item put, then a form signed
    /// for the key the store chose. A product that does not exist is a 404; one that shows
    /// [`MAX_MEDIA`] pictures already, a 409.
    pub async fn start_media_upload(
        &self,
        product: &ProductId,
        upload: MediaUpload,
    ) -> Result<UploadStarted, AppError> {
        let Some((.., summary)) = self.read_product(product, true).await? else {
            return Err(AppError::not_found(format!("no product {product}")));
        };
        if summary.count >= MAX_MEDIA {
            return Err(AppError::CapReached(format!(
                "product {product} shows {MAX_MEDIA} pictures, the most it may: remove one first"
            )));
        }
        let pending = PendingMedia {
            product_id: product.clone(),
            media_id: MediaId::generate()?,
            upload,
        };
        let expires_at = epoch_seconds() + UPLOAD_SECONDS + AWAITED_GRACE_SECONDS;
        product_media::START
            .put(&self.table, product_media::to_item(&pending, expires_at))
            .only_new()
            .request(&self.client)?
            .send()
            .await?;
        let key = media::object_key(product, &pending.media_id);
        let form = self.media_bucket()?.upload_form(
            &key,
            pending.upload.media_type,
            pending.upload.content_length,
        )?;
        Ok(UploadStarted {
            media_id: pending.media_id,
            upload: form,
        })
    }

    /// An object arrived at `key`: checked against its upload (size, type, first bytes) and
    /// shown by its product, or deleted with its awaited item. A redelivered notification
    /// finds it shown, or gone.
    pub async fn media_arrived(&self, key: &str) -> Result<Arrival, AppError> {
        let bucket = self.media_bucket()?;
        let Some((product, media_id)) = media::parse_object_key(key) else {
            bucket.delete(key).await?;
            return Ok(Arrival::Refused(Rejected::NotExpected));
        };
        let Some(arrived) = bucket.arrived(key).await? else {
            return Ok(Arrival::Gone);
        };
        let shown = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Retry::Changed),
            |_| self.try_show(&product, &media_id, &arrived),
        )
        .await;
        match shown {
            Ok(Ok(arrival)) => Ok(arrival),
            Ok(Err(rejected)) => {
                bucket.delete(key).await?;
                product_media::DISCARD
                    .delete(&self.table, product_media::key(&product, &media_id))
                    .request(&self.client)?
                    .send()
                    .await?;
                Ok(Arrival::Refused(rejected))
            }
            Err(Retry::Changed) => Err(AppError::concurrent_change(
                "the product kept changing while its picture was shown; it is tried again",
            )),
            Err(Retry::Failed(err)) => Err(err),
        }
    }

    /// One attempt at showing an arrived picture: what it is awaited as and its product read
    /// strongly consistent, then one transaction conditioned on both.
    async fn try_show(
        &self,
        product_id: &ProductId,
        media_id: &MediaId,
        arrived: &Arrived,
    ) -> Result<Result<Arrival, Rejected>, Retry> {
        let pending = match self.read_media(product_id, media_id).await? {
            Some(StoredMedia::Shown(_)) => return Ok(Ok(Arrival::AlreadyShown)),
            Some(StoredMedia::Awaited(pending, expires_at)) if expires_at > epoch_seconds() => {
                pending
            }
            _ => return Ok(Err(Rejected::NotExpected)),
        };
        if let Err(rejected) = pending.check(arrived) {
            return Ok(Err(rejected));
        }
        let Some((product, version, summary)) = self.read_product(product_id, true).await? else {
            return Ok(Err(Rejected::NotExpected));
        };
        if summary.count >= MAX_MEDIA || summary.next_rank > MAX_RANK {
            return Ok(Err(Rejected::TooMany));
        }
        let picture = Picture {
            media_id: media_id.clone(),
            alt: pending.upload.alt,
            rank: summary.next_rank,
        };
        let after = MediaSummary {
            count: summary.count + 1,
            next_rank: summary.next_rank + 1,
            cover: summary.cover.clone().or_else(|| Some(picture.clone())),
        };
        let mut transaction = Transaction::with_capacity(2 + 2 * product.category_ids.len() + 1);
        let show = product_media::SHOW
            .on(&self.table, product_media::key(product_id, media_id))
            .set(&product_media::RANK, &picture.rank)
            .set(&product_media::GSI3PK, &product::gsi3pk(product_id))
            .set(&product_media::GSI3SK, &product_media::gsi3sk(&picture))
            .remove(&product_media::EXPIRES_AT)
            .condition("attribute_exists(#expiresAt)");
        transaction.update(Action::Picture, show.build()?)?;
        self.summary_changed(&mut transaction, &product, version, &summary, &after)?;
        self.commit(transaction, Arrival::Shown).await.map(Ok)
    }

    /// Removes picture `media_id` of `product`: its object deleted first (so that a failure
    /// after it leaves a request to retry, not an object nobody names), then its item, with
    /// its product's summary and the listings' copies when it was the first. A picture that
    /// is not there is a 404.
    pub async fn remove_media(
        &self,
        product_id: &ProductId,
        media_id: &MediaId,
    ) -> Result<(), AppError> {
        let Some(stored) = self.read_media(product_id, media_id).await? else {
            return Err(AppError::not_found(format!(
                "product {product_id} has no picture {media_id}"
            )));
        };
        self.media_bucket()?
            .delete(&media::object_key(product_id, media_id))
            .await?;
        let removed = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Retry::Changed),
            |_| self.try_remove(product_id, media_id, &stored),
        )
        .await;
        match removed {
            Ok(()) => Ok(()),
            Err(Retry::Changed) => Err(AppError::concurrent_change(
                "the product is being changed by concurrent requests; retry",
            )),
            Err(Retry::Failed(err)) => Err(err),
        }
    }

    async fn try_remove(
        &self,
        product_id: &ProductId,
        media_id: &MediaId,
        stored: &StoredMedia,
    ) -> Result<(), Retry> {
        let discard = product_media::DISCARD
            .delete(&self.table, product_media::key(product_id, media_id))
            .condition("attribute_exists(PK)");
        let StoredMedia::Shown(_) = stored else {
            // An upload that never arrived: only its item.
            let discard = product_media::DISCARD
                .delete(&self.table, product_media::key(product_id, media_id));
            discard
                .request(&self.client)?
                .send()
                .await
                .map_err(AppError::from)?;
            return Ok(());
        };
        let Some((product, version, summary)) = self.read_product(product_id, true).await? else {
            return Err(Retry::Failed(AppError::not_found(format!(
                "no product {product_id}"
            ))));
        };
        let others: Vec<Picture> = self
            .shown_media(product_id)
            .await?
            .into_iter()
            .filter(|p| p.media_id != *media_id)
            .collect();
        let after = MediaSummary {
            count: u32::try_from(others.len()).unwrap_or(u32::MAX),
            next_rank: summary.next_rank,
            cover: others.first().cloned(),
        };
        let mut transaction = Transaction::with_capacity(2 + 2 * product.category_ids.len() + 1);
        transaction.delete(Action::Picture, discard.build()?)?;
        self.summary_changed(&mut transaction, &product, version, &summary, &after)?;
        self.commit(transaction, ()).await
    }

    /// The product's summary moved from `before` to `after` at `version`, and the copies of its
    /// first picture (its catalog entry, its listings: only while it is published) when that
    /// changes.
    fn summary_changed(
        &self,
        transaction: &mut Transaction<Action>,
        product: &Product,
        version: u64,
        before: &MediaSummary,
        after: &MediaSummary,
    ) -> Result<(), AppError> {
        let id = &product.product_id;
        let update = product::MEDIA
            .on(&self.table, product::key(id))
            .set(&product::VERSION, &(version + 1))
            .set(&product::MEDIA_COUNT, &after.count)
            .set(&product::NEXT_RANK, &after.next_rank);
        let update = match &after.cover {
            Some(cover) => update.set(&product::COVER, cover),
            None => update.remove(&product::COVER),
        };
        let update =
            update
                .condition("#version = :read")
                .value(":read", &product::VERSION, &version);
        transaction.update(Action::Product, update.build()?)?;
        if before.cover == after.cover || product.status != ProductStatus::Published {
            return Ok(());
        }
        let cover = after.cover.as_ref();
        let copy = catalog_entry::COVER_CHANGE.on(&self.table, catalog_entry::key(id));
        transaction.update(Action::Copy, with_cover(copy, cover).build()?)?;
        for category in category_listing::listed_in(product) {
            for order in category_listing::Order::BOTH {
                let key = category_listing::key(id, category, order);
                let copy = category_listing::COVER_CHANGE.on(&self.table, key);
                transaction.update(Action::Copy, with_cover(copy, cover).build()?)?;
            }
        }
        Ok(())
    }

    async fn commit<T>(&self, transaction: Transaction<Action>, done: T) -> Result<T, Retry> {
        match self.send(transaction).await? {
            Outcome::Committed => Ok(done),
            Outcome::Cancelled(c) if c.conflicted() => Err(Retry::Changed),
            Outcome::Cancelled(c) if c.failed_conditions().next().is_some() => Err(Retry::Changed),
            Outcome::Cancelled(c) => Err(Retry::Failed(c.unexplained("picture"))),
        }
    }

    /// The picture's item, strongly consistent.
    async fn read_media(
        &self,
        product: &ProductId,
        media: &MediaId,
    ) -> Result<Option<StoredMedia>, AppError> {
        let item = self
            .get_consistent(product_media::key(product, media))
            .await?;
        Ok(item.map(product_media::from_item).transpose()?)
    }

    /// The pictures `product` shows, lowest rank first (one strongly consistent Query of its
    /// partition's `MEDIA#` items; awaited ones left out).
    pub(crate) async fn shown_media(&self, product: &ProductId) -> Result<Vec<Picture>, AppError> {
        let items = KeyQuery::on(Index::Table, product::pk(product))
            .begins_with(MEDIA_PREFIX)
            .read_all(self, true)
            .await?;
        let mut shown = Vec::new();
        for item in items {
            if let StoredMedia::Shown(picture) = product_media::from_item(item)? {
                shown.push(picture);
            }
        }
        shown.sort_by_key(|p| p.rank);
        Ok(shown)
    }

    /// `pictures` of `product` with URLs a browser can load (signing sends nothing).
    pub(crate) async fn pictures_seen(
        &self,
        product: &ProductId,
        pictures: &[Picture],
    ) -> Result<Vec<MediaSeen>, AppError> {
        let mut seen = Vec::with_capacity(pictures.len());
        for picture in pictures {
            let key = media::object_key(product, &picture.media_id);
            seen.push(MediaSeen {
                media_id: picture.media_id.clone(),
                url: self.media_bucket()?.view_url(&key).await?,
                alt: picture.alt.clone(),
                rank: picture.rank,
            });
        }
        Ok(seen)
    }

    /// Listing entries as answers show them, each with its first picture's URL.
    pub(crate) async fn listed(
        &self,
        entries: Vec<CatalogEntry>,
    ) -> Result<Vec<ListedProduct>, AppError> {
        let mut listed = Vec::with_capacity(entries.len());
        for entry in entries {
            let picture = match &entry.cover {
                Some(cover) => self
                    .pictures_seen(&entry.product_id, std::slice::from_ref(cover))
                    .await?
                    .pop(),
                None => None,
            };
            listed.push(ListedProduct {
                product_id: entry.product_id,
                title: entry.title,
                price: entry.price,
                picture,
            });
        }
        Ok(listed)
    }
}

/// `copy` setting an entry's copy of the first picture, or removing it, where the entry is.
fn with_cover(copy: Change, cover: Option<&Picture>) -> Change {
    let copy = match cover {
        Some(cover) => copy.set(&category_listing::COVER, cover),
        None => copy.remove(&category_listing::COVER),
    };
    copy.condition("attribute_exists(PK)")
}
