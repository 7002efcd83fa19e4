//! One small query type for every Query the store sends: a partition, an optional sort-key
//! range, an index and a direction. It knows its index's key attributes, so a listing's cursors
//! are built ([`KeyQuery::page`]) and checked ([`KeyQuery::open`]) from it: no listing writes
//! its own key list, its own "inside the listing" check or its own `limit + 1`.

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::page::{Page, PageRequest};
use crate::dynamo::codec::{BadItem, Item};
use crate::dynamo::cursor::{self, query_limit, text};
use crate::dynamo::keys::{
    GSI1, GSI1PK, GSI1SK, GSI2, GSI2PK, GSI2SK, GSI3, GSI3PK, GSI3SK, PK, SK,
};
use crate::dynamo::store::Store;

/// Where a Query reads: the table, or one of its indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Index {
    /// The table itself: `PK`, `SK`.
    Table,
    /// GSI1, orders by status: `GSI1PK`, `GSI1SK`.
    Gsi1,
    /// GSI2, orders by product: `GSI2PK`, `GSI2SK`.
    Gsi2,
    /// GSI3, the catalog: `GSI3PK`, `GSI3SK`.
    Gsi3,
}

impl Index {
    fn name(self) -> Option<&'static str> {
        match self {
            Index::Table => None,
            Index::Gsi1 => Some(GSI1),
            Index::Gsi2 => Some(GSI2),
            Index::Gsi3 => Some(GSI3),
        }
    }

    /// Its partition and sort key attributes.
    pub fn key(self) -> (&'static str, &'static str) {
        match self {
            Index::Table => (PK, SK),
            Index::Gsi1 => (GSI1PK, GSI1SK),
            Index::Gsi2 => (GSI2PK, GSI2SK),
            Index::Gsi3 => (GSI3PK, GSI3SK),
        }
    }

    /// What a position in it (a LastEvaluatedKey) holds: its own key, then the table's.
    pub fn position_attributes(self) -> &'static [&'static str] {
        match self {
            Index::Table => &[PK, SK],
            Index::Gsi1 => &[GSI1PK, GSI1SK, PK, SK],
            Index::Gsi2 => &[GSI2PK, GSI2SK, PK, SK],
            Index::Gsi3 => &[GSI3PK, GSI3SK, PK, SK],
        }
    }
}

/// Which sort keys of the partition a Query reads.
#[derive(Debug, Clone)]
enum SortKeys {
    All,
    /// `BETWEEN`: both bounds included.
    Between(String, String),
    BeginsWith(String),
}

/// One Query's key condition and direction.
#[derive(Debug, Clone)]
pub struct KeyQuery {
    index: Index,
    partition: String,
    sort_keys: SortKeys,
    /// Highest sort key first ("newest first" for keys that start with a time).
    descending: bool,
}

impl KeyQuery {
    /// The whole of `partition` on `index`, in ascending sort-key order.
    pub fn on(index: Index, partition: String) -> Self {
        Self {
            index,
            partition,
            sort_keys: SortKeys::All,
            descending: false,
        }
    }

    /// Only sort keys from `lo` through `hi`, both included.
    pub fn between(mut self, (lo, hi): (String, String)) -> Self {
        self.sort_keys = SortKeys::Between(lo, hi);
        self
    }

    /// Only sort keys that start with `prefix`.
    pub fn begins_with(mut self, prefix: &str) -> Self {
        self.sort_keys = SortKeys::BeginsWith(prefix.to_owned());
        self
    }

    /// Highest sort key first: the newest first, for sort keys that begin with a time.
    pub fn newest_first(mut self) -> Self {
        self.descending = true;
        self
    }

    /// The index it reads.
    pub fn index(&self) -> Index {
        self.index
    }

    /// Whether it reads the highest sort key first.
    pub fn is_newest_first(&self) -> bool {
        self.descending
    }

