//! Buyers arriving evenly at a rate, each checking out once, whatever the others' answers.

use std::time::{Duration, Instant};

use super::{Design, Processes, STOCK, Sale, Wave, check_out, ended, stocked};
use local_engine::limits::{Limits, Model};
use local_engine::runtime_api::Error;

/// `rate` buyers a second (DynamoDB's scale) for `seconds` of this machine's time.
pub(super) async fn run(
    model: &Model,
    provider: &payment_provider::Provider,
    rate: f64,
    seconds: f64,
    (sale, design): (Sale, Design),
) -> Result<Wave, Error> {
    let here = rate / model.scale;
    let buyers = (here * seconds).round().max(1.0) as usize;
    let start_stock = match sale {
        Sale::InStock => STOCK,
        Sale::SoldOut => 0,
    };
    let app = stocked(buyers, start_stock, design).await?;
    let limits = Limits::new(app.engine.database(), *model)?;
    let processes = Processes::new(&app, &limits, provider, design);
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(buyers);
    for i in 0..buyers {
        let arrival = start + Duration::from_secs_f64(i as f64 / here);
        let processes = processes.clone();
        tasks.push(tokio::spawn(Box::pin(async move {
            tokio::time::sleep_until(arrival.into()).await;
            check_out(&processes, i, start).await
        })));
    }
    let mut answers = Vec::with_capacity(buyers);
    for task in tasks {
        answers.push(task.await??);
    }
    ended(
        &app,
        &limits,
        format!("{rate:.0} a second"),
        start_stock,
        answers,
    )
    .await
}
