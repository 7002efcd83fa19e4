//! What an event's email says, and its sending through SES v2 (`SendEmail`, plain text).

use std::fmt::Write;

use aws_sdk_sesv2::operation::send_email::SendEmailError;
use aws_sdk_sesv2::types::{Body, Content, Destination, EmailContent, Message};
use shared::domain::currency::major_units;
use shared::domain::email::EmailState;
use shared::domain::event::{EventType, StoreEvent};
use shared::domain::fulfilment::Tracking;
use shared::domain::money::Money;
use shared::domain::order::{LineItem, LineQuantity};

/// One email: its subject and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email {
    /// The subject line.
    pub subject: String,
    /// The text.
    pub text: String,
}

/// The email of `event` (`currency`: the store's, in which orders' totals are), or `None`
/// when the event carries too little to write about.
pub(crate) fn email(event: &StoreEvent, currency: &str) -> Option<Email> {
    match event.kind {
        EventType::Placed => placed(event, &currency.to_uppercase()),
        EventType::Cancelled => cancelled(event),
        EventType::FulfilmentShipped => parcel(event, Parcel::Shipped),
        EventType::TrackingUpdated => parcel(event, Parcel::Tracking),
        EventType::FulfilmentDelivered => parcel(event, Parcel::Delivered),
        EventType::CancellationRecorded => lines_cancelled(event),
        EventType::ReturnApproved => return_decided(event, true),
        EventType::ReturnDeclined => return_decided(event, false),
        EventType::RefundSucceeded => refund_paid(event),
        _ => None,
    }
}

/// An order placed: its lines and total, and (a checked-out order's) what makes the total: its
/// subtotal, discount, shipping and tax.
fn placed(event: &StoreEvent, currency: &str) -> Option<Email> {
    let order = event.order.as_ref()?;
    let mut text = format!(
        "Thank you for your order {}, placed {}.\n\n",
        order.order_id, order.placed_at
    );
    for line in event.lines.iter().flatten() {
        let _ = writeln!(text, "  {} at {} {currency}", line.text(), line.price);
    }
    text.push('\n');
    if let Some(charged) = &event.charged {
        let zero = Money::default();
        let parts = [
            ("Subtotal", Some(charged.figures.subtotal)),
            (
                "Discount",
                (charged.figures.discount != zero).then_some(charged.figures.discount),
            ),
            ("Shipping", Some(charged.figures.shipping)),
            (
                "Tax",
                (!charged.prices_include_tax).then_some(charged.figures.tax),
            ),
        ];
        for (label, amount) in parts {
            if let Some(amount) = amount {
                let sign = if label == "Discount" { "-" } else { "" };
                let _ = writeln!(text, "{label}: {sign}{amount} {currency}");
            }
        }
        if charged.prices_include_tax {
            let _ = writeln!(text, "Tax included: {} {currency}", charged.figures.tax);
        }
    }
    let _ = writeln!(text, "Total: {} {currency}", order.total);
    Some(Email {
        subject: format!("Your order {} is placed", order.order_id),
        text,
    })
}

/// An order cancelled whole.
fn cancelled(event: &StoreEvent) -> Option<Email> {
    let order = event.order.as_ref()?;
    Some(Email {
        subject: format!("Your order {} is cancelled", order.order_id),
        text: format!(
            "We cancelled your order {}, placed {}. If you paid for it, what you paid \
             comes back to your card; we write again when it has.\n",
            order.order_id, order.placed_at
        ),
    })
}

/// What happened to a parcel.
#[derive(Clone, Copy)]
enum Parcel {
    Shipped,
    Tracking,
    Delivered,
}

/// A parcel shipped (what it carries and how to follow it), its tracking corrected (the same,
/// anew), or delivered (what it carried).
fn parcel(event: &StoreEvent, what: Parcel) -> Option<Email> {
    let order = event.order_id.as_ref()?;
    let fulfilment = event.fulfilment.as_ref()?;
    let (subject, mut text) = match what {
        Parcel::Shipped => (
            format!("Your order {order} is on its way"),
            format!("Part of your order {order} is on its way:\n\n"),
        ),
        Parcel::Tracking => (
            format!("New tracking for your order {order}"),
            format!("The tracking of a parcel of your order {order} has changed. It carries:\n\n"),
        ),
        Parcel::Delivered => (
            format!("Your order {order} was delivered"),
            format!("A parcel of your order {order} was delivered. It carried:\n\n"),
        ),
    };
    lines(&mut text, &fulfilment.lines, event.lines.as_deref());
    if !matches!(what, Parcel::Delivered) {
        tracking(&mut text, &fulfilment.tracking);
    }
    Some(Email { subject, text })
}

