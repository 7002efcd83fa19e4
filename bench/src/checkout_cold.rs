//! Checkout's cold start with its call to the payment provider (`--only checkout-cold`): the
//! checkout binary in Lambda's two models at each memory size (`memory`'s CPU share and burst),
//! DynamoDB behind the bench's TLS front, and localstripe (the provider's stand-in, not written
//! here) behind a second one, so that the provider's connection pays a real handshake. Every
//! invocation checks out a fresh customer's one-line cart, so each one holds stock, writes the
//! order and creates a PaymentIntent.
//!
//! Two builds of the same binary side by side: as built (both connections opened in init only
//! ahead of traffic, by `AWS_LAMBDA_INITIALIZATION_TYPE`), and with each model's other choice
//! (`STORE_BENCH_WARMUP`). docs/performance.md, "Checkout's cold start", reads them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use local_engine::runtime_api::Error;
use local_engine::testing::{TestApp, parts, payments};
use serde_json::Value;
use shared::domain::customer::Customer;
use shared::domain::ids::CustomerId;

use crate::memory::Size;
use crate::process::{Model, PROVISIONED, ProcessRun, Series, percentile};
use crate::report::ms;

/// The product every cart holds one of.
const SKU: &str = "cold-checkout-sku";

/// Warm checkouts after each on-demand cold start.
const WARM: usize = 5;

/// Calls of the provider alone, timed in process.
const PROVIDER_CALLS: usize = 30;

/// A build of checkout measured.
#[derive(Clone, Copy)]
enum Build {
    /// The connections opened in init by the init type.
    AsBuilt,
    /// Each model's other choice, for both connections.
    Flipped,
}

impl Build {
    const ALL: [Build; 2] = [Build::AsBuilt, Build::Flipped];

    fn name(self) -> &'static str {
        match self {
            Build::AsBuilt => "as built",
            Build::Flipped => "warm-ups flipped",
        }
    }

    /// The bench switch this build sets under `model` at `memory_mb`, if any.
    fn switch(self, model: Model<'_>, memory_mb: u32) -> Option<(&'static str, &'static str)> {
        match self {
            Build::AsBuilt => None,
            Build::Flipped => Some((
                "STORE_BENCH_WARMUP",
                crate::process::flipped_warm_up(model.init_type(), memory_mb),
            )),
        }
    }
}

/// Where the function finds what it calls.
struct Endpoints {
    engine: String,
    provider: String,
    /// The resolver's files, which name both by host (`crate::resolver`).
    resolver: PathBuf,
}

