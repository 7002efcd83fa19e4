//! A flash sale of one SKU (`--only flash-sale`): buyers arriving together at rising rates
//! ([`arrivals`]), and buyers at once checking out one after another ([`concurrent`]), each
//! checkout one unit, against DynamoDB's limits modelled in the engine
//! (`local_engine::limits`): each partition's units a second, and transactions that collide on
//! an item (a transaction holds its items `--flash-service-ms`, 2 ms, at DynamoDB's scale).
//! The model runs `--flash-scale` times slower than DynamoDB, so that this machine reaches the
//! ceiling; rates and checkouts a second are printed at DynamoDB's scale (multiplied back),
//! times as measured here. The provider is localstripe, as in make dev.
//!
//! Each design runs every wave: the SKU's stock in its variant's one item (today's), and split
//! over [`SHARDS`] stock shards (`POST /variants/{sku}/stock {"shards": k}`).
//!
//! Each wave gets a fresh engine: the product with ample stock (so that only the limits refuse
//! anyone), one customer and one cart line per buyer, written without the limits. Then the
//! buyers' checkouts through the limits; then the table is read
//! whole to check that every unit is where it should be: in stock, or held by an order whose
//! checkout was answered 201.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use lambda_http::Body;
use local_engine::LOCAL_TABLE;
use local_engine::limits::{Limits, Model};
use local_engine::runtime_api::Error;
use local_engine::testing::{TestApp, payments, put_profile, single_variant, staff};
use shared::Store;
use shared::domain::ids::Sku;
use shared::domain::stock_shards::ShardCount;
use shared::dynamo::keys::StatusShards;
use shared::http::serve::dispatch;

use crate::cli::Options;
use crate::process::percentile;
use crate::report::ms;

mod arrivals;
mod concurrent;
mod report;

/// The SKU on sale.
const SKU: &str = "flash-1";
/// Units in stock at the start: more than any wave buys.
const STOCK: u64 = 1_000_000;
/// Buyers a second, at DynamoDB's scale, wave by wave.
const RATES: [f64; 6] = [250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0];
/// Buyers a second of the sold-out wave: the rate the sharded design is to sell at (issue 67),
/// within the 6,000 eventually consistent reads a second of the one partition every buyer
/// reads.
const SOLD_OUT_RATE: f64 = 4000.0;
/// The sharded design's count of stock shards: 500 transactional takes a second each at
/// DynamoDB's limits, 8,000 in all.
const SHARDS: u64 = 16;
/// The products of one stock item the sold-out answer's yardstick reads, in turn: a warm
/// read is strongly consistent, a full read unit, and one product's partition would throttle
/// one read per buyer.
const YARDSTICKS: [&str; 4] = ["steady-1", "steady-2", "steady-3", "steady-4"];

/// Buyers at once, each checking out one customer after another, series by series.
const CONCURRENT: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// One buyer's checkout as answered.
struct Answer {
    status: u16,
    took: Duration,
    /// When it was answered, from the wave's start.
    at: Duration,
}

/// What one wave came to.
struct Wave {
    /// The buyers, as the table says them: `250 a second`, `16 at once`.
    buyers: String,
    /// Units in stock when the buyers came.
    start_stock: u64,
    answers: Vec<Answer>,
    /// Units held by orders at the end, orders found, and the stock left.
    held: u64,
    orders: usize,
    stock: u64,
    throttled: u64,
    conflicts: u64,
    /// The yardstick's warm reads sent between the wave's buyers (a sold-out wave's), sorted.
    reads: Vec<Duration>,
}

