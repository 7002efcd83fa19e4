//! An order read by its ID: the header, its line items, its fulfilments and its money in ONE
//! Query on the order's partition (bounded under 1 MB by the order's caps), only for a caller
//! who may see it; the header alone for a payment.

use crate::domain::access::Caller;
use crate::domain::ids::OrderId;
use crate::domain::order::{LineBack, LineItem, Order, OrderDetails, OrderMoney};
use crate::dynamo::codec;
use crate::dynamo::entities::{
    cancellation, fulfilment, line_item, order_charges, order_header, order_return, refund,
};
use crate::dynamo::keys::{Entity, ITEM_PREFIX, ORDER_PARTITION};
use crate::dynamo::query::{Index, KeyQuery};
use crate::{AppError, Store};

impl Store {
    /// The order's header and line items, for a caller who may see the order (`None`
    /// otherwise, as for a missing order: the route admits its owner and staff,
    /// `Admits::OrderOwner`): ONE Query on the order's partition. The only way to read an order
    /// from outside the store: there is no read that does not take the caller.
    ///
    /// ```compile_fail
    /// # async fn unchecked(store: &shared::Store, id: &shared::domain::ids::OrderId) {
    /// let _ = store.read_order(id).await; // private: an order is read for a caller
    /// # }
    /// ```
    /// ```compile_fail
    /// # async fn unchecked(store: &shared::Store, id: &shared::domain::ids::OrderId) {
    /// let _ = store.read_header(id).await; // private too
    /// # }
    /// ```
    pub async fn get_order(
        &self,
        order: &OrderId,
        caller: &Caller,
    ) -> Result<Option<OrderDetails>, AppError> {
        Ok(self
            .read_order(order)
            .await?
            .filter(|details| caller.may_see_order(Some(&details.order.customer_id))))
    }

    /// The order as [`Store::get_order`] reads it for `caller`, or the 404 a missing order (or
    /// one the caller may not see) is answered with: the one read-or-404 of the handlers.
    pub async fn order_for(
        &self,
        order: &OrderId,
        caller: &Caller,
    ) -> Result<OrderDetails, AppError> {
        self.get_order(order, caller)
            .await?
            .ok_or_else(|| AppError::not_found(format!("order {order} does not exist")))
    }

    /// The order's header and line items, whoever asks (the store's own work: a hold's end):
    /// ONE strongly consistent Query on the order's partition. The caps on what an order holds
    /// (its lines, fulfilments, corrections, returns, cancellations and refunds, and the bytes
    /// of their text) keep the partition under the 1 MB one page returns; should one ever pass
    /// it all the same, the read follows `LastEvaluatedKey` rather than lose the header.
    pub(crate) async fn read_order(
        &self,
        order: &OrderId,
    ) -> Result<Option<OrderDetails>, AppError> {
        let items = KeyQuery::on(Index::Table, order_header::pk(order))
            .read_all(self, true)
            .await?;
        let mut found = None;
        let mut lines = Vec::new();
        let mut fulfilments = Vec::new();
        let mut cancellations = Vec::new();
        let mut returns = Vec::new();
        let mut charged = None;
        let mut money = OrderMoney::default();
        for item in items {
            let sk = codec::SK.get(&item).unwrap_or_default();
            match ORDER_PARTITION.entity_of(&sk) {
                Some(Entity::OrderHeader) => {
                    money.balance = order_header::balance(&item);
                    money.lines_version = order_header::lines_version(&item);
                    let mut item = item;
                    charged = order_charges::take(&mut item)?.map(Box::new);
                    found = Some(order_header::from_item(item)?);
                }
                Some(Entity::LineItem) => {
                    let back = line_item::back(&item);
                    let line = line_item::from_item(item)?;
                    if back != LineBack::default() {
                        money.lines.insert(line.sku.clone(), back);
                    }
                    lines.push(line);
                }
                Some(Entity::OrderRefund) => money.refunds.push(refund::from_item(item)?),
                Some(Entity::Fulfilment) => fulfilments.push(fulfilment::from_item(item)?.2),
                Some(Entity::Cancellation) => {
                    cancellations.push(cancellation::from_item(item)?.2);
                }
                Some(Entity::OrderReturn) => returns.push(order_return::from_item(item)?.2),
                _ => {}
            }
        }
        // Their IDs are named by the requests' keys, so the partition's order is not time's.
        fulfilments.sort_by(|a, b| {
            (a.shipped_at, &a.fulfilment_id).cmp(&(b.shipped_at, &b.fulfilment_id))
        });
        cancellations.sort_by(|a, b| {
            (a.cancelled_at, &a.cancellation_id).cmp(&(b.cancelled_at, &b.cancellation_id))
        });
        returns.sort_by(|a, b| (a.requested_at, &a.return_id).cmp(&(b.requested_at, &b.return_id)));
        Ok(found.map(|order| {
            let mut details = OrderDetails {
                order,
                items: lines,
                fulfilments,
                cancellations,
                returns,
                charged,
                money: Box::new(money),
            };
            details.show_refunds_of_returns();
            details
        }))
    }

    /// The order's header alone (one strongly consistent GetItem): what a payment is judged
    /// against.
    pub(crate) async fn read_header(&self, order: &OrderId) -> Result<Option<Order>, AppError> {
        let item = self.get_consistent(order_header::key(order)).await?;
        Ok(item.map(order_header::from_item).transpose()?)
    }
}

impl Store {
    /// What `order` was placed with: its line items (one strongly consistent Query of its
    /// lines), for the event that tells of its placing. Never a caller's read.
    pub async fn placed_lines(&self, order: &OrderId) -> Result<Vec<LineItem>, AppError> {
        KeyQuery::on(Index::Table, line_item::pk(order))
            .begins_with(ITEM_PREFIX)
            .read_all(self, true)
            .await?
            .into_iter()
            .map(|item| line_item::from_item(item).map_err(AppError::from))
            .collect()
    }
}