pub(crate) async fn section(o: &crate::cli::Options, home: &Path) -> Result<(), Error> {
    println!();
    println!(
        "### Checkout's cold start: one line checked out, a PaymentIntent created at localstripe over TLS, Lambda's CPU share, {} cold starts per cell, {WARM} warm checkouts after each on-demand one",
        o.checkout_runs
    );
    println!();
    let Some(sizes) = Size::each(o) else {
        return Ok(());
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let localstripe =
        local_engine::provider::LocalProvider::start(port, &home.join("localstripe.log"), None)?;
    // As the memory section measures the reads: the bench apart from the function's CPU, both
    // endpoints named by host and resolved by the system resolver.
    let apart = crate::cpu_share::PinnedApart::pin()?;
    let resolver = crate::resolver::Resolver::shared()?;
    let provider = crate::tls_front::start(&localstripe.base, Duration::ZERO).await?;
    print_header();
    for size in &sizes {
        measure_size(o, home, size, &provider.url, resolver).await?;
    }
    drop(apart);
    provider_alone(&localstripe.base).await?;
    if o.callgrind {
        instructions(o, home, &provider.url).await?;
    }
    Ok(())
}

/// Both builds at `size`, in both models, and their rows. One engine a size, and the builds
/// take turns within each round: the engine slows as its stream records grow, which would
/// otherwise count against whichever build ran last.
async fn measure_size(
    o: &crate::cli::Options,
    home: &Path,
    size: &Size,
    provider: &str,
    resolver: &crate::resolver::Resolver,
) -> Result<(), Error> {
    use crate::resolver::{DYNAMODB, PAYMENTS, Resolver};
    let (app, engine) = stocked_engine().await?;
    let endpoints = Endpoints {
        engine: Resolver::named(&engine, DYNAMODB),
        provider: Resolver::named(provider, PAYMENTS),
        resolver: resolver.conf().to_owned(),
    };
    let mut carts = Carts::new(&app);
    let mut runs: Vec<[Vec<ProcessRun>; 2]> = Build::ALL.map(|_| [Vec::new(), Vec::new()]).into();
    for _ in 0..o.checkout_runs {
        for (build, done) in Build::ALL.into_iter().zip(&mut runs) {
            let cell = Cell {
                o,
                endpoints: &endpoints,
                home,
                size,
                build,
            };
            done[0].push(cell.run(size.on_demand(), WARM, &mut carts).await?);
            done[1].push(cell.run(size.provisioned(), 0, &mut carts).await?);
        }
    }
    for (build, [on_demand, provisioned]) in Build::ALL.into_iter().zip(runs) {
        print_row(
            size,
            build,
            &Series::of(on_demand),
            &Series::of(provisioned),
        );
    }
    Ok(())
}

/// The instructions of checkout's init, first checkout and warm checkout (callgrind, a whole
/// core), as built in each kind of init: what the first checkout's one-time work is, and where
/// each model puts it. Counts, unlike times, do not move with what else the machine runs.
async fn instructions(o: &crate::cli::Options, home: &Path, provider: &str) -> Result<(), Error> {
    println!();
    println!(
        "| checkout, instructions (k, callgrind) | init | first checkout | warm checkout | first beyond warm |"
    );
    println!("|---|---|---|---|---|");
    for init_type in [crate::process::ON_DEMAND, PROVISIONED] {
        let (app, engine) = stocked_engine().await?;
        // The four runs of `count_instructions`: 1, 21 and 121 checkouts.
        let events = Queue(Mutex::new(Carts::new(&app).fill(143).await?));
        let next = || events.next();
        let binary = o.bin_dir.join("checkout");
        let counted = crate::callgrind::count_instructions(&next, |out| {
            let mut c = crate::process::command(&binary, &[], Some(out));
            local_engine::runtime_api::lambda_environment(&mut c, "checkout", &engine, home);
            c.env("AWS_LAMBDA_INITIALIZATION_TYPE", init_type)
                .env("PAYMENT_API_BASE", provider)
                .env("PAYMENT_API_KEY", local_engine::provider::LOCAL_API_KEY);
            c
        })
        .await
        .map_err(|e| format!("checkout under callgrind, {init_type}: {e}"))?;
        let k = |n: f64| format!("{:.0}", n / 1000.0);
        println!(
            "| as built, {init_type} | {} | {} | {} | {} |",
            k(counted.init as f64),
            k(counted.first as f64),
            k(counted.warm),
            k(counted.first_beyond_warm()),
        );
    }
    Ok(())
}

fn print_header() {
    println!(
        "| MB | checkout | on-demand: init / first invoke / cold start ms | its CPU: init / first invoke ms | provisioned: first invoke ms (init) | warm p50 ms |"
    );
    println!("|---|---|---|---|---|---|");
}

fn print_row(size: &Size, build: Build, on_demand: &Series, provisioned: &Series) {
    println!(
        "| {} | {} | {} / {} / **{}** | {} / {} | **{}** ({}) | {} |",
        size.memory_mb(),
        build.name(),
        ms(on_demand.init),
        ms(on_demand.invoke),
        ms(on_demand.first),
        ms(on_demand.init_usage.cpu),
        ms(on_demand.cold_cpu.saturating_sub(on_demand.init_usage.cpu)),
        ms(provisioned.invoke),
        ms(provisioned.init),
        ms(percentile(&on_demand.warm, 50.0)),
    );
}

/// One build at one memory size.
struct Cell<'a> {
    o: &'a crate::cli::Options,
    endpoints: &'a Endpoints,
    home: &'a Path,
    size: &'a Size,
    build: Build,
}

impl Cell<'_> {
    /// One cold start of the cell's build under `model`, followed by `warm` checkouts.
    async fn run(
        &self,
        model: Model<'_>,
        warm: usize,
        carts: &mut Carts<'_>,
    ) -> Result<ProcessRun, Error> {
        let Cell {
            endpoints,
            home,
            size,
            build,
            ..
        } = *self;
        let events = Queue(Mutex::new(carts.fill(1 + warm).await?));
        let next = || events.next();
        let launch = match model {
            Model::Provisioned { quota } => quota,
            _ => &size.burst,
        };
        let checkout = self.o.bin_dir.join("checkout");
        let mut c = launch.command_resolving(&checkout, &[], Some(&endpoints.resolver));
        local_engine::runtime_api::lambda_environment(&mut c, "checkout", &endpoints.engine, home);
        c.env(
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
            size.memory_mb().to_string(),
        )
        .env("AWS_LAMBDA_INITIALIZATION_TYPE", model.init_type())
        .env("PAYMENT_API_BASE", &endpoints.provider)
        .env("PAYMENT_API_KEY", local_engine::provider::LOCAL_API_KEY);
        if let Some((name, value)) = build.switch(model, size.memory_mb()) {
            c.env(name, value);
        }
        crate::process::run_process(c, &next, warm, model)
            .await
            .map_err(|e| {
                format!("checkout at {} MB, {}: {e}", size.memory_mb(), build.name()).into()
            })
    }
}

