//! make dev's side of payments: the webhook's endpoint secret (`PAYMENT_WEBHOOK_SECRET`, or one
//! made once beside the data file, as the token key is), and the holds' expiry run every
//! `EXPIRY_EVERY_SECONDS` and the refunds paid every `REFUNDS_EVERY_SECONDS`, as the
//! template's schedules run them every minute.

use std::path::Path;
use std::time::Duration;

use shared::http::signature::WebhookSecrets;

pub use shared::domain::error::BoxError as Error;

/// The file beside the data that holds make dev's endpoint secret.
pub const SECRET_FILE: &str = "webhook-secret";

/// How often make dev ends expired holds when `EXPIRY_EVERY_SECONDS` is unset.
pub const DEFAULT_EXPIRY_EVERY_SECONDS: u64 = 5;

/// The endpoint secret as text: `PAYMENT_WEBHOOK_SECRET` when set, else the file in `dir`
/// (made on first use: `whsec_` and 32 random bytes in hex, readable by its owner only).
pub fn secret_text(dir: &Path) -> Result<String, Error> {
    if let Some(set) = std::env::var("PAYMENT_WEBHOOK_SECRET")
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        return Ok(set);
    }
    let path = dir.join(SECRET_FILE);
    if let Ok(text) = std::fs::read_to_string(&path) {
        return Ok(text.trim().to_owned());
    }
    std::fs::create_dir_all(dir)?;
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(|err| err.to_string())?;
    let text = format!("whsec_{}", hex::encode(random));
    crate::auth::write_private(&path, text.as_bytes())?;
    Ok(text)
}

/// The endpoint secrets make dev's webhook checks signatures with.
pub fn secrets(dir: &Path) -> Result<WebhookSecrets, Error> {
    let text = secret_text(dir)?;
    WebhookSecrets::parse(&text).ok_or_else(|| "the webhook secret is empty".into())
}

/// `EXPIRY_EVERY_SECONDS` (1 to 3600), or the default.
pub fn expiry_every() -> Result<Duration, Error> {
    every("EXPIRY_EVERY_SECONDS", DEFAULT_EXPIRY_EVERY_SECONDS)
}

/// The variable `name` (1 to 3600 seconds), or `default` seconds.
fn every(name: &str, default: u64) -> Result<Duration, Error> {
    match std::env::var(name).ok().filter(|v| !v.is_empty()) {
        None => Ok(Duration::from_secs(default)),
        Some(raw) => match raw.trim().parse::<u64>() {
            Ok(seconds) if (1..=3600).contains(&seconds) => Ok(Duration::from_secs(seconds)),
            _ => Err(format!("{name} must be 1 to 3600, not {raw:?}").into()),
        },
    }
}

/// The template's two schedules, as make dev runs them: the holds' expiry every
/// `EXPIRY_EVERY_SECONDS`, the refunds payer every `REFUNDS_EVERY_SECONDS`, each with `store`
/// and `provider` as its Lambda has them.
pub fn spawn_schedules(
    store: &shared::Store,
    provider: &payment_provider::Provider,
) -> Result<(), Error> {
    spawn_expiry(
        functions::expire_holds::Expiry {
            store: store.clone(),
            provider: provider.clone(),
        },
        expiry_every()?,
    );
    spawn_payer(
        functions::pay_refunds::Payer {
            store: store.clone(),
            provider: provider.clone(),
        },
        refunds_every()?,
    );
    Ok(())
}

/// How often make dev pays refunds when `REFUNDS_EVERY_SECONDS` is unset.
pub const DEFAULT_REFUNDS_EVERY_SECONDS: u64 = 5;

/// `REFUNDS_EVERY_SECONDS` (1 to 3600), or the default.
pub fn refunds_every() -> Result<Duration, Error> {
    every("REFUNDS_EVERY_SECONDS", DEFAULT_REFUNDS_EVERY_SECONDS)
}

/// Runs the refunds payer every `every`, as the template's schedule runs it every minute, for
/// as long as make dev runs.
pub fn spawn_payer(payer: functions::pay_refunds::Payer, every: Duration) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let run = functions::pay_refunds::handle(&payer, every.mul_f64(0.8));
            match crate::as_declared("pay-refunds", run).await {
                Ok(run) if run.sent + run.found > 0 || !run.unsettled.is_empty() => {
                    tracing::info!(?run, "refunds paid");
                }
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "the refunds payer failed; the next run tries again");
                }
            }
        }
    });
}

/// Runs the expiry every `every`, each run given a little less than `every` to spend, for as
/// long as make dev runs.
pub fn spawn_expiry(expiry: functions::expire_holds::Expiry, every: Duration) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let budget = every.mul_f64(0.8);
            let run = functions::expire_holds::handle(&expiry, budget);
            if let Err(err) = crate::as_declared("expire-holds", run).await {
                tracing::warn!(error = %err, "the holds' expiry failed; the next run tries again");
            }
        }
    });
}
