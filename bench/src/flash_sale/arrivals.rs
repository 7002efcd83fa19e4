//! Buyers arriving evenly at a rate, each checking out once, whatever the others' answers; in
//! a sold-out wave, the yardstick's warm reads between them.

use std::time::{Duration, Instant};

use super::{Design, Processes, STOCK, Sale, Wave, YARDSTICKS, check_out, ended, stocked};
use local_engine::LOCAL_TABLE;
use local_engine::limits::{Limits, Model};
use local_engine::runtime_api::Error;
use local_engine::testing::{TestApp, Who};
use shared::Store;
use shared::http::serve::dispatch;

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
    let processes = Processes::new(&app, model, &limits, provider, design);
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
    let reads = match sale {
        Sale::SoldOut => Some(tokio::spawn(yardstick(
            &app,
            &limits,
            start,
            (here, buyers),
        ))),
        Sale::InStock => None,
    };
    let mut answers = Vec::with_capacity(buyers);
    for task in tasks {
        answers.push(task.await??);
    }
    let mut wave = ended(
        &app,
        &limits,
        format!("{rate:.0} a second"),
        start_stock,
        answers,
    )
    .await?;
    if let Some(reads) = reads {
        wave.reads = reads.await??;
    }
    Ok(wave)
}

/// The sold-out answer's yardstick, in the same seconds as the wave's `buyers` arriving `here`
/// a second from `start`: a warm read of a product of one stock item halfway between each two
/// buyers, on a process of its own (its connection opened before the wave), sorted.
fn yardstick(
    app: &TestApp,
    limits: &Limits,
    start: Instant,
    (here, buyers): (f64, usize),
) -> impl Future<Output = Result<Vec<Duration>, Error>> + Send + 'static {
    let (client, _) = app.engine.limited_client(limits);
    let store = Store::new(client, LOCAL_TABLE);
    async move {
        let read = |i: usize| {
            let sku = YARDSTICKS[i % YARDSTICKS.len()];
            local_engine::testing::catalog::get_variant(Who::Customer("fs-reader"), sku)
        };
        dispatch(&store, read(0), functions::get_variant::handle).await;
        let mut times = Vec::with_capacity(buyers);
        for i in 0..buyers {
            let at = start + Duration::from_secs_f64((i as f64 + 0.5) / here);
            tokio::time::sleep_until(at.into()).await;
            let sent = Instant::now();
            let response = dispatch(&store, read(i), functions::get_variant::handle).await;
            times.push(sent.elapsed());
            if response.status() != 200 {
                return Err(format!("a warm read answered {}", response.status()).into());
            }
        }
        times.sort();
        Ok(times)
    }
}
