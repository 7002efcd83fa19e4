//! Categories: the tree (access pattern 13, one Query of the `CATEGORIES` partition), a category
//! written on the tree's version (so that two writes at once cannot make a cycle between
//! them), and a category's published products by price or newest (access pattern 14, one
//! Query of GSI3 per page).

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::category::{self, Category, CategoryNode, ListingSort};
use crate::domain::ids::CategoryId;
use crate::domain::page::{Page, PageRequest};
use crate::domain::product::ListedProduct;
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::text;
use crate::dynamo::entities::{category as stored, category_listing, category_tree};
use crate::dynamo::keys::{GSI3PK, GSI3SK, PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;
use crate::dynamo::transaction::{Attempt, Outcome, Transaction};
use crate::retry::{Backoff, retry};

/// What each action of a category's transaction is for.
#[derive(Debug, PartialEq, Eq)]
enum Action {
    Category,
    Version,
}

impl Store {
    /// Every category and the tree's version, by one Query of the partition (strongly
    /// consistent when `consistent`).
    async fn read_tree(&self, consistent: bool) -> Result<(Vec<Category>, u64), AppError> {
        let items = KeyQuery::on(Index::Table, stored::pk())
            .read_all(self, consistent)
            .await?;
        let (mut categories, mut version) = (Vec::with_capacity(items.len()), 0);
        for item in items {
            if text(&item, SK) == Some(category_tree::SORT_KEY) {
                version = category_tree::VERSION.get(&item).unwrap_or(0);
            } else {
                categories.push(stored::from_item(item)?);
            }
        }
        Ok((categories, version))
    }

    /// Access pattern 13: the tree, its roots with their children, by name.
    pub async fn category_tree(&self) -> Result<Vec<CategoryNode>, AppError> {
        Ok(category::tree(&self.read_tree(false).await?.0))
    }

    /// Writes `category` (new, renamed or moved) where the tree allows it
    /// ([`category::place`]), in one transaction with the tree's version moved on from the one
    /// read; a concurrent write makes it read and check again. Whether it is new.
    pub async fn put_category(&self, category: &Category) -> Result<bool, AppError> {
        let written = retry(&Backoff::TRANSACTION, Attempt::retried, |_| async move {
            let (tree, version) = self.read_tree(true).await?;
            category::place(&tree, category)?;
            let created = !tree.iter().any(|c| c.category_id == category.category_id);
            let mut transaction = Transaction::with_capacity(2);
            let put = stored::PUT.put(&self.table, stored::to_item(category));
            transaction.put(Action::Category, put.build()?)?;
            let move_on = category_tree::MOVE_ON
                .on(&self.table, category_tree::key())
                .set(&category_tree::VERSION, &(version + 1));
            let move_on = if version == 0 {
                move_on.condition("attribute_not_exists(#version)")
            } else {
                move_on.condition("#version = :read").value(
                    ":read",
                    &category_tree::VERSION,
                    &version,
                )
            };
            transaction.update(Action::Version, move_on.build()?)?;
            match self.send(transaction).await? {
                Outcome::Committed => Ok(created),
                Outcome::Cancelled(c) if c.conflicted() => Err(Attempt::Contended),
                Outcome::Cancelled(c) if c.condition_failed(|a| *a == Action::Version) => {
                    Err(Attempt::Changed)
                }
                Outcome::Cancelled(c) => Err(Attempt::Failed(c.unexplained("category"))),
            }
        })
        .await;
        written.map_err(|err| err.into_error("the category tree"))
    }

    /// The categories of `ids` that do not exist, by one strongly consistent BatchGetItem.
    pub(crate) async fn missing_categories(
        &self,
        ids: &[CategoryId],
    ) -> Result<Vec<CategoryId>, AppError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found = self
            .batch_get(ids.iter().map(stored::key).collect(), true)
            .await?;
        let found: Vec<CategoryId> = found
            .into_iter()
            .map(stored::from_item)
            .map(|c| c.map(|c| c.category_id))
            .collect::<Result<_, _>>()?;
        Ok(ids
            .iter()
            .filter(|id| !found.contains(id))
            .cloned()
            .collect())
    }

    /// Access pattern 14: `category`'s published products in `sort` order, each with its
    /// lowest price, one Query of GSI3 a page. A category that does not exist lists nothing.
    pub async fn list_category_products(
        &self,
        category: &CategoryId,
        sort: ListingSort,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<ListedProduct>, AppError> {
        let order = match sort {
            ListingSort::Newest => category_listing::Order::Newest,
            ListingSort::PriceAscending | ListingSort::PriceDescending => {
                category_listing::Order::Price
            }
        };
        let query = KeyQuery::on(Index::Gsi3, category_listing::gsi3pk(category, order));
        let query = if sort == ListingSort::PriceAscending {
            query
        } else {
            query.newest_first()
        };
        let start = query.open(caller, page.cursor.as_deref(), |key| {
            is_listed(key, category, order)
        })?;
        let entries = query
            .read_page(self, caller, page, start, category_listing::from_item)
            .await?;
        Ok(Page {
            items: self.listed(entries.items).await?,
            next_cursor: entries.next_cursor,
        })
    }
}

/// Whether a cursor's position is an entry of `category`'s listing in `order`, as written.
fn is_listed(key: &Item, category: &CategoryId, order: category_listing::Order) -> bool {
    match (
        text(key, GSI3PK),
        text(key, GSI3SK),
        text(key, PK),
        text(key, SK),
    ) {
        (Some(a), Some(b), Some(c), Some(d)) => {
            category_listing::is_entry_of((a, b, c, d), category, order)
        }
        _ => false,
    }
}
