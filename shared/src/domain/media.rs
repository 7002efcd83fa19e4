//! A product's pictures: what staff may upload (a type, a size, a text for those who cannot see
//! it), what the store checks when the object arrives in the bucket, and what a product's answer
//! shows of each. The bytes themselves live in S3 (`crate::media`); the table keeps a reference.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{MediaId, ProductId};

/// The largest picture accepted: 10 MiB.
pub const MAX_MEDIA_BYTES: u64 = 10 * 1024 * 1024;
/// The most pictures a product shows: with its item and [`crate::domain::product::MAX_VARIANTS`]
/// variants, its GSI3 partition stays a few dozen small items, one Query's page.
pub const MAX_MEDIA: u32 = 20;
/// The most bytes of a picture's text alternative.
pub const MAX_ALT_BYTES: usize = 500;
/// How long a presigned upload may be used, in seconds.
pub const UPLOAD_SECONDS: u64 = 600;
/// How long a picture's presigned URL may be loaded, in seconds.
pub const VIEW_SECONDS: u64 = 3600;

crate::listed! {
    /// The kinds of picture the store takes, each known by its content type and by its first
    /// bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum MediaType as "contentType" {
        /// PNG.
        Png = "image/png",
        /// JPEG.
        Jpeg = "image/jpeg",
        /// WebP.
        Webp = "image/webp",
        /// GIF.
        Gif = "image/gif",
    }
}

impl MediaType {
    /// The most leading bytes [`Self::opens`] needs to see.
    pub const SIGNATURE_BYTES: u64 = 12;

    /// Whether `head` (the object's first bytes) is how a file of this type begins: its magic
    /// number, as the format's specification writes it.
    pub fn opens(self, head: &[u8]) -> bool {
        match self {
            MediaType::Png => head.starts_with(b"\x89PNG\r\n\x1a\n"),
            MediaType::Jpeg => head.starts_with(&[0xFF, 0xD8, 0xFF]),
            MediaType::Gif => head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a"),
            MediaType::Webp => {
                head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP"
            }
        }
    }
}

/// What staff ask to upload: `POST /products/{productId}/media`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MediaRequest {
    /// The picture's type.
    pub content_type: String,
    /// Its size in bytes.
    pub content_length: u64,
    /// What it shows, for those who cannot see it.
    #[serde(default)]
    pub alt: String,
}

/// A checked request: a type the store takes, a size it allows, a text within bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaUpload {
    /// Its type.
    pub media_type: MediaType,
    /// The most bytes it may have.
    pub content_length: u64,
    /// Its text alternative.
    pub alt: String,
}

impl MediaRequest {
    /// The upload it asks for, or a 400 saying what is wrong.
    pub fn check(self) -> Result<MediaUpload, AppError> {
        let media_type = self.content_type.parse::<MediaType>()?;
        if self.content_length == 0 || self.content_length > MAX_MEDIA_BYTES {
            return Err(AppError::invalid(format!(
                "contentLength must be from 1 to {MAX_MEDIA_BYTES} bytes"
            )));
        }
        let alt = self.alt.trim();
        if alt.len() > MAX_ALT_BYTES || alt.chars().any(crate::domain::text::hidden) {
            return Err(AppError::invalid(format!(
                "alt must be at most {MAX_ALT_BYTES} bytes of visible text"
            )));
        }
        Ok(MediaUpload {
            media_type,
            content_length: self.content_length,
            alt: alt.to_owned(),
        })
    }
}

/// What S3 says of an object that arrived: its size, its stored content type and its first
/// bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrived {
    /// Its size in bytes.
    pub size: u64,
    /// The content type it was stored with.
    pub content_type: Option<String>,
    /// Its first bytes (up to [`MediaType::SIGNATURE_BYTES`]).
    pub head: Vec<u8>,
}

/// Why an object that arrived is not shown (and is deleted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    /// No upload was started for it, or the upload's time ran out.
    NotExpected,
    /// Empty, or larger than the upload allowed.
    WrongSize,
    /// Stored with another content type than the upload's.
    WrongType,
    /// Its bytes are not a picture of the type it claims.
    NotThatImage,
    /// The product shows [`MAX_MEDIA`] pictures already.
    TooMany,
}

impl Rejected {
    /// A word for the logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Rejected::NotExpected => "not-expected",
            Rejected::WrongSize => "wrong-size",
            Rejected::WrongType => "wrong-type",
            Rejected::NotThatImage => "not-that-image",
            Rejected::TooMany => "too-many",
        }
    }
}

/// An upload started and not yet arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingMedia {
    /// Which product it is for.
    pub product_id: ProductId,
    /// Its ID.
    pub media_id: MediaId,
    /// What was asked.
    pub upload: MediaUpload,
}

impl PendingMedia {
    /// Whether `arrived` is the picture this upload asked for: S3 enforces the POST policy's
    /// type and size in AWS, but a local S3 may not, and an object can reach the key by other
    /// means; so each is checked again here, and the bytes besides.
    pub fn check(&self, arrived: &Arrived) -> Result<(), Rejected> {
        if arrived.size == 0 || arrived.size > self.upload.content_length {
            return Err(Rejected::WrongSize);
        }
        if arrived.content_type.as_deref() != Some(self.upload.media_type.as_str()) {
            return Err(Rejected::WrongType);
        }
        if !self.upload.media_type.opens(&arrived.head) {
            return Err(Rejected::NotThatImage);
        }
        Ok(())
    }
}

