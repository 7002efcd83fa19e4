//! Events out, priced: what the publisher and the customers' emails cost in request units per
//! order, how many events and emails an order's life makes (its stream records read through the
//! publisher's own filter and derivation, `shared::dynamo::events`), and what a million orders'
//! events and emails cost at list prices beside their DynamoDB units.

use local_engine::capacity::{US_EAST_1, Units};
use local_engine::runtime_api::Error;
use local_engine::streams::StreamSource;
use shared::domain::event::{EventType, StoreEvent};
use shared::domain::ids::{CustomerId, OrderId};
use shared::dynamo::events::{EventRules, events_of};

use super::{Bench, units_text};

/// us-east-1's list prices, December 2026: EventBridge custom events (per million 64 KB chunks;
/// every event here is one), SES (per thousand emails), SQS standard (per million requests),
/// Lambda (per million requests).
const EVENTS_PER_MILLION: f64 = 1.00;
const SES_PER_THOUSAND: f64 = 0.10;
const SQS_PER_MILLION: f64 = 0.40;
const LAMBDA_PER_MILLION: f64 = 0.20;
/// SQS requests an email's message costs at most: EventBridge's send, Lambda's receive and its
/// delete (a batch of one: Lambda's polls between messages come on top, a fixed cost per queue).
const SQS_REQUESTS_PER_EMAIL: f64 = 3.0;

/// What one order's events come to.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct OrderEvents {
    /// Events its life published.
    pub(super) events: usize,
    /// Stream records that gave them (each at most one publisher invocation).
    pub(super) records: usize,
    /// Emails they make.
    pub(super) emails: usize,
    /// The publisher's units for it: the order's lines read for each event that carries them.
    pub(super) publisher: Units,
}

/// What the events section measured, for the cost table.
#[derive(Debug, Default)]
pub(super) struct EventFigures {
    /// The 1-line order placed, shipped and delivered; the 10-line one placed and cancelled.
    pub(super) orders: Vec<(String, OrderEvents)>,
    /// One email's units: claimed, its address read, finished.
    pub(super) email: Units,
}

/// `order`'s events among `records`' and the records that gave them.
fn of_order(events: &[(usize, StoreEvent)], order: &str) -> (usize, usize) {
    let mine: Vec<&(usize, StoreEvent)> = events
        .iter()
        .filter(|(_, e)| e.order_id.as_ref().is_some_and(|o| o.as_str() == order))
        .collect();
    let mut records: Vec<usize> = mine.iter().map(|(at, _)| *at).collect();
    records.dedup();
    (mine.len(), records.len())
}

impl Bench {
    /// The publisher over every record so far (as its mapping filters them), the orders'
    /// events counted; its units and the email's, measured.
    pub(super) async fn events(
        &mut self,
        publisher_stream: &mut StreamSource,
    ) -> Result<(), Error> {
        let rules = EventRules { low_stock: 5 };
        let mut events = Vec::new();
        for (at, record) in publisher_stream.read_all()?.iter().enumerate() {
            let derived = events_of(record, rules).map_err(|err| err.to_string())?;
            events.extend(derived.into_iter().map(|e| (at, e)));
        }
        let mut figures = EventFigures::default();
        for (label, index) in [
            ("1 line, placed, shipped, delivered", 0),
            ("10 lines, placed, cancelled", 1),
        ] {
            let order = self.figures.placed[index].0.clone();
            let (count, records) = of_order(&events, &order);
            let mine = || {
                events
                    .iter()
                    .filter(|(_, e)| e.order_id.as_ref().is_some_and(|o| o.as_str() == order))
            };
            let emails = mine().filter(|(_, e)| e.kind.emails_customer()).count();
            let with_lines = mine().filter(|(_, e)| e.kind.tells_lines()).count();
            self.meter.take();
            self.store.placed_lines(&OrderId::parse(&order)?).await?;
            let read = self.meter.take_units()?;
            self.row(
                &format!("  publisher, an event carrying the order's lines ({label}): its lines read"),
                read,
                None,
                "one consistent Query each (order.placed, a fulfilment's, a cancellation's, a return's); no other event reads or writes anything",
            );
            let publisher = read.times(with_lines as f64);
            figures.orders.push((
                label.to_owned(),
                OrderEvents {
                    events: count,
                    records,
                    emails,
                    publisher,
                },
            ));
        }
        let placed = events
            .iter()
            .map(|(_, e)| e)
            .find(|e| e.kind == EventType::Placed)
            .ok_or("no order.placed")?;
        figures.email = self.email_units(placed).await?;
        self.events = figures;
        Ok(())
    }

