//! An order's returns written: a return asked for, in ONE transaction with the header's lines
//! version moved on (only if still the one read: two returns of the last returnable units, or a
//! return and another change of the lines, never both count on the same read); or a return
//! moved (approved, declined, canceled) on the condition that its event counter is still the
//! one read. Its receipt goes through [`Store::give_back`]: the lines, the stock and the refund
//! in the return's own transaction.

use crate::domain::access::Caller;
use crate::domain::order::OrderDetails;
use crate::domain::page::{Page, PageRequest};
use crate::domain::returns::{ListedReturn, OrderReturn, ReturnStatus};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::text;
use crate::dynamo::entities::{order_header, order_return};
use crate::dynamo::errors::unless_condition_failed;
use crate::dynamo::keys::{Entity, GSI1PK, GSI1SK, PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::{AppError, Store};

/// What writing a return came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnWritten {
    /// Written.
    Written,
    /// A return of this ID was asked for already (a retried request): as it stands.
    Exists,
    /// Another change of the order's lines or of the return came first: read again.
    Changed,
}

/// What each action of a return's transaction is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    NewReturn,
    Header,
}

impl Store {
    /// Access pattern 11: the returns in `status`, oldest first (ONE Query on GSI1,
    /// `RETURNS#<status>`, per page).
    pub async fn list_returns(
        &self,
        status: ReturnStatus,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<ListedReturn>, AppError> {
        let query = KeyQuery::on(Index::Gsi1, order_return::gsi1pk(status));
        let start = query.open(caller, page.cursor.as_deref(), |key| {
            is_return_position(key, status)
        })?;
        query
            .read_page(self, caller, page, start, order_return::listed)
            .await
    }

    /// `asked` of `details` (checked against the order as read,
    /// [`OrderDetails::check_return`]), recorded in ONE TransactWriteItems with the header's
    /// lines version moved on.
    pub async fn request_return(
        &self,
        details: &OrderDetails,
        asked: &OrderReturn,
    ) -> Result<ReturnWritten, AppError> {
        let order = &details.order;
        let mut transaction = Transaction::with_capacity(2);
        let record = order_return::PUT
            .put(
                &self.table,
                order_return::to_item(&order.order_id, &order.customer_id, asked),
            )
            .only_new();
        transaction.put(Action::NewReturn, record.build()?)?;
        let lines = order_header::lines_changed(
            order_header::LINES_CHANGE.on(&self.table, order_header::key(&order.order_id)),
            details.money.lines_version,
        );
        transaction.update(Action::Header, lines.build()?)?;
        let cancelled = match self.send(transaction).await? {
            Outcome::Committed => return Ok(ReturnWritten::Written),
            Outcome::Cancelled(cancelled) => cancelled,
        };
        if cancelled.condition_failed(|a| *a == Action::NewReturn) {
            return Ok(ReturnWritten::Exists);
        }
        if cancelled.conflicted() || cancelled.condition_failed(|a| *a == Action::Header) {
            return Ok(ReturnWritten::Changed);
        }
        Err(cancelled.unexplained("return"))
    }

    /// `read` of `details` moved to `next` ([`OrderReturn::moved`]): one UpdateItem, on the
    /// condition that its event counter is still `read`'s.
    pub async fn move_return(
        &self,
        details: &OrderDetails,
        read: &OrderReturn,
        next: &OrderReturn,
    ) -> Result<ReturnWritten, AppError> {
        let change = order_return::moved(&self.table, &details.order.order_id, read, next);
        let sent = change.request(&self.client)?.send().await;
        Ok(match unless_condition_failed(sent)? {
            Some(_) => ReturnWritten::Written,
            None => ReturnWritten::Changed,
        })
    }
}

/// Whether `key` (a GSI1 position in the partition of returns in `status`) is byte for byte one
/// the store writes: a return's keys, and a timestamp as the store spells it.
fn is_return_position(key: &Item, status: ReturnStatus) -> bool {
    let (Some(pk), Some(sk), Some(gsi1sk)) = (text(key, PK), text(key, SK), text(key, GSI1SK))
    else {
        return false;
    };
    text(key, GSI1PK) == Some(order_return::gsi1pk(status).as_str())
        && Entity::of(pk, sk) == Some(Entity::OrderReturn)
        && Timestamp::parse(gsi1sk).is_ok_and(|at| at.to_string() == gsi1sk)
}