/// Lines cancelled before they shipped.
fn lines_cancelled(event: &StoreEvent) -> Option<Email> {
    let order = event.order_id.as_ref()?;
    let cancellation = event.cancellation.as_ref()?;
    let mut text = format!("We cancelled part of your order {order}:\n\n");
    lines(&mut text, &cancellation.lines, event.lines.as_deref());
    text.push_str(
        "\nThese will not ship. If you paid for them, what you paid comes back to your \
         card; we write again when it has.\n",
    );
    Some(Email {
        subject: format!("Part of your order {order} is cancelled"),
        text,
    })
}

/// A return approved (send the units back) or declined.
fn return_decided(event: &StoreEvent, approved: bool) -> Option<Email> {
    let order = event.order_id.as_ref()?;
    let asked = event.order_return.as_ref()?;
    let decided = if approved { "approved" } else { "declined" };
    let mut text = format!(
        "Your return {} of order {order} is {decided}:\n\n",
        asked.return_id
    );
    lines(&mut text, &asked.lines, event.lines.as_deref());
    text.push_str(if approved {
        "\nSend these back to us; we refund what arrives once it does.\n"
    } else {
        "\nWe cannot take these back. Reply to this email if you think we are wrong.\n"
    });
    Some(Email {
        subject: format!("Your return for order {order} is {decided}"),
        text,
    })
}

/// A refund paid back, in its own currency.
fn refund_paid(event: &StoreEvent) -> Option<Email> {
    let refund = event.refund.as_ref()?;
    let amount = major_units(refund.amount, &refund.currency);
    let of_order = refund
        .order_id
        .as_ref()
        .map(|order| format!(" for order {order}"))
        .unwrap_or_default();
    let currency = refund.currency.to_uppercase();
    Some(Email {
        subject: format!("We refunded {amount} {currency}{of_order}"),
        text: format!(
            "We paid {amount} {currency}{of_order} back to the card you paid with. \
             Your bank may take a few days to show it.\n"
        ),
    })
}

/// Each of `lines`, one a line, as bought (the order's lines the event carries):
/// `  2 × Plain tee (M, Blue)`; `  2 × sku-2` for a line the order kept no title of.
fn lines(text: &mut String, lines: &[LineQuantity], bought: Option<&[LineItem]>) {
    for line in lines {
        let as_bought = bought
            .into_iter()
            .flatten()
            .find(|item| item.sku == line.sku);
        let shown = match as_bought {
            Some(item) => LineItem {
                quantity: line.quantity,
                ..item.clone()
            }
            .text(),
            None => LineItem::untitled(line.sku.clone(), line.quantity, Default::default()).text(),
        };
        let _ = writeln!(text, "  {shown}");
    }
}

/// How to follow a parcel: its carrier and its number, each told whether or not the other is
/// known, and where to look it up.
fn tracking(text: &mut String, tracking: &Tracking) {
    match (&tracking.carrier, &tracking.tracking_number) {
        (Some(carrier), Some(number)) => {
            let _ = writeln!(text, "\nCarrier: {carrier}, tracking number {number}");
        }
        (Some(carrier), None) => {
            let _ = writeln!(text, "\nCarrier: {carrier}");
        }
        (None, Some(number)) => {
            let _ = writeln!(text, "\nTracking number: {number}");
        }
        (None, None) => {}
    }
    if let Some(url) = &tracking.tracking_url {
        let _ = writeln!(text, "Follow it at {url}");
    }
}