    /// The Query, with its key condition, index and direction; the caller adds a limit, a
    /// start and a consistency where it needs them.
    pub fn request(&self, store: &Store) -> QueryFluentBuilder {
        let (pk, sk) = self.index.key();
        let mut query = store
            .client
            .query()
            .table_name(&store.table)
            .set_index_name(self.index.name().map(str::to_owned))
            .expression_attribute_names("#pk", pk)
            .expression_attribute_values(":pk", AttributeValue::S(self.partition.clone()));
        if self.descending {
            // Ascending is DynamoDB's default: only the other direction is said.
            query = query.scan_index_forward(false);
        }
        query = match &self.sort_keys {
            SortKeys::All => query.key_condition_expression("#pk = :pk"),
            SortKeys::Between(lo, hi) => query
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :lo AND :hi")
                .expression_attribute_names("#sk", sk)
                .expression_attribute_values(":lo", AttributeValue::S(lo.clone()))
                .expression_attribute_values(":hi", AttributeValue::S(hi.clone())),
            SortKeys::BeginsWith(prefix) => query
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :prefix)")
                .expression_attribute_names("#sk", sk)
                .expression_attribute_values(":prefix", AttributeValue::S(prefix.clone())),
        };
        query
    }

    /// One page of `page.limit` items, from `start`: the request asks for one more than the
    /// page holds, so [`page`](Self::page) knows a full page from the last one.
    pub fn page_request(
        &self,
        store: &Store,
        page: &PageRequest,
        start: Option<Item>,
    ) -> QueryFluentBuilder {
        self.request(store)
            .limit(query_limit(page.limit + 1))
            .set_exclusive_start_key(start)
    }

    /// One page of this query from `start` (as [`open`](Self::open) gave it), its items read
    /// with `decode`: [`page_request`](Self::page_request) sent, then [`page`](Self::page).
    pub async fn read_page<T>(
        &self,
        store: &Store,
        caller: &Caller,
        page: &PageRequest,
        start: Option<Item>,
        decode: fn(Item) -> Result<T, BadItem>,
    ) -> Result<Page<T>, AppError> {
        let out = self.page_request(store, page, start).send().await?;
        // Fewer than asked for, yet a LastEvaluatedKey: the 1 MB cap cut the page short.
        self.page(
            caller,
            out.items.unwrap_or_default(),
            page.limit,
            || out.last_evaluated_key,
            decode,
        )
    }

    /// Whether `key` is a position inside this query: exactly its index's position
    /// attributes, in its partition, with a sort key inside its range.
    pub fn holds(&self, key: &Item) -> bool {
        let (pk, sk) = self.index.key();
        let attributes = self.index.position_attributes();
        key.len() == attributes.len()
            && attributes.iter().all(|name| text(key, name).is_some())
            && text(key, pk) == Some(self.partition.as_str())
            && text(key, sk).is_some_and(|sk| match &self.sort_keys {
                SortKeys::All => true,
                SortKeys::Between(lo, hi) => (lo.as_str()..=hi.as_str()).contains(&sk),
                SortKeys::BeginsWith(prefix) => sk.starts_with(prefix.as_str()),
            })
    }

    /// Where a page starts: the key `cursor` names (none: the query's start), if it was handed
    /// to `caller`, lies inside this query and is `canonical` (byte for byte a key the store
    /// writes there); a 400 otherwise, before any request.
    pub fn open(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
        canonical: impl FnOnce(&Item) -> bool,
    ) -> Result<Option<Item>, AppError> {
        cursor::open(caller, cursor, |key| self.holds(key) && canonical(key))
    }

    /// The page of `found` (read by [`page_request`](Self::page_request)), its items read with
    /// `decode`, and the cursor of the next page built from this index's position attributes
    /// (or, when the 1 MB cap cut the page short, `otherwise`: DynamoDB's LastEvaluatedKey).
    pub fn page<T>(
        &self,
        caller: &Caller,
        found: Vec<Item>,
        limit: usize,
        otherwise: impl FnOnce() -> Option<Item>,
        decode: fn(Item) -> Result<T, BadItem>,
    ) -> Result<Page<T>, AppError> {
        cursor::page(
            caller,
            found,
            limit,
            self.index.position_attributes(),
            otherwise,
            decode,
        )
    }

    /// Every item of the query, page after page (an operator's or a recount's read of a whole
    /// partition; never a listing's), strongly consistent when `consistent`.
    pub async fn read_all(&self, store: &Store, consistent: bool) -> Result<Vec<Item>, AppError> {
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .request(store)
                .consistent_read(consistent)
                .set_exclusive_start_key(start)
                .send()
                .await?;
            items.extend(out.items.unwrap_or_default());
            start = out.last_evaluated_key.filter(|key| !key.is_empty());
            if start.is_none() {
                return Ok(items);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), AttributeValue::S((*v).to_owned())))
            .collect()
    }

    #[test]
    fn a_position_is_inside_only_with_exactly_its_indexs_attributes_and_range() {
        let query = KeyQuery::on(Index::Table, "CUSTOMER#c1".into())
            .between(("ORDER#".into(), "ORDER$".into()));
        let inside = key(&[
            ("PK", "CUSTOMER#c1"),
            ("SK", "ORDER#2026-10-08T14:30:00Z#o1"),
        ]);
        assert!(query.holds(&inside));
        for outside in [
            key(&[
                ("PK", "CUSTOMER#c2"),
                ("SK", "ORDER#2026-10-08T14:30:00Z#o1"),
            ]),
            key(&[("PK", "CUSTOMER#c1"), ("SK", "PROFILE")]),
            key(&[("PK", "CUSTOMER#c1")]),
            key(&[
                ("PK", "CUSTOMER#c1"),
                ("SK", "ORDER#2026-10-08T14:30:00Z#o1"),
                ("GSI1PK", "STATUS#PLACED"),
            ]),
        ] {
            assert!(!query.holds(&outside), "{outside:?}");
        }
        let gsi2 = KeyQuery::on(Index::Gsi2, "PRODUCT#sku-1".into());
        // A table key is no position in an index: the index's own key comes with it.
        assert!(!gsi2.holds(&inside));
        assert!(gsi2.holds(&key(&[
            ("GSI2PK", "PRODUCT#sku-1"),
            ("GSI2SK", "2026-10-08T14:30:00Z#o1"),
            ("PK", "ORDER#o1"),
            ("SK", "ITEM#sku-1"),
        ])));
        assert_eq!(Index::Gsi1.position_attributes(), [GSI1PK, GSI1SK, PK, SK]);
    }
}
