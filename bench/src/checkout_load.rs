//! `make load-checkout`: checkout under load against `make dev`, every hold accounted for.
//!
//! Starts store-local on a fresh data file with a short hold (`HOLD_MINUTES=0.1`, 6 s) and the
//! expiry every second, makes four products and `--customers` customers (50), and has every
//! customer, all at once, fill a cart and check it out `--checkouts / --customers` times (500
//! in all) with its own token. Checkout `n` meets one of four fates, by `n % 4`:
//! - paid in time: paid at make dev's localstripe, whose own signed webhook must place it
//!   (PLACED); the same payment sent again under another event ID must be `replayed`;
//! - left to expire: the expiry must end it (EXPIRED);
//! - paid after expiry: once EXPIRED, a signed payment of it arrives (sent here: the expiry
//!   canceled its PaymentIntent, so localstripe takes no payment of it), and must be recorded
//!   for refund (localstripe, which never collected it, answers that refund with a 500: it stays
//!   PENDING, retried);
//! - paid, then partly refunded: paid as the first, then staff refund one unit of its first line
//!   with restock; the refunds payer sends it to localstripe. The unit will not ship, so the
//!   order stays PLACED, or is CANCELLED when that unit was all it had.
//!
//! Then it checks what a shop owner would: each order's status is its fate's; once the payer has
//! settled every refund, the refunds localstripe holds are each order's ledger's, to the cent and
//! each once; each product's stock is its start minus what the placed orders took plus what came
//! back; and each customer's statistics (orderCount, totalSpent) count exactly their placed
//! orders, less the units refunded before they shipped. It prints the latencies and exits non-zero when any of it fails.
//!
//! Usage: store-checkout-load --bin-dir DIR [--checkouts N] [--customers N]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use local_engine::runtime_api::Error;
use serde_json::{Value, json};
use shared::domain::payment::succeeded_event_body;

mod checkout_events;
mod checkout_money;
mod http;

use checkout_money::Provider;
use http::{Connection, Server, cpu_seconds, percentile};

/// The catalog of the run: SKU and price.
const PRODUCTS: [(&str, &str); 4] = [
    ("load-sku-1", "3.99"),
    ("load-sku-2", "12.50"),
    ("load-sku-3", "0.99"),
    ("load-sku-4", "249.00"),
];
/// Each product's stock at the start: more than any run takes.
const START_STOCK: i64 = 1_000_000;
/// The hold, in minutes (6 s): long enough for a payment sent at once, short enough to watch.
const HOLD_MINUTES: &str = "0.1";
/// The webhook's endpoint secret for the run.
const SECRET: &str = "whsec_checkout_load_run";
/// How long after its `holdUntil` a hold may take to end before the run calls it lost.
const EXPIRY_DEADLINE: Duration = Duration::from_secs(60);
/// How long the stream consumer may take to bring the statistics up to date.
const STATS_DEADLINE: Duration = Duration::from_secs(120);
/// How long the refunds payer (every 5 s) may take to settle every refund.
const REFUNDS_DEADLINE: Duration = Duration::from_secs(90);

/// What becomes of a checkout.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Fate {
    PaidInTime,
    Expires,
    PaidAfterExpiry,
    PaidThenRefunded,
}

impl Fate {
    fn of(n: usize) -> Self {
        match n % 4 {
            0 => Fate::PaidInTime,
            1 => Fate::Expires,
            2 => Fate::PaidAfterExpiry,
            _ => Fate::PaidThenRefunded,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Fate::PaidInTime => "paid in time",
            Fate::Expires => "left to expire",
            Fate::PaidAfterExpiry => "paid after expiry",
            Fate::PaidThenRefunded => "paid, then partly refunded",
        }
    }

    /// Whether the customer paid for it in time.
    fn placed(self) -> bool {
        matches!(self, Fate::PaidInTime | Fate::PaidThenRefunded)
    }

    /// What the report says the order's status must be.
    fn status(self) -> &'static str {
        match self {
            Fate::PaidInTime => "PLACED",
            Fate::PaidThenRefunded => {
                "PLACED, or CANCELLED when the unit refunded was its only one"
            }
            Fate::Expires | Fate::PaidAfterExpiry => "EXPIRED",
        }
    }

    /// The status `checkout` must end in. A unit refunded by lines before it shipped will never
    /// ship (docs/refunds.md): refunding an order's only unit leaves nothing to ship.
    fn status_of(self, checkout: &Checkout) -> &'static str {
        let units: i64 = checkout.lines.iter().map(|(_, quantity)| quantity).sum();
        match self {
            Fate::PaidThenRefunded if units == 1 => "CANCELLED",
            Fate::PaidThenRefunded | Fate::PaidInTime => "PLACED",
            Fate::Expires | Fate::PaidAfterExpiry => "EXPIRED",
        }
    }
}

