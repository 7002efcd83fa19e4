//! An order's money, worked out from the order as read: what a staff refund gives back
//! ([`RefundPlan`], checked against the balance and the lines), and the ledger
//! `GET /orders/{orderId}/payments` shows ([`Ledger`]).

use serde::Serialize;

use crate::AppError;
use crate::domain::checkout::Currency;
use crate::domain::ids::{OrderId, PaymentId};
use crate::domain::order::{LineItem, OrderDetails};
use crate::domain::refund::{
    MAX_REFUNDS_PER_ORDER, Refund, RefundAsk, RefundKind, RefundLine, RefundStatus,
};

/// A staff refund, checked against the order as read: what it gives back and of which lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundPlan {
    /// In the smallest unit.
    pub amount: i64,
    /// The lines it gives back, with the order's line for each.
    pub lines: Vec<(LineItem, u32)>,
    /// Whether the lines go back into stock.
    pub restock: bool,
}

impl RefundAsk {
    /// What this ask gives back of `details`, in `currency`: a 409 when the order was never
    /// paid, a line would go back past its quantity, or the amount is more than may still go
    /// back; a 400 for a line the order does not have.
    pub fn plan(
        &self,
        details: &OrderDetails,
        currency: &Currency,
    ) -> Result<RefundPlan, AppError> {
        let balance = details.money.balance;
        if balance.paid.is_none() {
            return Err(AppError::RefundRefused(format!(
                "order {} was not paid through the provider: there is nothing to refund",
                details.order.order_id
            )));
        }
        if balance.refund_count >= MAX_REFUNDS_PER_ORDER {
            return Err(AppError::RefundRefused(format!(
                "order {} has had {MAX_REFUNDS_PER_ORDER} refunds, the most one order may have",
                details.order.order_id
            )));
        }
        let plan = match self {
            RefundAsk::Amount(amount) => RefundPlan {
                amount: *amount,
                lines: Vec::new(),
                restock: false,
            },
            RefundAsk::Lines { lines, restock } => plan_lines(details, lines, *restock, currency)?,
        };
        if plan.amount > balance.refundable {
            return Err(AppError::RefundRefused(format!(
                "a refund of {} is more than may still go back of order {}: {} (in the currency's \
                 smallest unit)",
                plan.amount, details.order.order_id, balance.refundable
            )));
        }
        Ok(plan)
    }
}

fn plan_lines(
    details: &OrderDetails,
    asked: &[RefundLine],
    restock: bool,
    currency: &Currency,
) -> Result<RefundPlan, AppError> {
    let mut amount = 0i64;
    let mut lines = Vec::with_capacity(asked.len());
    for ask in asked {
        let line = details
            .items
            .iter()
            .find(|line| line.sku == ask.sku)
            .ok_or_else(|| {
                AppError::invalid(format!(
                    "order {} has no line {}",
                    details.order.order_id, ask.sku
                ))
            })?;
        let back = details.money.back(&ask.sku);
        let left = line.quantity.saturating_sub(back.refunded);
        if ask.quantity > left {
            return Err(AppError::RefundRefused(format!(
                "{} of {} asked back, and only {left} of the line's {} may still go back",
                ask.quantity, ask.sku, line.quantity
            )));
        }
        let price = currency.minor_units(line.price)?;
        amount = price
            .checked_mul(i64::from(ask.quantity))
            .and_then(|line_amount| amount.checked_add(line_amount))
            .ok_or_else(|| AppError::invalid("the refund's amount is out of range"))?;
        lines.push((line.clone(), ask.quantity));
    }
    Ok(RefundPlan {
        amount,
        lines,
        restock,
    })
}

/// An order's money, as its ledger shows it (`GET /orders/{orderId}/payments`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    /// Which order.
    pub order_id: OrderId,
    /// The store's currency: every amount below is in its smallest unit.
    pub currency: String,
    /// Everything collected for the order: the payment that placed it, and any that placed
    /// nothing.
    pub paid: i64,
    /// Everything sent or to be sent back (every refund that has not FAILED).
    pub refunded: i64,
    /// What staff may still give back of the payment that placed it.
    pub refundable: i64,
    /// Each payment.
    pub payments: Vec<LedgerPayment>,
    /// Each refund, in ID order.
    pub refunds: Vec<Refund>,
}

/// One payment of an order's ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerPayment {
    /// The provider's payment.
    pub payment_id: PaymentId,
    /// What it collected, in the smallest unit.
    pub amount: i64,
    /// `applied` (it placed the order) or `returned` (it placed nothing: its refund is listed).
    pub status: &'static str,
}

impl Ledger {
    /// The ledger of `details` in `currency`.
    pub fn of(details: &OrderDetails, currency: &Currency) -> Self {
        let order = &details.order;
        let balance = details.money.balance;
        let mut payments = Vec::new();
        if let (Some(payment), Some(paid)) = (&order.payment_id, balance.paid) {
            payments.push(LedgerPayment {
                payment_id: payment.clone(),
                amount: paid,
                status: "applied",
            });
        }
        let refunds = &details.money.refunds;
        payments.extend(
            refunds
                .iter()
                .filter(|refund| refund.kind == RefundKind::Payment)
                .map(|refund| LedgerPayment {
                    payment_id: refund.payment_id.clone(),
                    amount: refund.amount,
                    status: "returned",
                }),
        );
        let refunded = refunds
            .iter()
            .filter(|refund| refund.status != RefundStatus::Failed)
            .map(|refund| refund.amount)
            .sum();
        Ledger {
            order_id: order.order_id.clone(),
            currency: currency.as_str().to_owned(),
            paid: payments.iter().map(|payment| payment.amount).sum(),
            refunded,
            refundable: balance.refundable,
            payments,
            refunds: refunds.clone(),
        }
    }
}
