//! `make -s pay ORDER=<id>`: pays for a hold as the payment provider would. Reads the order
//! from `make dev` (`GET /orders/{id}`, with a staff token), then signs the provider's
//! `payment_intent.succeeded` event for its total, in the store's currency, with the endpoint
//! secret beside the data file (or `PAYMENT_WEBHOOK_SECRET`), and sends it to
//! `POST /payments/webhook`. Prints the webhook's answer.
//!
//! Usage: store-pay ORDER_ID [--amount CENTS] [--currency CODE] [--event EVENT_ID]

use std::io::{Read, Write};
use std::net::TcpStream;
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
            eprintln!("usage: make -s pay ORDER=<orderId> [AMOUNT=<cents>]");
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
    let mut stream =
        TcpStream::connect(&addr).map_err(|err| format!("is make dev running on {addr}? {err}"))?;
    let mut request =
        format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!(
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(request.as_bytes())?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw)?;
    let (head, body) = raw.split_once("\r\n\r\n").ok_or("no HTTP response")?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no HTTP status")?;
    Ok((status, body.to_owned()))
}

fn run() -> Result<String, Error> {
    let mut args = std::env::args().skip(1);
    let mut order = None;
    let (mut amount, mut currency, mut event) = (None, None, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--amount" => amount = Some(args.next().ok_or("--amount needs cents")?.parse::<i64>()?),
            "--currency" => currency = Some(args.next().ok_or("--currency needs a code")?),
            "--event" => event = Some(args.next().ok_or("--event needs an ID")?),
            other if order.is_none() && !other.starts_with("--") => order = Some(other.to_owned()),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let order = OrderId::parse(order.as_deref().ok_or("say which order: ORDER=<id>")?)?;
    let dir = local_dev::data_dir(&local_dev::data_file());
    let now = chrono::Utc::now().timestamp();
    let staff = Issuer::open(&dir)?.token("store-pay", true, now)?;
    let bearer = format!("Bearer {staff}");
    let (status, body) = http(
        "GET",
        &format!("/orders/{order}"),
        &[("Authorization", &bearer)],
        "",
    )?;
    if status != 200 {
        return Err(format!("GET /orders/{order} answered {status}: {body}").into());
    }
    let found: Value = serde_json::from_str(&body)?;
    let total = found["total"]
        .as_str()
        .and_then(Money::parse_number)
        .ok_or("the order has no total")?;
    let store_currency = shared::bootstrap::currency_from_env(Currency::default())?;
    let amount = match amount {
        Some(cents) => cents,
        None => store_currency.minor_units(total)?,
    };
    let currency = currency.unwrap_or_else(|| store_currency.to_string());
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|err| err.to_string())?;
    let suffix = hex::encode(random);
    let event = event.unwrap_or_else(|| format!("evt_local_{suffix}"));
    let body = succeeded_event_body(
        &event,
        &format!("pi_local_{suffix}"),
        amount,
        &currency,
        order.as_str(),
    );
    let signature = local_dev::payments::secrets(&dir)?.sign(now, body.as_bytes());
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
