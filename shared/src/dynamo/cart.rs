//! Access pattern 9, a customer's cart (one Query on their partition, `begins_with(SK,
//! "CART#")`), and its edits: a line held, removed, or the whole cart emptied. TTL deletes an
//! expired line only eventually, so every read here leaves out a line whose `expiresAt` has
//! passed, even while it is still stored. A new line is added with the cart's version moved on
//! (`entities::cart_version`), so that the cap on lines is a condition of the write.

use futures_util::future::join_all;

use crate::domain::cart::{Cart, CartLine, LineChange, MAX_CART_LINES};
use crate::domain::ids::{CustomerId, Sku};
use crate::domain::order::RequestedLine;

use crate::dynamo::codec::Item;
use crate::dynamo::entities::{cart_line, cart_version};
use crate::dynamo::errors::unless_condition_failed;
use crate::dynamo::keys::SK;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::epoch_seconds;
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::retry::{Backoff, retry};
use crate::{AppError, Store};

/// What an edit's attempt came to, short of the cart.
enum Edit {
    /// Another edit added a line since this one counted the cart: read it again.
    Raced,
    Failed(AppError),
}

impl From<AppError> for Edit {
    fn from(err: AppError) -> Self {
        Edit::Failed(err)
    }
}

/// What each action of a line's addition is for.
#[derive(Debug, PartialEq, Eq)]
enum CartAction {
    Line,
    Version,
}

/// A live cart line as stored: what a checkout deletes only if it is still so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCartLine {
    /// The line.
    pub line: CartLine,
    /// When it expires (seconds since the epoch): every edit moves it.
    pub expires_at: u64,
}

/// The cart's lines as an order asks for them (priced from the catalog).
pub fn requested_lines(cart: &[StoredCartLine]) -> Result<Vec<RequestedLine>, AppError> {
    // Two edits at once can each see room for one more line; a checkout never carries more than
    // its transaction can (a 409 the customer resolves by removing lines, never a 500).
    if cart.len() > MAX_CART_LINES {
        return Err(AppError::CartFull(MAX_CART_LINES));
    }
    Ok(cart
        .iter()
        .map(|stored| RequestedLine {
            sku: stored.line.sku.clone(),
            quantity: stored.line.quantity,
            expected_price: None,
        })
        .collect())
}

/// The lines of `stored` that have not expired (TTL deletes an expired one only eventually).
fn live(stored: Vec<(CartLine, u64)>) -> Vec<StoredCartLine> {
    let now = epoch_seconds();
    (stored.into_iter())
        .filter(|(_, expires_at)| *expires_at > now)
        .map(|(line, expires_at)| StoredCartLine { line, expires_at })
        .collect()
}

impl Store {
    /// The cart's live lines as stored, in SKU order (ONE strongly consistent Query): what a
    /// checkout is made of.
    pub async fn live_cart(&self, customer: &CustomerId) -> Result<Vec<StoredCartLine>, AppError> {
        Ok(live(self.stored_cart(customer).await?))
    }

    /// The cart's live lines as [`Store::live_cart`] reads them, and whether the customer is
    /// one ([`cart_version::PROFILED`], on the cart's version): ONE strongly consistent Query of
    /// `begins_with(SK, "CART")`, which reads the version beside the lines.
    pub(crate) async fn live_cart_marked(
        &self,
        customer: &CustomerId,
    ) -> Result<(Vec<StoredCartLine>, bool), AppError> {
        let mut items = (self.customer_items(customer, cart_version::SORT_KEY)).await?;
        let is_version = |item: &Item| {
            (item.get(SK).and_then(|sk| sk.as_s().ok()))
                .is_some_and(|sk| sk == cart_version::SORT_KEY)
        };
        let profiled = (items.iter().position(is_version))
            .and_then(|at| cart_version::PROFILED.get(&items.remove(at)))
            .unwrap_or(false);
        let stored =
            (items.into_iter().map(cart_line::from_item)).collect::<Result<Vec<_>, _>>()?;
        Ok((live(stored), profiled))
    }

    /// Access pattern 9: the customer's cart, its live lines in SKU order. ONE strongly
    /// consistent Query (a cart holds at most [`MAX_CART_LINES`] lines, far under 1 MB).
    pub async fn get_cart(&self, customer: &CustomerId) -> Result<Cart, AppError> {
        let items = self
            .live_cart(customer)
            .await?
            .into_iter()
            .map(|stored| stored.line)
            .collect();
        Ok(Cart { items })
    }

    /// The customer's items whose sort key begins with `prefix` (ONE strongly consistent Query
    /// of their partition; a cart and its version are far under 1 MB).
    async fn customer_items(
        &self,
        customer: &CustomerId,
        prefix: &str,
    ) -> Result<Vec<Item>, AppError> {
        let out = KeyQuery::on(Index::Table, cart_line::pk(customer))
            .begins_with(prefix)
            .request(self)
            .consistent_read(true)
            .send()
            .await?;
        Ok(out.items.unwrap_or_default())
    }

    /// Every stored line of the cart with its expiry, expired ones included.
    async fn stored_cart(&self, customer: &CustomerId) -> Result<Vec<(CartLine, u64)>, AppError> {
        Ok((self.customer_items(customer, cart_line::SK_PREFIX).await?)
            .into_iter()
            .map(cart_line::from_item)
            .collect::<Result<_, _>>()?)
    }

