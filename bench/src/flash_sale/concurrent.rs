//! Buyers at once: each checks out a customer's cart, waiting for the answer, and again while
//! it is refused (a refused checkout leaves the cart as it was), then the next customer's, for
//! a wave's seconds. What one SKU accepts a second against how many buy at the same time.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use local_engine::limits::{Limits, Model};
use local_engine::runtime_api::Error;

use super::{Design, Processes, STOCK, Wave, check_out, ended, stocked};

/// Customers ready with a cart beyond one per buyer at once, at least: more than a wave of one
/// stock item accepts.
const SPARE_CARTS: usize = 100;

/// `buyers` at once for `seconds` of this machine's time.
pub(super) async fn run(
    model: &Model,
    provider: &payment_provider::Provider,
    buyers: usize,
    seconds: f64,
    design: Design,
) -> Result<Wave, Error> {
    // Each buyer checks out at most one cart per transaction's service time, as modelled here.
    let service = model.transaction_service.as_secs_f64() * model.scale;
    let per_buyer = (seconds / service.max(1e-3)).ceil() as usize;
    let carts = buyers + SPARE_CARTS.max(buyers * per_buyer);
    let app = stocked(carts, STOCK, design).await?;
    let limits = Limits::new(app.engine.database(), *model)?;
    let processes = Processes::new(&app, model, &limits, provider, design);
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let until = start + Duration::from_secs_f64(seconds);
    let mut tasks = Vec::with_capacity(buyers);
    for _ in 0..buyers {
        let (processes, next) = (processes.clone(), next.clone());
        tasks.push(tokio::spawn(Box::pin(async move {
            let mut answers = Vec::new();
            let mut i = next.fetch_add(1, Ordering::Relaxed);
            while Instant::now() < until && i < carts {
                let answer = check_out(&processes, i, start).await?;
                if answer.status == 201 {
                    i = next.fetch_add(1, Ordering::Relaxed);
                }
                answers.push(answer);
            }
            Ok::<_, Error>(answers)
        })));
    }
    let mut answers = Vec::new();
    for task in tasks {
        answers.extend(task.await??);
    }
    ended(&app, &limits, format!("{buyers} at once"), STOCK, answers).await
}
