//! `make -s pay ORDER=<id> [CARD=declined]`: pays for a hold at make dev's payment provider
//! (localstripe, on `PAYMENT_PORT`). Reads the order from `make dev` (`GET /orders/{id}`, with
//! a staff token), confirms the PaymentIntent checkout asked the provider for with a test card,
//! and the provider itself signs and delivers the webhook; prints the payment's and the
//! order's status.
//! `--self-signed` signs the event here instead, for payments no provider would send (another
//! amount, currency or event ID).
//!
//! Usage: store-pay ORDER_ID [--card visa|declined]
//!        store-pay ORDER_ID --self-signed [--amount CENTS] [--currency CODE] [--event EVENT_ID]

use std::process::ExitCode;

use local_dev::auth::Issuer;
use serde_json::Value;
use shared::domain::checkout::Currency;
use shared::domain::ids::OrderId;
use shared::domain::money::Money;
use shared::domain::payment::succeeded_event_body;

type Error = local_dev::auth::Error;

fn main() -> ExitCode {
    match run() {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("store-pay: {err}");
            eprintln!(
                "usage: make -s pay ORDER=<orderId> [CARD=declined] | make -s pay ORDER=<orderId> SELF_SIGNED=1 [AMOUNT=<cents>]"
            );
            ExitCode::FAILURE
        }
    }
}