    /// Sets the cart's line for `sku` to `change`, its expiry moved to `CartTtlDays` from now.
    /// The catalog must know the variant (else 422) and its product be published (else 409);
    /// a line that would be the cart's
    /// [`MAX_CART_LINES`]-plus-first is refused (409), and that is decided by the write itself:
    /// a new line is written with the cart's version moved on, on the condition that it is the
    /// one read before the lines were counted, so edits at once cannot overfill the cart
    /// (retried on a lost race). The cart after the change.
    pub async fn change_cart_line(
        &self,
        customer: &CustomerId,
        sku: &Sku,
        change: LineChange,
    ) -> Result<Cart, AppError> {
        let quantity = match change {
            LineChange::Hold(quantity) => quantity,
            LineChange::Remove => {
                self.remove_cart_line(customer, sku).await?;
                return self.get_cart(customer).await;
            }
        };
        let line = CartLine {
            sku: sku.clone(),
            quantity,
        };
        match self.get_variant(sku, true).await? {
            None => return Err(AppError::UnknownProducts(vec![sku.clone()])),
            Some(variant) if !variant.for_sale() => {
                return Err(AppError::NotForSale(vec![sku.clone()]));
            }
            Some(_) => {}
        }
        let held = retry(
            &Backoff::TRANSACTION,
            |edit: &Edit| matches!(edit, Edit::Raced),
            |_| self.hold_cart_line(customer, &line),
        )
        .await;
        held.map_err(|edit| match edit {
            Edit::Raced => AppError::concurrent_change(
                "the cart kept changing under edits at once; retry the edit",
            ),
            Edit::Failed(err) => err,
        })
    }

    /// One attempt at holding `line`: the cart's version read, then its lines, then the line
    /// written, conditioned as [`Store::change_cart_line`] says.
    async fn hold_cart_line(&self, customer: &CustomerId, line: &CartLine) -> Result<Cart, Edit> {
        // The version first: an edit that adds a line after it is read moves it on.
        let version = self.cart_version(customer).await?;
        let mut cart = self.get_cart(customer).await?;
        // The Query returns the lines in SKU order: where this one is, or would go.
        let at = (cart.items).binary_search_by(|held| held.sku.as_str().cmp(line.sku.as_str()));
        if at.is_err() && cart.items.len() >= MAX_CART_LINES {
            return Err(AppError::CartFull(MAX_CART_LINES).into());
        }
        let item = cart_line::to_item(customer, line, self.cart_ttl.expiry(epoch_seconds()));
        match at {
            // Still there (else it was checked out or removed meanwhile: read again).
            Ok(index) => {
                let sent = (cart_line::PUT.put(&self.table, item))
                    .only_existing()
                    .request(&self.client)?
                    .send()
                    .await;
                unless_condition_failed(sent)?.ok_or(Edit::Raced)?;
                cart.items[index] = line.clone();
            }
            Err(index) => {
                self.add_cart_line(customer, item, version).await?;
                cart.items.insert(index, line.clone());
            }
        }
        Ok(cart)
    }

    /// The cart's version (none: no line was ever added under one), read strongly
    /// consistently (one GetItem).
    async fn cart_version(&self, customer: &CustomerId) -> Result<Option<u64>, AppError> {
        let item = self.get_consistent(cart_version::key(customer)).await?;
        Ok(item.and_then(|item| cart_version::VERSION.get(&item)))
    }

    /// A new line `item` put, and the cart's version moved on from `read`, in ONE transaction:
    /// only if the version is still `read`.
    async fn add_cart_line(
        &self,
        customer: &CustomerId,
        item: Item,
        read: Option<u64>,
    ) -> Result<(), Edit> {
        let next = read.map_or(1, |version| version + 1);
        let moved = cart_version::MOVE_ON
            .on(&self.table, cart_version::key(customer))
            .set(&cart_version::VERSION, &next);
        let moved = match read {
            None => moved.condition("attribute_not_exists(#version)"),
            Some(read) => {
                moved
                    .condition("#version = :read")
                    .value(":read", &cart_version::VERSION, &read)
            }
        };
        let mut transaction = Transaction::with_capacity(2);
        let put = cart_line::PUT.put(&self.table, item);
        transaction.put(CartAction::Line, put.build()?)?;
        transaction.update(CartAction::Version, moved.build()?)?;
        match self.send(transaction).await? {
            Outcome::Committed => Ok(()),
            Outcome::Cancelled(c) if c.condition_failed(|a| *a == CartAction::Version) => {
                Err(Edit::Raced)
            }
            Outcome::Cancelled(c) if c.conflicted() => Err(Edit::Raced),
            Outcome::Cancelled(c) => Err(c.unexplained("cart line").into()),
        }
    }

    /// Removes the cart's line for `sku`, if there is one (one DeleteItem; removing a line that
    /// is not there changes nothing).
    pub async fn remove_cart_line(&self, customer: &CustomerId, sku: &Sku) -> Result<(), AppError> {
        (cart_line::REMOVE.delete(&self.table, cart_line::key(customer, sku)))
            .request(&self.client)?
            .send()
            .await?;
        Ok(())
    }

    /// Empties the cart: every stored line deleted, expired ones too (one Query, then one
    /// DeleteItem per line, at once).
    pub async fn clear_cart(&self, customer: &CustomerId) -> Result<(), AppError> {
        let lines = self.stored_cart(customer).await?;
        let deletes = lines
            .iter()
            .map(|(line, _)| self.remove_cart_line(customer, &line.sku));
        join_all(deletes)
            .await
            .into_iter()
            .collect::<Result<Vec<()>, _>>()?;
        Ok(())
    }
}