/// A picture a product shows, as its item keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Picture {
    /// Its ID.
    pub media_id: MediaId,
    /// Its text alternative.
    #[serde(default)]
    pub alt: String,
    /// Its place among the product's pictures: the lowest is shown first, and in listings.
    pub rank: u32,
}

/// What a product's item keeps of its pictures: how many it shows, the rank the next one
/// gets (ranks are never reused), and the first (lowest rank), which listings show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MediaSummary {
    /// How many it shows.
    pub count: u32,
    /// The rank the next picture gets.
    pub next_rank: u32,
    /// The first it shows.
    pub cover: Option<Picture>,
}

/// The highest rank a picture can have: GSI3's sort key writes it in 4 digits.
pub const MAX_RANK: u32 = 9_999;

/// A picture as an answer shows it: with a URL a browser can load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaSeen {
    /// Its ID.
    pub media_id: MediaId,
    /// Where to load it from, for [`VIEW_SECONDS`].
    pub url: String,
    /// Its text alternative.
    pub alt: String,
    /// Its place among the product's pictures.
    pub rank: u32,
}

/// The object key of a product's picture: one the store chose, under `media/`.
pub fn object_key(product: &ProductId, media: &MediaId) -> String {
    format!("media/{product}/{media}")
}

/// The product and picture an object key names.
pub fn parse_object_key(key: &str) -> Option<(ProductId, MediaId)> {
    let mut parts = key.strip_prefix("media/")?.split('/');
    let product = ProductId::parse(parts.next()?).ok()?;
    let media = MediaId::parse(parts.next()?).ok()?;
    parts.next().is_none().then_some((product, media))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(media_type: MediaType, content_length: u64) -> PendingMedia {
        PendingMedia {
            product_id: ProductId::parse("tee").expect("id"),
            media_id: MediaId::parse("md_1").expect("id"),
            upload: MediaUpload {
                media_type,
                content_length,
                alt: String::new(),
            },
        }
    }

    fn arrived(size: u64, content_type: &str, head: &[u8]) -> Arrived {
        Arrived {
            size,
            content_type: Some(content_type.into()),
            head: head.to_vec(),
        }
    }

    #[test]
    fn each_type_is_known_by_its_first_bytes() {
        assert!(MediaType::Png.opens(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
        assert!(MediaType::Jpeg.opens(&[0xFF, 0xD8, 0xFF, 0xE0]));
        assert!(MediaType::Gif.opens(b"GIF89a\x01\x00"));
        assert!(MediaType::Webp.opens(b"RIFF\x24\0\0\0WEBPVP8 "));
        assert!(!MediaType::Png.opens(b"<html><body>"));
        assert!(!MediaType::Webp.opens(b"RIFF\x24\0\0\0WAVEfmt "));
        assert!(!MediaType::Jpeg.opens(b"\x89PNG\r\n\x1a\n"));
    }

    #[test]
    fn an_arrival_is_held_to_what_was_asked() {
        let png = pending(MediaType::Png, 100);
        let bytes = b"\x89PNG\r\n\x1a\n\0\0\0\r";
        assert_eq!(png.check(&arrived(100, "image/png", bytes)), Ok(()));
        assert_eq!(
            png.check(&arrived(5_000, "image/png", bytes)),
            Err(Rejected::WrongSize)
        );
        assert_eq!(
            png.check(&arrived(0, "image/png", b"")),
            Err(Rejected::WrongSize)
        );
        assert_eq!(
            png.check(&arrived(80, "text/html", bytes)),
            Err(Rejected::WrongType)
        );
        assert_eq!(
            png.check(&arrived(80, "image/png", b"<html><body>")),
            Err(Rejected::NotThatImage)
        );
    }

    #[test]
    fn a_request_is_checked_before_anything_is_signed() {
        let ask = |content_type: &str, content_length: u64, alt: &str| {
            MediaRequest {
                content_type: content_type.into(),
                content_length,
                alt: alt.into(),
            }
            .check()
        };
        let ok = ask("image/webp", 2_000, " A tee, folded ").expect("valid");
        assert_eq!(
            (ok.media_type, ok.alt.as_str()),
            (MediaType::Webp, "A tee, folded")
        );
        assert!(ask("text/html", 2_000, "").is_err());
        assert!(ask("image/png", 0, "").is_err());
        assert!(ask("image/png", MAX_MEDIA_BYTES + 1, "").is_err());
        assert!(ask("image/png", 10, &"a".repeat(MAX_ALT_BYTES + 1)).is_err());
    }

    #[test]
    fn object_keys_name_their_product_and_picture() {
        let (tee, md) = (
            ProductId::parse("tee").expect("id"),
            MediaId::parse("md_1").expect("id"),
        );
        assert_eq!(object_key(&tee, &md), "media/tee/md_1");
        assert_eq!(parse_object_key("media/tee/md_1"), Some((tee, md)));
        for bad in [
            "media/tee",
            "media/tee/md_1/x",
            "other/tee/md_1",
            "media/te#e/md_1",
        ] {
            assert_eq!(parse_object_key(bad), None, "{bad}");
        }
    }
}