/// One HTTP/1.1 request to make dev; the status and the body.
fn http(
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<(u16, String), Error> {
    let addr = format!(
        "127.0.0.1:{}",
        std::env::var("API_PORT").unwrap_or_else(|_| "3000".to_owned())
    );
    let mut request =
        format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!(
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    local_engine::plain_http::exchange(&addr, request.as_bytes(), "make dev")
}

/// What `make pay` was asked.
struct Asked {
    order: OrderId,
    /// The card: `visa` (succeeds) or `declined`.
    card: String,
    /// The old path: sign the event here instead of having the provider send it.
    self_signed: bool,
    amount: Option<i64>,
    currency: Option<String>,
    event: Option<String>,
}

fn asked() -> Result<Asked, Error> {
    let mut args = std::env::args().skip(1);
    let (mut order, mut card, mut self_signed) = (None, "visa".to_owned(), false);
    let (mut amount, mut currency, mut event) = (None, None, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--amount" => amount = Some(args.next().ok_or("--amount needs cents")?.parse::<i64>()?),
            "--currency" => currency = Some(args.next().ok_or("--currency needs a code")?),
            "--event" => event = Some(args.next().ok_or("--event needs an ID")?),
            "--card" => card = args.next().ok_or("--card needs visa or declined")?,
            "--self-signed" => self_signed = true,
            other if order.is_none() && !other.starts_with("--") => order = Some(other.to_owned()),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if !self_signed && (amount.is_some() || currency.is_some() || event.is_some()) {
        return Err(
            "--amount, --currency and --event sign an event here: add --self-signed".into(),
        );
    }
    Ok(Asked {
        order: OrderId::parse(order.as_deref().ok_or("say which order: ORDER=<id>")?)?,
        card,
        self_signed,
        amount,
        currency,
        event,
    })
}

/// The order as make dev answers it to staff.
fn read_order(order: &OrderId, bearer: &str) -> Result<Value, Error> {
    let (status, body) = http(
        "GET",
        &format!("/orders/{order}"),
        &[("Authorization", bearer)],
        "",
    )?;
    if status != 200 {
        return Err(format!("GET /orders/{order} answered {status}: {body}").into());
    }
    Ok(serde_json::from_str(&body)?)
}

fn run() -> Result<String, Error> {
    let asked = asked()?;
    let dir = local_dev::data_dir(&local_dev::data_file());
    let now = chrono::Utc::now().timestamp();
    let staff = Issuer::open(&dir)?.token("store-pay", true, now)?;
    let bearer = format!("Bearer {staff}");
    let found = read_order(&asked.order, &bearer)?;
    let total = found["total"]
        .as_str()
        .and_then(Money::parse_number)
        .ok_or("the order has no total")?;
    let store_currency = shared::bootstrap::currency_from_env(Currency::default())?;
    if asked.self_signed {
        return self_signed(
            &asked,
            &dir,
            now,
            store_currency.minor_units(total)?,
            &store_currency,
        );
    }
    through_the_provider(&asked, &found, &bearer)
}

/// The provider pays: the order's PaymentIntent at localstripe, the test card set on it (its
/// confirm takes no `payment_method`), confirmed; localstripe itself signs and sends the
/// webhook. Waits for the order to move (or 5 s), and prints what happened.
fn through_the_provider(asked: &Asked, found: &Value, bearer: &str) -> Result<String, Error> {
    use local_engine::provider::{LOCAL_API_KEY, form_post};
    let port = local_engine::provider::port_from_env()?
        .ok_or("PAYMENT_PORT is off: make dev runs no provider (use --self-signed)")?;
    let base = format!("http://127.0.0.1:{port}");
    let card = match asked.card.as_str() {
        "visa" => "pm_card_visa",
        "declined" => "pm_card_chargeCustomerFail",
        other => return Err(format!("CARD is visa or declined, not {other}").into()),
    };
    let key = Some(LOCAL_API_KEY);
    // The PaymentIntent checkout asked the provider for, as the order shows it.
    let id = found["paymentIntentId"].as_str().ok_or_else(|| {
        format!(
            "order {} has no PaymentIntent: only a checked-out order is paid so (SELF_SIGNED=1 signs an event for any)",
            asked.order
        )
    })?;
    let (status, set) = form_post(
        &base,
        &format!("/v1/payment_intents/{id}"),
        key,
        &[("payment_method", card)],
    )?;
    if status != 200 {
        return Err(format!("the provider refused the card ({status}): {set}").into());
    }
    let (status, confirmed) = form_post(
        &base,
        &format!("/v1/payment_intents/{id}/confirm"),
        key,
        &[],
    )?;
    let declined = confirmed["error"]["message"].as_str().map(str::to_owned);
    if status != 200 && declined.is_none() {
        return Err(
            format!("the provider refused the confirmation ({status}): {confirmed}").into(),
        );
    }
    // localstripe sends its webhook a second after the payment: wait for the order to move.
    let before = found["status"].as_str().unwrap_or_default().to_owned();
    let mut now_status = before.clone();
    let waited = std::time::Instant::now();
    while now_status == before
        && waited.elapsed() < std::time::Duration::from_secs(5)
        && declined.is_none()
    {
        std::thread::sleep(std::time::Duration::from_millis(200));
        now_status = read_order(&asked.order, bearer)?["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
    }
    let (_, intent) = local_engine::provider::request(
        &base,
        "GET",
        &format!("/v1/payment_intents/{id}"),
        key,
        &[],
    )?;
    Ok(serde_json::json!({
        "paymentIntent": id,
        "paymentStatus": intent["status"],
        "declined": declined,
        "orderStatus": now_status,
    })
    .to_string())
}

/// The old path, for forged, stale or odd payments: the provider's `payment_intent.succeeded`
/// signed here with the endpoint secret beside the data file (or `PAYMENT_WEBHOOK_SECRET`) and
/// sent to `POST /payments/webhook`. Prints the webhook's answer.
fn self_signed(
    asked: &Asked,
    dir: &std::path::Path,
    now: i64,
    total: i64,
    store_currency: &Currency,
) -> Result<String, Error> {
    let amount = asked.amount.unwrap_or(total);
    let currency = asked
        .currency
        .clone()
        .unwrap_or_else(|| store_currency.to_string());
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|err| err.to_string())?;
    let suffix = hex::encode(random);
    let event = asked
        .event
        .clone()
        .unwrap_or_else(|| format!("evt_local_{suffix}"));
    let body = succeeded_event_body(
        &event,
        &format!("pi_local_{suffix}"),
        amount,
        &currency,
        asked.order.as_str(),
    );
    let signature = local_dev::payments::secrets(dir)?.sign(now, body.as_bytes());
    let (status, answer) = http(
        "POST",
        "/payments/webhook",
        &[("Stripe-Signature", &signature)],
        &body,
    )?;
    if status != 200 {
        return Err(format!("the webhook answered {status}: {answer}").into());
    }
    Ok(answer)
}