pub(crate) async fn section(o: &Options, home: &std::path::Path) -> Result<(), Error> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let localstripe = local_engine::provider::LocalProvider::start(
        port,
        &home.join("flash-localstripe.log"),
        None,
    )?;
    let provider =
        payment_provider::Provider::new(&localstripe.base, local_engine::provider::LOCAL_API_KEY);
    let model = Model::scaled(o.flash_scale).with_transaction_service(o.flash_service);
    report::header(&model, o.flash_seconds);
    let mut yardsticks = Vec::new();
    for design in [Design::One, Design::Sharded(ShardCount::new(SHARDS)?)] {
        let label = design.label();
        for rate in RATES {
            let sale = (Sale::InStock, design);
            let wave = arrivals::run(&model, &provider, rate, o.flash_seconds, sale).await?;
            report::row(&label, &model, &wave);
        }
        let sale = (Sale::SoldOut, design);
        let sold_out = arrivals::run(&model, &provider, SOLD_OUT_RATE, o.flash_seconds, sale);
        let sold_out = sold_out.await?;
        report::row(&format!("{label}, sold out"), &model, &sold_out);
        let mut took: Vec<Duration> = sold_out.answers.iter().map(|a| a.took).collect();
        took.sort();
        yardsticks.push((label.clone(), percentile(&took, 99.0), sold_out.reads));
        for buyers in CONCURRENT {
            let wave = concurrent::run(&model, &provider, buyers, o.flash_seconds, design).await?;
            report::row(&label, &model, &wave);
        }
    }
    println!();
    println!(
        "A sold-out checkout is answered from its read, without a transaction. Its yardstick, in the \
         same seconds: a warm read (GET /variants/{{sku}} of a product of one stock item, sent halfway \
         between each two buyers of the sold-out wave, over {} such products so that no partition \
         throttles them, through the same limits), p50 / p99 and the sold-out answer's p99 against it:",
        YARDSTICKS.len()
    );
    for (label, sold_out, reads) in &yardsticks {
        let p99 = percentile(reads, 99.0);
        let ratio = sold_out.as_secs_f64() / p99.as_secs_f64().max(1e-9);
        println!(
            "- {label}: {} reads, {} / {} ms; sold out p99 {} ms, {ratio:.2}x.",
            reads.len(),
            ms(percentile(reads, 50.0)),
            ms(p99),
            ms(*sold_out),
        );
    }
    Ok(())
}

/// The wave's end: its answers, and what the table and the limits say.
async fn ended(
    app: &TestApp,
    limits: &Limits,
    buyers: String,
    start_stock: u64,
    mut answers: Vec<Answer>,
) -> Result<Wave, Error> {
    answers.sort_by_key(|a| a.at);
    let (held, orders) = app.held(SKU).await;
    let refusals = limits.refusals();
    Ok(Wave {
        buyers,
        start_stock,
        answers,
        held,
        orders,
        stock: app.stock(SKU).await,
        throttled: refusals.throttled,
        conflicts: refusals.conflicts,
        reads: Vec::new(),
    })
}

/// The checkout function's processes, through `limits` on one engine, as Lambda runs them:
/// each serves one request at a time, a request taking an idle one or starting another. Each
/// keeps its own copies of what it read a moment ago and its own hints (`shared::Store`'s), so
/// what a process remembers serves only the requests it serves.
struct Processes {
    client: aws_sdk_dynamodb::Client,
    /// How long a process keeps its copies ([`copies_kept`]).
    copies_kept: Duration,
    provider: payment_provider::Provider,
    design: Design,
    idle: Mutex<Vec<Arc<functions::checkout::Checkout>>>,
}