/// One checkout as the store answered it.
struct Checkout {
    n: usize,
    customer: String,
    order: String,
    /// The PaymentIntent checkout asked make dev's provider for: what pays for the order.
    intent: String,
    /// The amount to pay, in cents.
    amount: i64,
    /// What was held: product index and quantity.
    lines: Vec<(usize, i64)>,
    hold_until: String,
    /// What staff refunded of it, in cents (accepted: 202).
    refunded: Option<i64>,
}

/// What the run observed, for the report and the checks.
#[derive(Default)]
struct Observed {
    checkouts: Vec<Checkout>,
    checkout_latency: Vec<Duration>,
    webhook_latency: Vec<Duration>,
    /// Answers that were not the expected one: what was sent, what came back.
    failures: Vec<String>,
    server_errors: usize,
}

impl Observed {
    fn merge(&mut self, other: Observed) {
        self.checkouts.extend(other.checkouts);
        self.checkout_latency.extend(other.checkout_latency);
        self.webhook_latency.extend(other.webhook_latency);
        self.failures.extend(other.failures);
        self.server_errors += other.server_errors;
    }

    /// Notes an answer; true when it is `expected`.
    fn expect(&mut self, what: &str, status: u16, body: &str, expected: u16) -> bool {
        if status >= 500 {
            self.server_errors += 1;
        }
        if status != expected {
            self.failures
                .push(format!("{what}: {status} (expected {expected}): {body}"));
        }
        status == expected
    }
}

/// An exact decimal amount ("16.47", "39.900") in cents, as the store's currency counts them;
/// `None` for anything else.
fn cents(amount: &str) -> Option<i64> {
    let money = shared::domain::money::Money::parse_number(amount)?;
    shared::domain::checkout::Currency::default()
        .minor_units(money)
        .ok()
}

/// What checkout `n` puts in the cart: one or two products, one to three of each.
fn cart_lines(n: usize) -> Vec<(usize, i64)> {
    let first = (n % PRODUCTS.len(), 1 + (n % 3) as i64);
    if n.is_multiple_of(2) {
        vec![first, ((n + 1) % PRODUCTS.len(), 1)]
    } else {
        vec![first]
    }
}

/// Sends the provider's signed event paying `checkout` (`id` tells deliveries of one event
/// apart from events); the status, the body and how long it took.
async fn pay(
    connection: &mut Connection,
    checkout: &Checkout,
    event: &str,
) -> Result<(u16, String, Duration), Error> {
    let body = succeeded_event_body(
        event,
        &checkout.intent,
        checkout.amount,
        "usd",
        &checkout.order,
    );
    let now = chrono::Utc::now().timestamp();
    let signature = shared::http::signature::sign(SECRET, now, body.as_bytes());
    let started = Instant::now();
    let (status, answer) = connection
        .request(
            "POST",
            "/payments/webhook",
            &[("Stripe-Signature", &signature)],
            &body,
        )
        .await?;
    Ok((status, answer, started.elapsed()))
}

/// The webhook's `outcome` (and `reason`) in `body`.
fn outcome(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_default();
    match v["reason"].as_str() {
        Some(reason) => format!("{}/{reason}", v["outcome"].as_str().unwrap_or("")),
        None => v["outcome"].as_str().unwrap_or("").to_owned(),
    }
}

