//! An order's money, worked out from the order as read: what a staff refund gives back
//! ([`RefundPlan`], checked against the balance and the lines), and the ledger
//! `GET /orders/{orderId}/payments` shows ([`Ledger`]).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::AppError;
use crate::domain::currency::Currency;
use crate::domain::ids::{OrderId, PaymentId};
use crate::domain::order::{LineItem, LineQuantity, OrderDetails};
use crate::domain::pricing::cents::scale;
use crate::domain::refund::{MAX_REFUNDS_PER_ORDER, Refund, RefundAsk, RefundKind};

/// A staff refund, checked against the order as read: what it gives back and of which lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundPlan {
    /// In the smallest unit.
    pub amount: i64,
    /// The lines it gives back.
    pub lines: Vec<PlannedLine>,
    /// Whether the lines go back into stock.
    pub restock: bool,
    /// Of `amount`, what gives back the shipping (a cancellation of everything before it
    /// shipped).
    pub shipping: i64,
}

/// One line of a staff refund, as the order was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedLine {
    /// The order's line.
    pub line: LineItem,
    /// How many of it are refunded.
    pub quantity: u32,
    /// How many of those go back into stock: with restock, those of them no cancellation,
    /// refund or earlier restock put back already (each unit goes back once).
    pub restock: u32,
    /// How many of the line were back in stock when the order was read: the refund counts
    /// on it, so two writers never both put the same unit back.
    pub restocked: u32,
    /// How many of those will never ship: the units refunded are taken from what was left to
    /// ship first (a refund of units already shipped leaves the rest to ship).
    pub cancelled: u32,
    /// How many of the line came back in a return (its receipt): the customer no longer keeps
    /// them, refunded or not.
    pub returned: u32,
}

/// Why a refund is requested: its kind, its reason, and what caused it.
#[derive(Debug, Clone, Copy)]
pub struct RefundCause<'a> {
    /// What it gives back.
    pub kind: RefundKind,
    /// Why, in staff's (or the customer's) words.
    pub reason: &'a str,
    /// The cancellation of lines that requested it.
    pub cancellation: Option<&'a crate::domain::ids::CancellationId>,
    /// The return whose receipt requested it.
    pub order_return: Option<&'a crate::domain::ids::ReturnId>,
}

impl RefundPlan {
    /// The refund this plan requests of `details` under `id`, for `cause`: the lines it
    /// refunds (those with a quantity), whether they go back into stock, its amount in
    /// `currency`. `None` when the order was never paid.
    pub fn requested(
        &self,
        details: &OrderDetails,
        id: crate::domain::ids::RefundId,
        cause: RefundCause<'_>,
        currency: &Currency,
    ) -> Option<Refund> {
        let payment = details.order.payment_id.clone()?;
        Some(Refund {
            lines: self
                .lines
                .iter()
                .filter(|planned| planned.quantity > 0)
                .map(|planned| LineQuantity {
                    sku: planned.line.sku.clone(),
                    quantity: planned.quantity,
                })
                .collect(),
            restock: self.restock,
            shipping: self.shipping,
            cancellation_id: cause.cancellation.cloned(),
            return_id: cause.order_return.cloned(),
            ..Refund::requested(
                id,
                Some(details.order.order_id.clone()),
                payment,
                self.amount,
                currency.as_str(),
                cause.kind,
                cause.reason.to_owned(),
            )
        })
    }

    /// What of the order's total, at the prices ordered, the plan takes from what the customer
    /// keeps: its units that will never ship, and those that came back in a return.
    pub fn withdrawn(&self) -> crate::domain::money::Money {
        crate::domain::money::Money::new(
            self.lines
                .iter()
                .map(|planned| {
                    planned.line.price.amount()
                        * crate::domain::money::Decimal::from(planned.cancelled + planned.returned)
                })
                .sum(),
        )
    }
}