    /// One event's email as the subscriber writes it (claim, address, outcome), and a
    /// redelivery's (the claim refused, the record read): the first's units.
    async fn email_units(&mut self, event: &StoreEvent) -> Result<Units, Error> {
        let lease = std::time::Duration::from_secs(60);
        self.meter.take();
        let shared::dynamo::emails::Claim::Claimed(at) = self
            .store
            .claim_email(&event.event_id, event.kind, lease)
            .await?
        else {
            return Err("the bench's email was claimed already".into());
        };
        self.store.addressee(&CustomerId::parse("c1")?).await?;
        let state = shared::domain::email::EmailState::Sent;
        self.store
            .finish_email(&event.event_id, &at, state, "bench-message")
            .await?;
        let email = self.meter.take_units()?;
        self.row(
            "email, one event (claimed, address read, sent, recorded)",
            email,
            None,
            "a conditional put, the profile's GetItem, the outcome's UpdateItem",
        );
        self.store
            .claim_email(&event.event_id, event.kind, lease)
            .await?;
        // A write refused by its condition still costs its write unit (DynamoDB's rule); the
        // engine reports no capacity on an error, so it is added here.
        let refused_put = Units {
            read: 0.0,
            write: 1.0,
        };
        let again = self.meter.take_units()?.plus(refused_put);
        self.row(
            "email, the same event delivered again",
            again,
            None,
            "the claim refused (1 W: a failed condition is billed, the engine reports none), the record read: no second email",
        );
        Ok(email)
    }
}

/// The cost of a million orders' events and emails.
pub(super) fn print_costs(f: &EventFigures) {
    println!();
    println!(
        "### Events out: a million orders (us-east-1 list prices: EventBridge ${EVENTS_PER_MILLION:.2} per million events, SES ${SES_PER_THOUSAND:.2} per thousand emails, SQS ${SQS_PER_MILLION:.2} per million requests, Lambda ${LAMBDA_PER_MILLION:.2} per million requests; DynamoDB on demand)"
    );
    println!();
    println!(
        "The order's events as its stream records give them through the publisher's filter; the emails its customer gets (order placed, shipped, refund paid); Lambda and SQS requests as an upper bound (a batch of one record, one message: traffic too thin to batch); Lambda's duration not included (docs/events.md). The order's own writes cost what they cost without events: the header's counter is an attribute of writes made anyway."
    );
    println!();
    println!(
        "| order | events | emails | DynamoDB per order | DynamoDB | PutEvents | SES | SQS | Lambda requests | per million orders | without emails |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (label, o) in &f.orders {
        let units = o.publisher.plus(f.email.times(o.emails as f64));
        let dynamodb = US_EAST_1.cost(units.times(1e6));
        let events = o.events as f64 * EVENTS_PER_MILLION;
        let ses = o.emails as f64 * SES_PER_THOUSAND * 1000.0;
        let sqs = o.emails as f64 * SQS_REQUESTS_PER_EMAIL * SQS_PER_MILLION;
        let lambda = (o.records + o.emails) as f64 * LAMBDA_PER_MILLION;
        // No EmailSender: the publisher's reads, the events and its invocations alone.
        let bare =
            US_EAST_1.cost(o.publisher.times(1e6)) + events + o.records as f64 * LAMBDA_PER_MILLION;
        println!(
            "| {label} | {} | {} | {} | ${dynamodb:.2} | ${events:.2} | ${ses:.2} | ${sqs:.2} | ${lambda:.2} | ${:.2} | ${bare:.2} |",
            o.events,
            o.emails,
            units_text(units),
            dynamodb + events + ses + sqs + lambda
        );
    }
}