/// One checkout of customer `id`: its cart filled, checked out, and when its fate says so,
/// paid at once and the payment delivered again.
async fn one_checkout(
    connection: &mut Connection,
    (server, provider): (&Server, &Provider),
    (id, token): (&str, &str),
    n: usize,
    seen: &mut Observed,
) -> Result<(), Error> {
    let lines = cart_lines(n);
    for (product, quantity) in &lines {
        let path = format!("/customers/{id}/cart/items/{}", PRODUCTS[*product].0);
        let (status, body) = connection
            .send(
                "PUT",
                &path,
                token,
                &json!({ "quantity": quantity }).to_string(),
            )
            .await?;
        if !seen.expect(&format!("PUT {path}"), status, &body, 200) {
            return Ok(());
        }
    }
    let bearer = format!("Bearer {token}");
    let key = format!("checkout-load-{n}");
    let started = Instant::now();
    let (status, body) = connection
        .request(
            "POST",
            &format!("/customers/{id}/checkout"),
            &[("Authorization", &bearer), ("Idempotency-Key", &key)],
            "",
        )
        .await?;
    seen.checkout_latency.push(started.elapsed());
    if !seen.expect(&format!("checkout {n}"), status, &body, 201) {
        return Ok(());
    }
    let answer: Value = serde_json::from_str(&body)?;
    let priced: i64 = lines
        .iter()
        .map(|(p, q)| q * cents(PRODUCTS[*p].1).unwrap_or(0))
        .sum();
    let amount = answer["payment"]["amount"].as_i64().unwrap_or(-1);
    if amount != priced || answer["payment"]["currency"] != "usd" {
        seen.failures.push(format!(
            "checkout {n}: asks {amount} {}, the catalog says {priced} usd",
            answer["payment"]["currency"]
        ));
    }
    let mut checkout = Checkout {
        n,
        customer: id.to_owned(),
        order: answer["orderId"].as_str().unwrap_or_default().to_owned(),
        intent: answer["payment"]["paymentIntentId"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        amount,
        lines,
        hold_until: answer["holdUntil"].as_str().unwrap_or_default().to_owned(),
        refunded: None,
    };
    let paid =
        Fate::of(n).placed() && pay_in_time(connection, provider, &checkout, token, seen).await?;
    if paid && Fate::of(n) == Fate::PaidThenRefunded {
        checkout.refunded = refund_part(connection, &server.token, &checkout, seen).await?;
    }
    seen.checkouts.push(checkout);
    Ok(())
}

/// Pays `checkout` at localstripe, whose own webhook must place it; then sends the same payment
/// again under another event ID, which must be `replayed`. Whether it was placed.
async fn pay_in_time(
    connection: &mut Connection,
    provider: &Provider,
    checkout: &Checkout,
    token: &str,
    seen: &mut Observed,
) -> Result<bool, Error> {
    let n = checkout.n;
    let started = Instant::now();
    if let Err(err) = provider.pay(&checkout.intent).await {
        seen.failures
            .push(format!("payment {n} at localstripe: {err}"));
        return Ok(false);
    }
    let path = format!("/orders/{}", checkout.order);
    let placed = loop {
        let (status, body) = connection.send("GET", &path, token, "").await?;
        let order: Value = serde_json::from_str(&body).unwrap_or_default();
        if status == 200 && order["status"] == "PLACED" {
            break true;
        }
        if started.elapsed() > Duration::from_secs(10) {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    seen.webhook_latency.push(started.elapsed());
    if !placed {
        seen.failures.push(format!(
            "payment {n}: localstripe's webhook did not place it"
        ));
        return Ok(false);
    }
    let (status, body, _) = pay(connection, checkout, &format!("evt_load_resent_{n}")).await?;
    if seen.expect(&format!("payment {n} resent"), status, &body, 200)
        && outcome(&body) != "replayed"
    {
        seen.failures
            .push(format!("payment {n} resent: {}", outcome(&body)));
    }
    Ok(true)
}

/// Staff refund one unit of `checkout`'s first line, its stock back: the amount accepted.
async fn refund_part(
    connection: &mut Connection,
    staff: &str,
    checkout: &Checkout,
    seen: &mut Observed,
) -> Result<Option<i64>, Error> {
    let (product, _) = checkout.lines[0];
    let (sku, price) = PRODUCTS[product];
    let body = json!({"lines": [{"sku": sku, "quantity": 1}], "reason": "load: one damaged", "restock": true});
    let bearer = format!("Bearer {staff}");
    let key = format!("checkout-load-refund-{}", checkout.n);
    let (status, answer) = connection
        .request(
            "POST",
            &format!("/orders/{}/refunds", checkout.order),
            &[("Authorization", &bearer), ("Idempotency-Key", &key)],
            &body.to_string(),
        )
        .await?;
    if !seen.expect(&format!("refund {}", checkout.n), status, &answer, 202) {
        return Ok(None);
    }
    let amount = serde_json::from_str::<Value>(&answer).unwrap_or_default()["amount"].as_i64();
    if amount != cents(price) {
        seen.failures.push(format!(
            "refund {}: {amount:?}, one {sku} costs {price}",
            checkout.n
        ));
    }
    Ok(amount)
}

/// Customer `c`: signed up, then its checkouts one after another (checkout `c + k * customers`
/// for each k), with its own token.
async fn customer_run(
    (server, provider): (&Server, &Provider),
    c: usize,
    customers: usize,
    checkouts: usize,
) -> Result<Observed, Error> {
    let id = format!("load-c{c:02}");
    let token = server.token_for(&["--customer", &id]).await?;
    let mut connection = Connection::open(&server.addr).await?;
    let mut seen = Observed::default();
    let profile =
        json!({"name": format!("Load customer {c}"), "email": format!("{id}@example.com")});
    let (status, body) = connection
        .send(
            "PUT",
            &format!("/customers/{id}"),
            &token,
            &profile.to_string(),
        )
        .await?;
    if status != 201 && status != 200 {
        seen.expect(&format!("PUT /customers/{id}"), status, &body, 201);
        return Ok(seen);
    }
    for n in (c..checkouts).step_by(customers) {
        one_checkout(
            &mut connection,
            (server, provider),
            (&id, &token),
            n,
            &mut seen,
        )
        .await?;
    }
    Ok(seen)
}

/// The run's catalog: each product made and stocked.
async fn make_catalog(server: &Server) -> Result<(), Error> {
    let mut admin = Connection::open(&server.addr).await?;
    for (sku, price) in PRODUCTS {
        let product =
            local_engine::testing::catalog::single_body(sku, &format!("Load product {sku}"), price);
        let (status, body) = admin
            .send("PUT", &format!("/products/{sku}"), &server.token, &product)
            .await?;
        if status != 201 && status != 200 {
            return Err(format!("PUT /products/{sku}: {status} {body}").into());
        }
        let delta = json!({ "delta": START_STOCK }).to_string();
        let (status, body) = admin
            .send(
                "POST",
                &format!("/variants/{sku}/stock"),
                &server.token,
                &delta,
            )
            .await?;
        if status != 200 {
            return Err(format!("stock of {sku}: {status} {body}").into());
        }
    }
    Ok(())
}

/// A staff GET of `path`, as JSON.
async fn get_json(admin: &mut Connection, token: &str, path: &str) -> Result<Value, Error> {
    let (status, body) = admin.send("GET", path, token, "").await?;
    if status != 200 {
        return Err(format!("GET {path}: {status} {body}").into());
    }
    Ok(serde_json::from_str(&body)?)
}

/// Waits for every hold that should expire to be EXPIRED; the longest wait past a `holdUntil`
/// (to the second), or the orders still not ended at the deadline.
async fn await_expiry(
    admin: &mut Connection,
    token: &str,
    waiting: &[&Checkout],
) -> Result<(Duration, Vec<String>), Error> {
    let mut pending: Vec<&Checkout> = waiting.to_vec();
    let mut longest = Duration::ZERO;
    let started = Instant::now();
    let latest_end = waiting
        .iter()
        .filter_map(|c| chrono::DateTime::parse_from_rfc3339(&c.hold_until).ok())
        .max();
    while !pending.is_empty() {
        let mut still = Vec::new();
        for checkout in pending {
            let order = get_json(admin, token, &format!("/orders/{}", checkout.order)).await?;
            if order["status"] == "EXPIRED" {
                let ended = chrono::DateTime::parse_from_rfc3339(&checkout.hold_until)?;
                let late = (chrono::Utc::now() - ended.to_utc())
                    .to_std()
                    .unwrap_or_default();
                longest = longest.max(late);
            } else {
                still.push(checkout);
            }
        }
        pending = still;
        let past_deadline = latest_end.is_some_and(|end| {
            (chrono::Utc::now() - end.to_utc())
                .to_std()
                .unwrap_or_default()
                > EXPIRY_DEADLINE
        });
        if past_deadline || started.elapsed() > EXPIRY_DEADLINE * 3 {
            break;
        }
        if !pending.is_empty() {
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
    Ok((longest, pending.iter().map(|c| c.order.clone()).collect()))
}

/// Every refund in `status` the store lists, page by page.
async fn refunds_in(
    admin: &mut Connection,
    token: &str,
    status: &str,
) -> Result<Vec<Value>, Error> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!("/payments/refunds?status={status}&limit=100");
        if let Some(c) = &cursor {
            path = format!("{path}&cursor={c}");
        }
        let page = get_json(admin, token, &path).await?;
        all.extend(page["items"].as_array().cloned().unwrap_or_default());
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return Ok(all),
        }
    }
}

/// Waits until the refunds payer has settled every staff refund and sent every other (none
/// REQUESTED, no staff refund PENDING); how long that took, or an error at the deadline.
async fn await_refunds_settled(admin: &mut Connection, token: &str) -> Result<Duration, Error> {
    let started = Instant::now();
    loop {
        let requested = refunds_in(admin, token, "REQUESTED").await?.len();
        let pending = refunds_in(admin, token, "PENDING").await?;
        let staff_pending = pending.iter().filter(|r| r["kind"] == "staff").count();
        if requested + staff_pending == 0 {
            return Ok(started.elapsed());
        }
        if started.elapsed() > REFUNDS_DEADLINE {
            return Err(format!(
                "{requested} refunds REQUESTED and {staff_pending} staff refunds PENDING after {REFUNDS_DEADLINE:?}"
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// What `checkout`'s ledger must hold once every refund is settled: (kind, reason or None for
/// any, amount, status) of each refund.
fn expected_refunds(
    checkout: &Checkout,
) -> Vec<(&'static str, Option<&'static str>, i64, &'static str)> {
    match Fate::of(checkout.n) {
        Fate::PaidInTime | Fate::Expires => Vec::new(),
        // localstripe never collected it (the expiry canceled its PaymentIntent): it refuses its
        // refund with a 400 (FAILED, with its reason) or fails it with a 500 (PENDING: the payer
        // tries again each run). Never SUCCEEDED.
        Fate::PaidAfterExpiry => vec![(
            "payment",
            Some("hold-ended"),
            checkout.amount,
            "FAILED|PENDING",
        )],
        Fate::PaidThenRefunded => checkout
            .refunded
            .map(|amount| ("staff", None, amount, "SUCCEEDED"))
            .into_iter()
            .collect(),
    }
}

/// The refunds of the run, added up order by order.
#[derive(Default)]
struct Money {
    /// Refunds localstripe holds, and their cents.
    made: usize,
    at_provider: i64,
    /// Cents SUCCEEDED in the ledgers.
    in_ledgers: i64,
    failed: usize,
    unsettled: usize,
    /// Whether some order's refunds at localstripe are not its ledger's.
    differs: bool,
    failures: Vec<String>,
}

/// A ledger's refunds as (kind, reason, amount, status).
fn listed(refunds: &[Value]) -> Vec<(String, Option<String>, i64, String)> {
    refunds
        .iter()
        .map(|r| {
            let text = |key: &str| r[key].as_str().unwrap_or_default().to_owned();
            (
                text("kind"),
                Some(text("reason")),
                r["amount"].as_i64().unwrap_or(-1),
                text("status"),
            )
        })
        .collect()
}

impl Money {
    /// `checkout`'s ledger held to its fate, and its SUCCEEDED refunds to localstripe's.
    fn add(&mut self, checkout: &Checkout, ledger: &Value, made: Vec<(String, i64)>) {
        let refunds = ledger["refunds"].as_array().cloned().unwrap_or_default();
        let (listed, expected) = (listed(&refunds), expected_refunds(checkout));
        let matches = listed.len() == expected.len()
            && listed.iter().zip(&expected).all(|(got, want)| {
                got.0 == want.0
                    && want.1.is_none_or(|reason| got.1.as_deref() == Some(reason))
                    && got.2 == want.2
                    && want.3.split('|').any(|status| status == got.3)
            });
        if !matches {
            self.failures.push(format!(
                "order {} ledger {listed:?}, expected {expected:?}",
                checkout.order
            ));
        }
        let mut succeeded: Vec<(String, i64)> = refunds
            .iter()
            .filter(|r| r["status"] == "SUCCEEDED")
            .map(|r| {
                let id = r["providerRefundId"].as_str().unwrap_or_default();
                (id.to_owned(), r["amount"].as_i64().unwrap_or(-1))
            })
            .collect();
        let mut made = made;
        made.sort();
        succeeded.sort();
        if made != succeeded {
            self.differs = true;
            self.failures.push(format!(
                "order {}: localstripe holds {made:?}, its ledger {succeeded:?}",
                checkout.order
            ));
        }
        self.made += made.len();
        self.at_provider += made.iter().map(|(_, amount)| amount).sum::<i64>();
        self.in_ledgers += succeeded.iter().map(|(_, amount)| amount).sum::<i64>();
        let count = |status: &str| refunds.iter().filter(|r| r["status"] == status).count();
        self.unsettled += count("PENDING");
        self.failed += count("FAILED");
    }
}

/// Once the payer has settled every refund, each order's ledger holds exactly its fate's
/// refunds, and localstripe holds exactly the ledger's SUCCEEDED ones: the same IDs and amounts,
/// each once.
async fn check_money(
    admin: &mut Connection,
    token: &str,
    provider: &Provider,
    seen: &mut Observed,
) -> Result<(), Error> {
    let took = await_refunds_settled(admin, token).await?;
    let mut money = Money::default();
    for checkout in &seen.checkouts {
        let path = format!("/orders/{}/payments", checkout.order);
        let ledger = get_json(admin, token, &path).await?;
        // Only a PaymentIntent localstripe collected can hold a refund (it answers a list of an
        // uncollected one's refunds with a 500).
        let made = if Fate::of(checkout.n).placed() {
            provider.refunds(&checkout.intent)?
        } else {
            Vec::new()
        };
        money.add(checkout, &ledger, made);
    }
    let Money {
        made,
        at_provider,
        in_ledgers,
        failed,
        unsettled,
        differs,
        mut failures,
    } = money;
    println!(
        "| refunds at localstripe = the ledgers, each once | {made} refunds, {at_provider} cents at localstripe; {in_ledgers} cents SUCCEEDED in the ledgers; {} |",
        if differs {
            "NOT the same"
        } else {
            "the same refund IDs and amounts, order by order"
        }
    );
    println!(
        "| late payments' refunds, none SUCCEEDED (localstripe never collected them: the expiry canceled their PaymentIntents) | {failed} FAILED with localstripe's 400, {unsettled} PENDING after its 500s (retried each run; metric RefundsUnsettled); every staff refund settled within {:.1} s of the last late payment |",
        took.as_secs_f64()
    );
    if at_provider != in_ledgers {
        failures.push(format!(
            "localstripe refunded {at_provider} cents, the ledgers {in_ledgers}"
        ));
    }
    seen.failures.extend(failures);
    Ok(())
}

/// Each customer's statistics as the placed orders say they must be: (orderCount, cents).
fn expected_stats(checkouts: &[Checkout]) -> BTreeMap<String, (i64, i64)> {
    let mut stats = BTreeMap::new();
    for c in checkouts {
        let entry = stats.entry(c.customer.clone()).or_insert((0, 0));
        // totalSpent is what the placed orders came to, less what of them the customer no
        // longer keeps: the unit refunded before it shipped (docs/stream-consumer.md).
        if Fate::of(c.n).placed() {
            entry.0 += 1;
            entry.1 += c.amount - c.refunded.unwrap_or(0);
        }
    }
    stats
}

/// Waits until every customer's statistics are `expected`; how long that took, or the
/// customers still wrong at the deadline with what they show.
async fn await_stats(
    admin: &mut Connection,
    token: &str,
    expected: &BTreeMap<String, (i64, i64)>,
) -> Result<(Duration, Vec<String>), Error> {
    let started = Instant::now();
    loop {
        let mut wrong = Vec::new();
        for (customer, (count, spent)) in expected {
            let profile = get_json(admin, token, &format!("/customers/{customer}")).await?;
            let shown = (
                profile["orderCount"].as_i64().unwrap_or(-1),
                profile["totalSpent"].as_str().and_then(cents).unwrap_or(-1),
            );
            if shown != (*count, *spent) {
                wrong.push(format!(
                    "{customer}: shows {shown:?}, its placed orders make ({count}, {spent})"
                ));
            }
        }
        if wrong.is_empty() || started.elapsed() > STATS_DEADLINE {
            return Ok((started.elapsed(), wrong));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The checks after the run, each a line of the report; what fails is added to `seen`.
async fn account(server: &Server, provider: &Provider, seen: &mut Observed) -> Result<(), Error> {
    let mut admin = Connection::open(&server.addr).await?;
    let token = &server.token;
    check_expiry(&mut admin, token, seen).await?;
    pay_late(&mut admin, seen).await?;
    check_statuses(&mut admin, token, seen).await?;
    check_money(&mut admin, token, provider, seen).await?;
    check_stock(&mut admin, token, seen).await?;
    let expected = expected_stats(&seen.checkouts);
    let (took, wrong) = await_stats(&mut admin, token, &expected).await?;
    println!(
        "| statistics exact (orderCount, totalSpent), every customer | {} of {}, within {:.1} s of the late payments |",
        expected.len() - wrong.len(),
        expected.len(),
        took.as_secs_f64()
    );
    seen.failures.extend(wrong);
    Ok(())
}

/// Every hold not paid in time must end by the expiry.
async fn check_expiry(
    admin: &mut Connection,
    token: &str,
    seen: &mut Observed,
) -> Result<(), Error> {
    let late: Vec<&Checkout> = seen
        .checkouts
        .iter()
        .filter(|c| !Fate::of(c.n).placed())
        .collect();
    let (longest, not_ended) = await_expiry(admin, token, &late).await?;
    println!(
        "| holds ended by the expiry | {} of {}, each seen EXPIRED within {:.1} s of its holdUntil (to the second; the expiry runs every 1 s, the run polls every order in turn) |",
        late.len() - not_ended.len(),
        late.len(),
        longest.as_secs_f64()
    );
    for order in not_ended {
        seen.failures.push(format!("{order} did not expire"));
    }
    Ok(())
}

/// Pays every hold whose fate is a payment after expiry: each must be recorded for refund.
async fn pay_late(admin: &mut Connection, seen: &mut Observed) -> Result<(), Error> {
    let mut failures = Vec::new();
    for checkout in seen
        .checkouts
        .iter()
        .filter(|c| Fate::of(c.n) == Fate::PaidAfterExpiry)
    {
        let (status, body, _) = pay(admin, checkout, &format!("evt_late_{}", checkout.n)).await?;
        if status != 200 || outcome(&body) != "refund-due/hold-ended" {
            failures.push(format!("late payment {}: {status} {body}", checkout.n));
        }
    }
    seen.failures.extend(failures);
    Ok(())
}

/// Every order's status must be its fate's.
async fn check_statuses(
    admin: &mut Connection,
    token: &str,
    seen: &mut Observed,
) -> Result<(), Error> {
    let mut by_fate: BTreeMap<Fate, (usize, usize)> = BTreeMap::new();
    for checkout in &seen.checkouts {
        let order = get_json(admin, token, &format!("/orders/{}", checkout.order)).await?;
        let fate = Fate::of(checkout.n);
        let entry = by_fate.entry(fate).or_default();
        entry.0 += 1;
        if order["status"] == fate.status_of(checkout) {
            entry.1 += 1;
        } else {
            seen.failures.push(format!(
                "order {} ({}) is {}",
                checkout.order,
                fate.label(),
                order["status"]
            ));
        }
    }
    for (fate, (all, right)) in &by_fate {
        println!(
            "| {}: the order is {} | {right} of {all} |",
            fate.label(),
            fate.status()
        );
    }
    Ok(())
}

/// Every product's stock must be its start minus what the placed orders took.
async fn check_stock(
    admin: &mut Connection,
    token: &str,
    seen: &mut Observed,
) -> Result<(), Error> {
    let mut taken = [0i64; PRODUCTS.len()];
    for checkout in seen.checkouts.iter().filter(|c| Fate::of(c.n).placed()) {
        for (product, quantity) in &checkout.lines {
            taken[*product] += quantity;
        }
        // A refund of one unit of the first line, restocked.
        if checkout.refunded.is_some() {
            taken[checkout.lines[0].0] -= 1;
        }
    }
    let mut right = true;
    for (i, (sku, _)) in PRODUCTS.iter().enumerate() {
        let product = get_json(admin, token, &format!("/variants/{sku}")).await?;
        let stock = product["stock"].as_i64().unwrap_or(-1);
        if stock != START_STOCK - taken[i] {
            right = false;
            seen.failures.push(format!(
                "{sku}: stock {stock}, start {START_STOCK} - placed {} = {}",
                taken[i],
                START_STOCK - taken[i]
            ));
        }
    }
    let taken: Vec<String> = taken.iter().map(i64::to_string).collect();
    println!(
        "| stock = start - placed + restocked, every product | {} (placed took, less what came back, {}) |",
        if right { "yes" } else { "NO" },
        taken.join(" / ")
    );
    Ok(())
}

/// What the command line asks for.
struct Options {
    bin_dir: PathBuf,
    checkouts: usize,
    customers: usize,
}

fn options() -> Result<Options, Error> {
    let mut o = Options {
        bin_dir: PathBuf::from("target/release"),
        checkouts: 500,
        customers: 50,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bin-dir" => o.bin_dir = value.into(),
            "--checkouts" => o.checkouts = value.parse()?,
            "--customers" => o.customers = value.parse()?,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    if o.customers == 0 || o.customers > 99 || o.checkouts < o.customers {
        return Err("--customers must be 1 to 99, and at most --checkouts".into());
    }
    Ok(o)
}

/// Every customer's checkouts, all customers at once; what they observed, the run's line of the
/// report printed.
async fn run_customers(
    server: &std::sync::Arc<Server>,
    provider: &Provider,
    o: &Options,
) -> Result<Observed, Error> {
    let cpu_before = cpu_seconds(server.pid);
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..o.customers {
        let (server, provider) = (server.clone(), provider.clone());
        let (customers, checkouts) = (o.customers, o.checkouts);
        tasks.spawn(
            async move { customer_run((&server, &provider), c, customers, checkouts).await },
        );
    }
    let mut seen = Observed::default();
    while let Some(done) = tasks.join_next().await {
        seen.merge(done??);
    }
    let elapsed = started.elapsed();
    let cpu = cpu_seconds(server.pid) - cpu_before;
    seen.checkout_latency.sort();
    seen.webhook_latency.sort();
    println!(
        "## store-checkout-load: {} checkouts by {} customers at once through make dev's HTTP API (hold {HOLD_MINUTES} min)\n",
        o.checkouts, o.customers
    );
    println!("| what | observed |\n|---|---|");
    println!(
        "| checkouts answered 201 | {} of {} in {:.1} s; p50 / p99 {:.1} / {:.1} ms; store-local {:.1} ms CPU per checkout (carts, payments, expiry and stream included) |",
        seen.checkouts.len(),
        o.checkouts,
        elapsed.as_secs_f64(),
        millis(percentile(&seen.checkout_latency, 50.0)),
        millis(percentile(&seen.checkout_latency, 99.0)),
        cpu * 1000.0 / o.checkouts as f64
    );
    println!(
        "| payments in time, at localstripe | {} placed by its own webhook, each then resent under another event ID; p50 / p99 {:.1} / {:.1} ms from confirm to PLACED |",
        seen.webhook_latency.len(),
        millis(percentile(&seen.webhook_latency, 50.0)),
        millis(percentile(&seen.webhook_latency, 99.0)),
    );
    Ok(seen)
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Error> {
    let o = options()?;
    let dir = std::env::temp_dir().join(format!("store-checkout-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    // The cap on open orders stays the template's unless a customer's checkouts exceed it.
    let per_customer = o.checkouts.div_ceil(o.customers);
    let (payment_port, events_port) = http::free_ports()?;
    let provider = Provider::on(payment_port);
    let mut env = vec![
        ("HOLD_MINUTES", HOLD_MINUTES.to_owned()),
        ("EXPIRY_EVERY_SECONDS", "1".to_owned()),
        ("PAYMENT_WEBHOOK_SECRET", SECRET.to_owned()),
        ("CURRENCY", "usd".to_owned()),
        // make dev's provider, which each checkout asks for its PaymentIntent.
        ("PAYMENT_PORT", payment_port.to_string()),
        // make dev's bus, where every order's events are counted.
        ("EVENTS_PORT", events_port.to_string()),
    ];
    if per_customer > 10 {
        env.push(("MAX_OPEN_ORDERS", per_customer.to_string()));
    }
    let server = std::sync::Arc::new(Server::start(&o.bin_dir, &dir, &env).await?);
    let tap = checkout_events::Tap::open(&server.addr).await?;
    make_catalog(&server).await?;
    let mut seen = run_customers(&server, &provider, &o).await?;
    account(&server, &provider, &mut seen).await?;
    let heard = tap.account(&seen.checkouts).await?;
    println!(
        "| events, as make dev's tap on its bus heard them | {} delivered, {} distinct; {} orders and refunds complete, numbered without a gap, the last {:.1} s after the run's last check |",
        heard.deliveries,
        heard.events,
        heard.complete,
        heard.settled_after.as_secs_f64()
    );
    seen.failures.extend(heard.failures);
    println!("| 5xx answers | {} |", seen.server_errors);
    let ok =
        seen.checkouts.len() == o.checkouts && seen.server_errors == 0 && seen.failures.is_empty();
    if let Ok(server) = std::sync::Arc::try_unwrap(server) {
        server.stop().await?;
    }
    if ok {
        let _ = std::fs::remove_dir_all(&dir);
        println!(
            "\nEvery hold accounted for: placed, expired, or expired with its payment recorded for refund; every refund at localstripe once, as the ledgers say; every order's and refund's events published, none lost."
        );
        Ok(())
    } else {
        for failure in seen.failures.iter().take(20) {
            eprintln!("store-checkout-load: {failure}");
        }
        Err(format!(
            "{} checks failed; store-local's log and data are in {}",
            seen.failures.len().max(1),
            dir.display()
        )
        .into())
    }
}