impl OrderDetails {
    /// What was paid for `line`, all its units, in `currency`'s smallest unit: its price ×
    /// quantity, less its discount, plus its tax where prices exclude it (an order placed
    /// before carts were priced has neither: its price × quantity).
    pub(crate) fn paid_for_line(
        &self,
        currency: &Currency,
        line: &LineItem,
    ) -> Result<i64, AppError> {
        let out_of_range = || AppError::invalid("the refund's amount is out of range");
        let subtotal = currency
            .minor_units(line.price)?
            .checked_mul(i64::from(line.quantity))
            .ok_or_else(out_of_range)?;
        let discount = line.discount.map(|d| currency.minor_units(d)).transpose()?;
        let taxed = !self.charged.as_ref().is_some_and(|c| c.prices_include_tax);
        let tax = match line.tax {
            Some(tax) if taxed => currency.minor_units(tax)?,
            _ => 0,
        };
        Ok((subtotal - discount.unwrap_or(0) + tax).max(0))
    }

    /// `amount` with what `units` more of `line` give back added, `before` of its units given
    /// back already: their share of what was paid for the line, counted so that the shares of
    /// all its units add up to exactly what was paid for it (`scale`, half away from zero, of
    /// the units given back so far, less that of those before). Never more than was paid.
    pub(crate) fn plus_units(
        &self,
        amount: i64,
        currency: &Currency,
        line: &LineItem,
        (before, units): (u32, u32),
    ) -> Result<i64, AppError> {
        let paid = self.paid_for_line(currency, line)?;
        let quantity = i128::from(line.quantity.max(1));
        let share = |units: u32| scale(paid, i128::from(units.min(line.quantity)), quantity);
        amount
            .checked_add(share(before + units) - share(before))
            .ok_or_else(|| AppError::invalid("the refund's amount is out of range"))
    }

    /// What was paid for the shipping, in `currency`'s smallest unit: its charge after its
    /// discount, plus its tax where prices exclude it; 0 for an order without shipping.
    pub(crate) fn paid_for_shipping(&self, currency: &Currency) -> Result<i64, AppError> {
        let Some(charged) = &self.charged else {
            return Ok(0);
        };
        let tax = if charged.prices_include_tax {
            0
        } else {
            currency.minor_units(charged.figures.shipping_tax)?
        };
        Ok(currency.minor_units(charged.figures.shipping)? + tax)
    }
}

impl OrderDetails {
    /// Of `units` of `line` given back, how many are refunded: none unless the order was
    /// paid (`pays`), and never past what of the line no refund gave back yet.
    pub(crate) fn refundable_units(&self, line: &LineItem, units: u32, pays: bool) -> u32 {
        let refunded = self.money.back(&line.sku).refunded;
        if pays {
            units.min(line.quantity.saturating_sub(refunded))
        } else {
            0
        }
    }
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
            return Err(AppError::CapReached(format!(
                "order {} has had {MAX_REFUNDS_PER_ORDER} refunds, the most one order may have",
                details.order.order_id
            )));
        }
        let plan = match self {
            RefundAsk::Amount(amount) => RefundPlan {
                amount: *amount,
                lines: Vec::new(),
                restock: false,
                shipping: 0,
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
    asked: &[LineQuantity],
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
        amount = details.plus_units(amount, currency, line, (back.refunded, ask.quantity))?;
        // Units refunded are taken from what was left to ship first; only those never leave
        // the shelf, so only those may go back into stock, and only those not back already
        // (each unit once). A shipped unit comes back through a return's receipt, if at all.
        let cancelled = ask.quantity.min(details.shippable(line));
        let out_of_stock = line.quantity.saturating_sub(back.restocked);
        lines.push(PlannedLine {
            line: line.clone(),
            quantity: ask.quantity,
            restock: if restock {
                cancelled.min(out_of_stock)
            } else {
                0
            },
            restocked: back.restocked,
            cancelled,
            returned: 0,
        });
    }
    if restock && lines.iter().all(|planned| planned.cancelled == 0) {
        return Err(AppError::LinesRefused(
            "restock puts back units that never shipped, and these were all shipped: they come \
             back into stock through a return's receipt; refund them without restock"
                .to_owned(),
        ));
    }
    Ok(RefundPlan {
        amount,
        lines,
        restock,
        shipping: 0,
    })
}

