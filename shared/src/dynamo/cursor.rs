//! The opaque pagination cursor: where a listing's next page starts (its LastEvaluatedKey),
//! bound to the caller it was handed to; and the one way a listing's page ends ([`page`]).
//!
//! Layout: base64url of `{"v": <caller tag>, "k": {<key attribute>: <string>}}`.
//!
//! There is no secret: a listing's key condition is built from the request's path and the
//! caller's rights, never from the cursor, which only says where in that listing to start. Each
//! listing checks that the key lies inside its own condition before it is sent (so an edited
//! cursor can neither reach another partition nor make DynamoDB refuse the query), and a cursor
//! whose tag is not the caller's is refused. An edited cursor can therefore only skip around a
//! listing its holder may read anyway. That keeps a key out of every function's environment and
//! off the cold start; the README says more.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::page::Page;
use crate::dynamo::codec::{BadItem, Item};

/// Far above any real cursor (four keys of at most 1 KiB each would not reach it).
const MAX_CURSOR_LEN: usize = 8 * 1024;

#[derive(Serialize)]
struct Written<'a> {
    v: &'a str,
    k: BTreeMap<&'a str, &'a str>,
}

#[derive(Deserialize)]
struct Read {
    v: String,
    k: BTreeMap<String, String>,
}

fn invalid() -> AppError {
    AppError::invalid("cursor is not valid for this listing")
}

/// Where a page starts: the key `cursor` names (none: the listing's start), if it was handed
/// to `caller` and lies `inside` the listing; a 400 otherwise, before any request.
pub fn open(
    caller: &Caller,
    cursor: Option<&str>,
    inside: impl FnOnce(&Item) -> bool,
) -> Result<Option<Item>, AppError> {
    let Some(cursor) = cursor else {
        return Ok(None);
    };
    let key = decode(&caller.cursor_tag(), cursor)?;
    if inside(&key) {
        Ok(Some(key))
    } else {
        Err(invalid())
    }
}

/// The cursor of the page that starts after `key` (none: the last page), for `caller`.
pub fn seal(caller: &Caller, key: Option<Item>) -> Result<Option<String>, AppError> {
    key.map(|key| encode(&caller.cursor_tag(), &key))
        .transpose()
}

/// A page of `found`, for a Query that asked for one item more than the page holds (`limit +
/// 1`, see [`query_limit`]): more than `limit` found means another page starts after the last
/// one kept (the extra one is dropped); otherwise the listing's own answer, `otherwise`
/// (DynamoDB's LastEvaluatedKey, when the 1 MB cap cut the page short). Each item kept is read
/// with `decode`.
pub fn page<T>(
    caller: &Caller,
    mut found: Vec<Item>,
    limit: usize,
    key_attributes: &[&str],
    otherwise: impl FnOnce() -> Option<Item>,
    decode: fn(Item) -> Result<T, BadItem>,
) -> Result<Page<T>, AppError> {
    let next_key = if found.len() > limit {
        found.truncate(limit);
        found.last().map(|last| key_of(last, key_attributes))
    } else {
        otherwise().filter(|key| !key.is_empty())
    };
    let next_cursor = seal(caller, next_key)?;
    let items = found.into_iter().map(decode).collect::<Result<_, _>>()?;
    Ok(Page { items, next_cursor })
}

/// A Query's `Limit` for `items` items.
pub fn query_limit(items: usize) -> i32 {
    i32::try_from(items).unwrap_or(i32::MAX)
}

/// The `attributes` of `item`: the key a page after it starts from.
pub fn key_of(item: &Item, attributes: &[&str]) -> Item {
    attributes
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), item.get(*name)?.clone())))
        .collect()
}

/// A string attribute of a key, to check where a cursor points.
pub fn text<'i>(key: &'i Item, name: &str) -> Option<&'i str> {
    key.get(name)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// The cursor of `key` (string attributes only, as every key in this table is) for the caller
/// tagged `tag`.
pub fn encode(tag: &str, key: &Item) -> Result<String, AppError> {
    let k = key
        .iter()
        .map(|(name, value)| match value {
            AttributeValue::S(s) => Ok((name.as_str(), s.as_str())),
            _ => Err(AppError::internal(format!(
                "key attribute {name} is not a string"
            ))),
        })
        .collect::<Result<_, _>>()?;
    let json = serde_json::to_vec(&Written { v: tag, k }).map_err(AppError::internal)?;
    Ok(URL_SAFE_NO_PAD.encode(json))
}

/// The key a cursor carries, if it was handed to the caller tagged `tag`; anything else is a
/// 400. The listing still has to check that the key lies inside it.
pub fn decode(tag: &str, cursor: &str) -> Result<Item, AppError> {
    if cursor.len() > MAX_CURSOR_LEN {
        return Err(invalid());
    }
    let raw = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let cursor: Read = serde_json::from_slice(&raw).map_err(|_| invalid())?;
    if cursor.v != tag {
        return Err(invalid());
    }
    Ok(cursor
        .k
        .into_iter()
        .map(|(name, value)| (name, AttributeValue::S(value)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Item {
        Item::from([
            ("PK".into(), AttributeValue::S("CUSTOMER#c1".into())),
            (
                "SK".into(),
                AttributeValue::S("ORDER#2026-10-08T14:30:00Z#o100".into()),
            ),
        ])
    }

    #[test]
    fn a_cursor_round_trips_for_its_caller_and_is_opaque() {
        let cursor = encode("tag-a", &key()).expect("encodes");
        assert_eq!(decode("tag-a", &cursor).expect("decodes"), key());
        assert!(!cursor.contains("CUSTOMER"), "not the key in the clear");
    }

    #[test]
    fn a_cursor_handed_to_another_caller_is_refused() {
        let cursor = encode("tag-a", &key()).expect("encodes");
        assert_eq!(decode("tag-b", &cursor).expect_err("refused").status(), 400);
    }

    #[test]
    fn garbage_is_refused_not_panicked_on() {
        for bad in [
            "",
            "!!!",
            "AAAA",
            &"A".repeat(10_000),
            "eyJQSyI6IngifQ",
            // Valid base64 of JSON of the wrong shapes.
            &URL_SAFE_NO_PAD.encode(r#"{"v":"t","k":{"PK":1}}"#),
            &URL_SAFE_NO_PAD.encode(r#"{"v":"t"}"#),
            &URL_SAFE_NO_PAD.encode(r#"[]"#),
        ] {
            assert_eq!(decode("t", bad).expect_err(bad).status(), 400, "{bad:?}");
        }
    }
}