/// localstripe's own time for what checkout asks of it, one PaymentIntent created, timed in
/// this process over plain HTTP on a connection kept open: the part of a checkout's time that
/// is the stand-in's, not the function's.
async fn provider_alone(base: &str) -> Result<(), Error> {
    let provider = payment_provider::Provider::new(base, local_engine::provider::LOCAL_API_KEY);
    let customer = CustomerId::parse("cold-provider")?;
    let currency = shared::domain::checkout::Currency::default();
    let mut times = Vec::with_capacity(PROVIDER_CALLS);
    for i in 0..=PROVIDER_CALLS {
        let order = shared::domain::ids::OrderId::parse(&format!("cold-provider-{i}"))?;
        let sent = Instant::now();
        provider
            .create_payment_intent(&order, &customer, 1250, &currency)
            .await
            .map_err(|e| format!("localstripe alone: {e}"))?;
        // The first opens the connection; the rest are what a warm checkout waits for.
        if i > 0 {
            times.push(sent.elapsed());
        }
    }
    times.sort();
    println!();
    println!(
        "localstripe alone, one PaymentIntent created (in process, plain HTTP, a kept connection, {PROVIDER_CALLS} calls): p50 {} ms, p99 {} ms.",
        ms(percentile(&times, 50.0)),
        ms(percentile(&times, 99.0)),
    );
    Ok(())
}

/// A fresh engine with the product stocked, and the TLS front to it the function is given.
async fn stocked_engine() -> Result<(TestApp, String), Error> {
    let app = TestApp::empty().await?;
    let catalog = format!(r#"{{"items":[{{"sku":"{SKU}","price":"12.50"}}]}}"#);
    local_engine::testing::stock_catalog(&app.engine, &catalog).await;
    let engine = crate::tls_front::start(app.engine.endpoint(), Duration::ZERO).await?;
    Ok((app, engine.url))
}

/// Checkout events, each handed out once.
struct Queue(Mutex<Vec<Bytes>>);

impl Queue {
    fn next(&self) -> Bytes {
        self.0
            .lock()
            .ok()
            .and_then(|mut events| events.pop())
            .unwrap_or_default()
    }
}

/// Fresh customers' carts, each of one line, and their checkout events.
struct Carts<'a> {
    app: &'a TestApp,
    event: Value,
    made: usize,
}

impl<'a> Carts<'a> {
    fn new(app: &'a TestApp) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../events/checkout.json");
        let event = std::fs::read(path)
            .ok()
            .and_then(|raw| serde_json::from_slice(&raw).ok())
            .unwrap_or_default();
        Self {
            app,
            event,
            made: 0,
        }
    }

    /// `n` carts, each of a new customer signed up, and the event that checks each out.
    async fn fill(&mut self, n: usize) -> Result<Vec<Bytes>, Error> {
        let store = self.app.direct_store();
        let mut events = Vec::with_capacity(n);
        for _ in 0..n {
            self.made += 1;
            let customer = format!("cold-{}", self.made);
            let id = CustomerId::parse(&customer)?;
            let profile = Customer::new(id, "Cold checkout", &format!("{customer}@example.com"))?;
            store.put_customer(&profile).await?;
            let answer =
                functions::edit_cart::handle(&store, payments::hold_line(&customer, SKU, 1))
                    .await?;
            let (status, _, body) = parts(answer);
            if status != 200 && status != 201 {
                return Err(format!("cart of {customer}: {status} {body}").into());
            }
            events.push(Bytes::from(self.checkout_of(&customer).to_string()));
        }
        Ok(events)
    }

    /// The sample checkout event, as `customer` sends it for their own cart.
    fn checkout_of(&self, customer: &str) -> Value {
        let mut event = self.event.clone();
        let path = format!("/customers/{customer}/checkout");
        event["rawPath"] = path.clone().into();
        event["requestContext"]["http"]["path"] = path.into();
        event["pathParameters"]["customerId"] = customer.into();
        let claims = &mut event["requestContext"]["authorizer"]["jwt"]["claims"];
        claims["sub"] = customer.into();
        claims["username"] = customer.into();
        event["headers"]["idempotency-key"] = format!("cold-checkout-{customer}").into();
        event
    }
}
