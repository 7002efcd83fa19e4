//! Access pattern 9, a customer's cart (one Query on their partition, `begins_with(SK,
//! "CART#")`), and its edits: a line held, removed, or the whole cart emptied. TTL deletes an
//! expired line only eventually, so every read here leaves out a line whose `expiresAt` has
//! passed, even while it is still stored.

use futures_util::future::join_all;

use crate::domain::cart::{Cart, CartLine, LineChange, MAX_CART_LINES};
use crate::domain::ids::{CustomerId, Sku};
use crate::dynamo::entities::cart_line;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::epoch_seconds;
use crate::{AppError, Store};

/// A live cart line as stored: what a checkout deletes only if it is still so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCartLine {
    /// The line.
    pub line: CartLine,
    /// When it expires (seconds since the epoch): every edit moves it.
    pub expires_at: u64,
}

impl Store {
    /// The cart's live lines as stored, in SKU order (ONE strongly consistent Query): what a
    /// checkout is made of.
    pub async fn live_cart(&self, customer: &CustomerId) -> Result<Vec<StoredCartLine>, AppError> {
        let now = epoch_seconds();
        Ok(self
            .stored_cart(customer)
            .await?
            .into_iter()
            .filter(|(_, expires_at)| *expires_at > now)
            .map(|(line, expires_at)| StoredCartLine { line, expires_at })
            .collect())
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

    /// Every stored line of the cart with its expiry, expired ones included.
    async fn stored_cart(&self, customer: &CustomerId) -> Result<Vec<(CartLine, u64)>, AppError> {
        let out = KeyQuery::on(Index::Table, cart_line::pk(customer))
            .begins_with(cart_line::SK_PREFIX)
            .request(self)
            .consistent_read(true)
            .send()
            .await?;
        Ok(out
            .items
            .unwrap_or_default()
            .into_iter()
            .map(cart_line::from_item)
            .collect::<Result<_, _>>()?)
    }

    /// Sets the cart's line for `sku` to `change`, its expiry moved to `CartTtlDays` from now.
    /// The catalog must know the product (else 422); a line that would be the cart's
    /// [`MAX_CART_LINES`]-plus-first is refused (409). The cart after the change.
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
        let mut cart = self.get_cart(customer).await?;
        // The Query returns the lines in SKU order: where this one is, or would go.
        let at = cart
            .items
            .binary_search_by(|held| held.sku.as_str().cmp(sku.as_str()));
        if at.is_err() && cart.items.len() >= MAX_CART_LINES {
            return Err(AppError::CartFull(MAX_CART_LINES));
        }
        if self.read_product(sku, true).await?.is_none() {
            return Err(AppError::UnknownProducts(vec![sku.clone()]));
        }
        let line = CartLine {
            sku: sku.clone(),
            quantity,
        };
        let expires_at = self.cart_ttl.expiry(epoch_seconds());
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(cart_line::to_item(customer, &line, expires_at)))
            .send()
            .await?;
        match at {
            Ok(index) => cart.items[index] = line,
            Err(index) => cart.items.insert(index, line),
        }
        Ok(cart)
    }

    /// Removes the cart's line for `sku`, if there is one (one DeleteItem; removing a line that
    /// is not there changes nothing).
    pub async fn remove_cart_line(&self, customer: &CustomerId, sku: &Sku) -> Result<(), AppError> {
        self.client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(cart_line::key(customer, sku)))
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