/// `email` sent from `sender` to `to`: the mail service's message ID; or, for good, why not
/// (`Refused`: the service rejects the message or its address); or (`Err`) why not yet.
pub(crate) async fn send(
    ses: &aws_sdk_sesv2::Client,
    sender: &str,
    to: &str,
    email: &Email,
) -> Result<Result<String, (EmailState, String)>, String> {
    let text = |data: &str| {
        Content::builder()
            .data(data)
            .charset("UTF-8")
            .build()
            .map_err(|err| err.to_string())
    };
    let message = Message::builder()
        .subject(text(&email.subject)?)
        .body(Body::builder().text(text(&email.text)?).build())
        .build();
    let sent = ses
        .send_email()
        .from_email_address(sender)
        .destination(Destination::builder().to_addresses(to).build())
        .content(EmailContent::builder().simple(message).build())
        .send()
        .await;
    match sent {
        Ok(out) => Ok(Ok(out.message_id().unwrap_or_default().to_owned())),
        Err(err) => {
            let why = aws_sdk_sesv2::error::DisplayErrorContext(&err).to_string();
            match err.as_service_error() {
                Some(
                    SendEmailError::MessageRejected(_) | SendEmailError::BadRequestException(_),
                ) => Ok(Err((EmailState::Refused, why))),
                _ => Err(why),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::domain::event::Subject;
    use shared::domain::fulfilment::{Fulfilment, Tracking};
    use shared::domain::ids::{CustomerId, FulfilmentId, OrderId, PaymentId, RefundId, Sku};
    use shared::domain::money::Money;
    use shared::domain::order::Order;
    use shared::domain::refund::{Refund, RefundKind};
    use shared::domain::status::OrderStatus;
    use shared::domain::time::Timestamp;

    fn placed_order() -> Order {
        Order {
            order_id: OrderId::parse("o1").expect("id"),
            customer_id: CustomerId::parse("c1").expect("id"),
            placed_at: Timestamp::parse("2026-12-04T10:00:00Z").expect("time"),
            status: OrderStatus::Placed,
            total: Money::parse_number("44.9").expect("money"),
            hold_until: None,
            payment_intent_id: None,
            payment_id: None,
            payment_error: None,
            dispute: None,
            withdrawn: None,
        }
    }

    /// `quantity` of sku-1, a Plain tee in M and Blue at 19.95, as bought.
    fn tee(quantity: u32) -> LineItem {
        LineItem {
            title: Some("Plain tee".into()),
            options: shared::domain::product::OptionValues(vec![
                ("Size".into(), "M".into()),
                ("Colour".into(), "Blue".into()),
            ]),
            ..LineItem::untitled(
                Sku::parse("sku-1").expect("sku"),
                quantity,
                Money::parse_number("19.95").expect("money"),
            )
        }
    }

    fn at() -> Timestamp {
        Timestamp::parse("2026-12-04T10:00:01Z").expect("time")
    }

    #[test]
    fn an_order_placed_is_told_with_its_lines_and_total() {
        let order = placed_order();
        let mut event = StoreEvent::new(
            EventType::Placed,
            &Subject::Order(order.order_id.clone()),
            2,
            at(),
        )
        .about_order(&order);
        event.lines = Some(vec![
            tee(2),
            // A line kept before orders kept what was bought: its SKU.
            LineItem::untitled(
                Sku::parse("sku-2").expect("sku"),
                1,
                Money::parse_number("5").expect("money"),
            ),
        ]);
        let email = email(&event, "usd").expect("an email");
        assert_eq!(email.subject, "Your order o1 is placed");
        assert_eq!(
            email.text,
            "Thank you for your order o1, placed 2026-12-04T10:00:00Z.\n\n  2 × Plain tee (M, Blue) at 19.95 USD\n  1 × sku-2 at 5.00 USD\n\nTotal: 44.90 USD\n"
        );
    }

    #[test]
    fn a_checked_out_order_is_told_with_what_makes_its_total() {
        let mut order = placed_order();
        order.total = Money::parse_number("58.06").expect("money");
        let mut event = StoreEvent::new(
            EventType::Placed,
            &Subject::Order(order.order_id.clone()),
            2,
            at(),
        )
        .about_order(&order);
        event.charged = Some(
            serde_json::from_value(serde_json::json!({
                "subtotal": "43.95", "discount": "4.40", "shipping": "15.00",
                "shippingDiscount": "0.00", "shippingTax": "0.00", "tax": "3.51",
                "pricesIncludeTax": false,
            }))
            .expect("charged"),
        );
        let email = email(&event, "usd").expect("an email");
        assert!(
            email.text.ends_with(
                "Subtotal: 43.95 USD\nDiscount: -4.40 USD\nShipping: 15.00 USD\nTax: 3.51 USD\nTotal: 58.06 USD\n"
            ),
            "{}",
            email.text
        );
    }

    #[test]
    fn a_refund_paid_is_told_in_its_own_currency() {
        let refund = Refund {
            status: shared::domain::refund::RefundStatus::Succeeded,
            ..Refund::requested(
                RefundId::parse("rf_1").expect("id"),
                Some(OrderId::parse("o1").expect("id")),
                PaymentId::parse("pi_1").expect("id"),
                1500,
                "eur",
                RefundKind::Staff,
                "damaged".into(),
            )
        };
        let event = StoreEvent::new(
            EventType::RefundSucceeded,
            &Subject::Refund(refund.refund_id.clone()),
            2,
            at(),
        )
        .about_refund(&refund);
        let email = email(&event, "usd").expect("an email");
        assert_eq!(email.subject, "We refunded 15.00 EUR for order o1");
        let shipped = StoreEvent::new(
            EventType::FulfilmentShipped,
            &Subject::Fulfilment(FulfilmentId::parse("ff_1").expect("id")),
            1,
            at(),
        );
        assert_eq!(
            super::email(&shipped, "usd"),
            None,
            "no shipment to tell of"
        );
    }

    #[test]
    fn a_shipment_is_told_with_what_it_carries_and_how_to_follow_it() {
        let fulfilment = Fulfilment::shipped(
            FulfilmentId::parse("ff_1").expect("id"),
            vec![LineQuantity {
                sku: Sku::parse("sku-1").expect("sku"),
                quantity: 2,
            }],
            Tracking {
                carrier: Some("DHL".into()),
                tracking_number: Some("JD0001".into()),
                tracking_url: Some("https://www.dhl.com/track?id=JD0001".into()),
            },
            at(),
        );
        let mut event = StoreEvent::new(
            EventType::FulfilmentShipped,
            &Subject::Fulfilment(fulfilment.fulfilment_id.clone()),
            1,
            at(),
        )
        .about_fulfilment(
            &OrderId::parse("o1").expect("id"),
            &CustomerId::parse("c1").expect("id"),
            &fulfilment,
        );
        // The order's lines as bought: 3 tees, of which this parcel carries 2.
        event.lines = Some(vec![tee(3)]);
        let email = email(&event, "usd").expect("an email");
        assert_eq!(email.subject, "Your order o1 is on its way");
        assert_eq!(
            email.text,
            "Part of your order o1 is on its way:\n\n  2 × Plain tee (M, Blue)\n\nCarrier: DHL, tracking number JD0001\nFollow it at https://www.dhl.com/track?id=JD0001\n"
        );

        // Round five: a number without a carrier is still told; a correction and a delivery
        // are told too.
        let mut numbered = fulfilment.clone();
        numbered.tracking.carrier = None;
        numbered.tracking.tracking_url = None;
        let about = |kind, f: &Fulfilment| {
            StoreEvent::new(kind, &Subject::Fulfilment(f.fulfilment_id.clone()), 2, at())
                .about_fulfilment(
                    &OrderId::parse("o1").expect("id"),
                    &CustomerId::parse("c1").expect("id"),
                    f,
                )
        };
        let shipped =
            super::email(&about(EventType::FulfilmentShipped, &numbered), "usd").expect("email");
        assert!(
            shipped.text.ends_with("\nTracking number: JD0001\n"),
            "{}",
            shipped.text
        );
        let corrected =
            super::email(&about(EventType::TrackingUpdated, &numbered), "usd").expect("email");
        assert_eq!(corrected.subject, "New tracking for your order o1");
        assert!(
            corrected.text.contains("Tracking number: JD0001"),
            "{}",
            corrected.text
        );
        let delivered =
            super::email(&about(EventType::FulfilmentDelivered, &numbered), "usd").expect("email");
        assert_eq!(delivered.subject, "Your order o1 was delivered");
        // Without the lines as bought (an order kept before titles), the SKU.
        assert!(delivered.text.contains("  2 × sku-1"), "{}", delivered.text);
    }

    #[test]
    fn every_kind_customers_hear_of_has_its_email() {
        use shared::domain::cancellation::Cancellation;
        use shared::domain::ids::{CancellationId, ReturnId};
        use shared::domain::returns::OrderReturn;
        let order = placed_order();
        let customer = &order.customer_id;
        let line = vec![LineQuantity {
            sku: Sku::parse("sku-1").expect("sku"),
            quantity: 1,
        }];
        let fulfilment = Fulfilment::shipped(
            FulfilmentId::parse("ff_1").expect("id"),
            line.clone(),
            Tracking::default(),
            at(),
        );
        let cancellation = Cancellation {
            cancellation_id: CancellationId::parse("cn_1").expect("id"),
            lines: line.clone(),
            reason: "out of stock".into(),
            note: None,
            refund_id: None,
            cancelled_at: at(),
        };
        let asked = OrderReturn::requested(
            ReturnId::parse("rt_1").expect("id"),
            line,
            "too small".into(),
            at(),
        );
        let refund = Refund::requested(
            RefundId::parse("rf_1").expect("id"),
            Some(order.order_id.clone()),
            PaymentId::parse("pi_1").expect("id"),
            100,
            "usd",
            RefundKind::Staff,
            "x".into(),
        );
        for kind in EventType::ALL.into_iter().filter(|k| k.emails_customer()) {
            let subject = Subject::Order(order.order_id.clone());
            let event = StoreEvent::new(kind, &subject, 1, at());
            let event = match kind {
                EventType::Placed | EventType::Cancelled => {
                    let mut event = event.about_order(&order);
                    event.lines = Some(Vec::new());
                    event
                }
                EventType::FulfilmentShipped
                | EventType::TrackingUpdated
                | EventType::FulfilmentDelivered => {
                    event.about_fulfilment(&order.order_id, customer, &fulfilment)
                }
                EventType::CancellationRecorded => {
                    event.about_cancellation(&order.order_id, customer, &cancellation)
                }
                EventType::ReturnApproved | EventType::ReturnDeclined => {
                    event.about_return(&order.order_id, customer, &asked)
                }
                _ => event.about_refund(&refund),
            };
            let told = email(&event, "usd").unwrap_or_else(|| panic!("{kind} has no email"));
            assert!(told.subject.contains("o1"), "{kind}: {}", told.subject);
            assert!(!told.text.is_empty(), "{kind}");
        }
    }
}