/// An order's money, as its ledger shows it (`GET /orders/{orderId}/payments`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    /// Which order.
    pub order_id: OrderId,
    /// The store's currency: `paid`, `refunded` and `refundable` are in its smallest unit.
    pub currency: String,
    /// Everything collected for the order in its currency: the payment that placed it, and any
    /// that placed nothing.
    pub paid: i64,
    /// Everything sent or to be sent back in its currency (every refund that has not FAILED or
    /// been REVERSED).
    pub refunded: i64,
    /// What staff may still give back of the payment that placed it.
    pub refundable: i64,
    /// The same sums for payments in any other currency (they placed nothing, and each is
    /// given back whole), one per currency, in currency order: never added to the above.
    pub other_currencies: Vec<CurrencyTotals>,
    /// Each payment.
    pub payments: Vec<LedgerPayment>,
    /// Each refund, in ID order.
    pub refunds: Vec<Refund>,
}

/// What was collected and sent back in one currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencyTotals {
    /// Lowercase ISO 4217.
    pub currency: String,
    /// Collected, in its smallest unit.
    pub paid: i64,
    /// Sent or to be sent back, in its smallest unit.
    pub refunded: i64,
}

/// One payment of an order's ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerPayment {
    /// The provider's payment.
    pub payment_id: PaymentId,
    /// What it collected, in the smallest unit of `currency`.
    pub amount: i64,
    /// Lowercase ISO 4217.
    pub currency: String,
    /// `applied` (it placed the order) or `returned` (it placed nothing: its refund is listed).
    pub status: &'static str,
}

impl Ledger {
    /// The ledger of `details` in `currency`.
    pub fn of(details: &OrderDetails, currency: &Currency) -> Self {
        let order = &details.order;
        let balance = details.money.balance;
        let ours = currency.as_str();
        let mut payments = Vec::new();
        if let (Some(payment), Some(paid)) = (&order.payment_id, balance.paid) {
            payments.push(LedgerPayment {
                payment_id: payment.clone(),
                amount: paid,
                currency: ours.to_owned(),
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
                    currency: refund.currency.to_ascii_lowercase(),
                    status: "returned",
                }),
        );
        let mut totals = totals(&payments, refunds);
        let mine = totals.remove(ours);
        Ledger {
            order_id: order.order_id.clone(),
            currency: ours.to_owned(),
            paid: mine.as_ref().map_or(0, |t| t.paid),
            refunded: mine.as_ref().map_or(0, |t| t.refunded),
            refundable: balance.refundable,
            other_currencies: totals.into_values().collect(),
            payments,
            refunds: refunds.clone(),
        }
    }
}

/// What was collected and sent back in each currency of `payments` and `refunds`.
fn totals(payments: &[LedgerPayment], refunds: &[Refund]) -> BTreeMap<String, CurrencyTotals> {
    fn of<'a>(
        totals: &'a mut BTreeMap<String, CurrencyTotals>,
        currency: &str,
    ) -> &'a mut CurrencyTotals {
        let currency = currency.to_ascii_lowercase();
        totals
            .entry(currency.clone())
            .or_insert_with(|| CurrencyTotals {
                currency,
                paid: 0,
                refunded: 0,
            })
    }
    let mut totals = BTreeMap::new();
    for payment in payments {
        of(&mut totals, &payment.currency).paid += payment.amount;
    }
    for refund in refunds.iter().filter(|r| !r.status.gave_nothing_back()) {
        of(&mut totals, &refund.currency).refunded += refund.amount;
    }
    totals
}