impl Processes {
    fn new(
        app: &TestApp,
        model: &Model,
        limits: &Limits,
        provider: &payment_provider::Provider,
        design: Design,
    ) -> Arc<Self> {
        let (client, _) = app.engine.limited_client(limits);
        Arc::new(Self {
            client,
            copies_kept: copies_kept(model),
            provider: provider.clone(),
            design,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// An idle process, or a new one.
    fn take(&self) -> Result<Arc<functions::checkout::Checkout>, Error> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        if let Some(process) = idle {
            return Ok(process);
        }
        let mut store =
            Store::new(self.client.clone(), LOCAL_TABLE).with_copies_kept(self.copies_kept);
        // Every checkout also lists its order in GSI1's partition of its status: one
        // partition's 1,000 writes a second for the whole store, unless spread over status
        // shards as well.
        if let Design::Sharded(count) = self.design {
            store = store.with_status_shards(StatusShards::new(count.get() as u32)?);
        }
        Ok(Arc::new(functions::checkout::Checkout {
            store,
            provider: self.provider.clone(),
        }))
    }

    fn done(&self, process: Arc<functions::checkout::Checkout>) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        idle.push(process);
    }
}

/// How long a process keeps its copies of what it read a moment ago here: the store's second
/// (`shared::dynamo::recent::RECENT`) at DynamoDB's scale, so `model.scale` seconds of this
/// machine's time, as the model's rates are divided and its service time multiplied. Kept a
/// second here, a copy would be read again a hundred times as often a buyer as on DynamoDB.
fn copies_kept(model: &Model) -> Duration {
    shared::dynamo::recent::RECENT.mul_f64(model.scale.max(1.0))
}

/// Buyer `i`'s checkout, on a process of its own while it runs, timed from `start`.
async fn check_out(processes: &Processes, i: usize, start: Instant) -> Result<Answer, Error> {
    let process = processes.take()?;
    let sent = Instant::now();
    let req = payments::checkout(&buyer(i), None);
    let response = dispatch(&*process, req, functions::checkout::handle).await;
    let answer = Answer {
        status: response.status().as_u16(),
        took: sent.elapsed(),
        at: start.elapsed(),
    };
    processes.done(process);
    Ok(answer)
}

/// Where the SKU's stock is kept.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Design {
    /// The variant's one item.
    One,
    /// Split over this many stock shards.
    Sharded(ShardCount),
}

impl Design {
    fn label(self) -> String {
        match self {
            Design::One => "one stock item".to_owned(),
            Design::Sharded(count) => format!("{count} stock shards"),
        }
    }
}

/// Whether the wave's buyers find the SKU in stock or sold out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sale {
    InStock,
    SoldOut,
}

/// A fresh engine with `stock` units of the SKU kept as `design` says, and `buyers` customers
/// with one unit in their carts.
async fn stocked(buyers: usize, stock: u64, design: Design) -> Result<TestApp, Error> {
    let app = TestApp::empty().await?;
    let store = app.direct_store();
    let sku = Sku::parse(SKU)?;
    let price = shared::domain::product::price("10.00")?;
    store
        .put_product(&single_variant(&sku, "Flash", price), &staff())
        .await?;
    for steady in YARDSTICKS {
        let steady = Sku::parse(steady)?;
        let product = single_variant(&steady, "Steady", price);
        store.put_product(&product, &staff()).await?;
        store.adjust_stock(&steady, 1).await?;
    }
    // Stocked for the carts' lines, then cut to `stock` once they hold them.
    store.adjust_stock(&sku, STOCK as i64).await?;
    for i in 0..buyers {
        let customer = buyer(i);
        let profile = put_profile(&customer, &format!("Buyer {i}"));
        expect(
            dispatch(&store, profile, functions::put_customer::handle).await,
            201,
        )?;
        let line = payments::hold_line(&customer, SKU, 1);
        expect(
            dispatch(&store, line, functions::edit_cart::handle).await,
            200,
        )?;
    }
    if stock < STOCK {
        store
            .adjust_stock(&sku, stock as i64 - STOCK as i64)
            .await?;
    }
    if let Design::Sharded(count) = design {
        store.set_stock_shards(&sku, count).await?;
    }
    Ok(app)
}

fn buyer(i: usize) -> String {
    format!("fs-{i:05}")
}

fn expect(response: lambda_http::Response<Body>, status: u16) -> Result<(), Error> {
    if response.status() == status {
        return Ok(());
    }
    Err(format!(
        "set-up answered {}: {:?}",
        response.status(),
        response.body()
    )
    .into())
}
