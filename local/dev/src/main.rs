//! `make dev`: the embedded engine on 127.0.0.1:8000 (any AWS CLI or boto3 can use it), the
//! table from template.yaml, the sample data, and the HTTP API on 127.0.0.1:3000.
//!
//! Environment: STORE_HOST (127.0.0.1), DYNAMODB_PORT (8000), API_PORT (3000),
//! STORE_DATA_FILE (.local-data/store.db), STATUS_SHARDS (template.yaml's StatusShards default),
//! MAX_OPEN_ORDERS (template.yaml's MaxOpenOrders default), MAX_HELD_QUANTITY (its
//! MaxHeldQuantity default), STORE_EXPLORER (the explorer at
//! /_explorer is served on a loopback STORE_HOST only, unless this is 1), PAYMENT_PORT (8420:
//! the payment provider, localstripe, started here; `off` starts none), EVENTS_PORT (8430:
//! EventBridge, SQS and SES, moto's server, started here; `off` starts none), and the rest of
//! docs/local-dev.md's table.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use local_dev::auth::{Issuer, LOCAL_AUDIENCE, LOCAL_ISSUER};
use local_dev::routes::{self, Route};
use local_dev::server::Explorer;
use local_engine::limits::{Limits, Model};
use local_engine::provider::LocalProvider;
use local_engine::{Engine, LOCAL_TABLE, dynoxide, seed, streams, template};
use shared::Store;
use shared::domain::checkout::{Currency, HoldDuration};
use shared::dynamo::keys::StatusShards;

use shared::domain::error::BoxError as Error;

struct Config {
    host: IpAddr,
    dynamodb_port: u16,
    api_port: u16,
    data_file: PathBuf,
    explorer: Explorer,
    /// DynamoDB's limits between the functions and the engine, this many times slower than
    /// DynamoDB (`DYNAMODB_LIMITS`; off unless set).
    limits: Option<f64>,
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.to_owned())
}

impl Config {
    fn from_env() -> Result<Self, Error> {
        let port = |name: &str, default: &str| -> Result<u16, Error> {
            env_or(name, default)
                .parse()
                .map_err(|_| format!("{name} must be a port number").into())
        };
        let host: IpAddr = env_or("STORE_HOST", "127.0.0.1")
            .parse()
            .map_err(|_| "STORE_HOST must be an IP address")?;
        // The explorer shows every item, and runs any access pattern, without a token.
        let api_port = port("API_PORT", "3000")?;
        let explorer = if host.is_loopback() || env_or("STORE_EXPLORER", "") == "1" {
            Explorer::served(host, api_port)
        } else {
            Explorer::Refused(format!(
                "make dev listens on {host}, not a loopback address, and the explorer shows every \
                 item without a token; set STORE_EXPLORER=1 to serve it there anyway"
            ))
        };
        let limits = match env_or("DYNAMODB_LIMITS", "off").as_str() {
            "off" | "0" => None,
            factor => Some(
                factor
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite() && *f >= 1.0)
                    .ok_or("DYNAMODB_LIMITS must be off or a factor of 1 or more")?,
            ),
        };
        Ok(Self {
            host,
            explorer,
            limits,
            dynamodb_port: port("DYNAMODB_PORT", "8000")?,
            api_port,
            data_file: local_dev::data_file(),
        })
    }
}

/// A numeric parameter's default in template.yaml: what a deploy gets unless told otherwise.
fn template_default(template: &serde_yaml::Value, parameter: &str) -> Result<u32, Error> {
    template["Parameters"][parameter]["Default"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("template.yaml has no numeric {parameter} default").into())
}

/// The caps, for the banner: open orders (`MAX_OPEN_ORDERS`), units held (`MAX_HELD_QUANTITY`).
type Caps = (Option<u32>, Option<u32>);

/// The store on `client`, configured as a deployed stack is, from template.yaml's parameter
/// defaults unless the environment says otherwise (`STATUS_SHARDS`, `MAX_OPEN_ORDERS`,
/// `MAX_HELD_QUANTITY`,
/// `CART_TTL_DAYS`, `RETURN_WINDOW_DAYS`, `HOLD_MINUTES`, `CURRENCY`, `PRICES_INCLUDE_TAX`); with the status shards and the cap, for the
/// banner.
fn configured_store(
    template: &serde_yaml::Value,
    client: aws_sdk_dynamodb::Client,
) -> Result<(Store, StatusShards, Caps), Error> {
    let invalid =
        |name: &'static str| move |err: String| format!("template.yaml's {name} default: {err}");
    let shards = StatusShards::new(template_default(template, "StatusShards")?)
        .map_err(invalid("StatusShards"))?;
    let shards = shared::bootstrap::status_shards_from_env(shards)?;
    let max_open = Some(template_default(template, "MaxOpenOrders")?);
    let max_open = shared::bootstrap::max_open_orders_from_env(max_open)?;
    let max_held = Some(template_default(template, "MaxHeldQuantity")?);
    let max_held = shared::bootstrap::max_held_quantity_from_env(max_held)?;
    let hold = HoldDuration::parse_minutes(&template_default(template, "HoldMinutes")?.to_string())
        .map_err(invalid("HoldMinutes"))?;
    let currency = template["Parameters"]["Currency"]["Default"]
        .as_str()
        .ok_or("template.yaml has no Currency default")?;
    let currency = Currency::parse(currency).map_err(invalid("Currency"))?;
    let include_tax =
        template["Parameters"]["PricesIncludeTax"]["Default"].as_str() == Some("true");
    let store = Store::new(client, LOCAL_TABLE)
        .with_status_shards(shards)
        .with_max_open_orders(max_open)
        .with_max_held_quantity(max_held)
        .with_cart_ttl(shared::bootstrap::cart_ttl_from_env()?)
        .with_return_window_days(shared::bootstrap::return_window_from_env(
            template_default(template, "ReturnWindowDays")?,
        )?)
        .with_hold(shared::bootstrap::hold_from_env(hold)?)
        .with_currency(shared::bootstrap::currency_from_env(currency)?)
        .with_prices_include_tax(shared::bootstrap::prices_include_tax_from_env(include_tax)?);
    Ok((store, shards, (max_open, max_held)))
}

#[tokio::main]
async fn main() -> ExitCode {
    init_logging();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("store-local: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Logs to stderr at RUST_LOG's level (info by default). The engine's own warning for every
/// error response it sends is left out: cancelled transactions and failed conditions are how
/// the store works, and each one that matters is logged by the handler that saw it.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,dynoxide=error"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr)
        .init();
}

/// The engine on the data file, its table made from template.yaml and the sample data written
/// if missing, with TTL and the stream's upkeep running; the functions' client of it; whether
/// the table was created, and whether the sample data was written.
async fn open_engine(config: &Config) -> Result<(Engine, Client, bool, bool), Error> {
    if let Some(dir) = config
        .data_file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir)?;
    }
    let path = config
        .data_file
        .to_str()
        .ok_or("STORE_DATA_FILE must be UTF-8")?;
    let db = dynoxide::Database::new(path)?;
    let dynamodb_addr = SocketAddr::new(config.host, config.dynamodb_port);
    let engine = Engine::start(db, dynamodb_addr)
        .await
        .map_err(|err| format!("cannot serve DynamoDB on {dynamodb_addr}: {err}"))?;
    let created = template::create_table(engine.database(), LOCAL_TABLE)?;
    let seeded = seed::seed_if_empty(&engine.client(), LOCAL_TABLE).await?;
    spawn_ttl_sweeper(engine.database().clone());
    spawn_stream_upkeep(config.data_file.clone()).await?;
    let client = store_client(config, &engine)?;
    Ok((engine, client, created, seeded))
}

/// The functions' DynamoDB client: through DynamoDB's limits when `DYNAMODB_LIMITS` asks.
fn store_client(config: &Config, engine: &Engine) -> Result<Client, Error> {
    let limits = config
        .limits
        .map(|factor| Limits::new(engine.database(), Model::scaled(factor)))
        .transpose()?;
    Ok(engine.dev_client_with(limits.as_ref()))
}

async fn run() -> Result<(), Error> {
    let started = Instant::now();
    let config = Config::from_env()?;
    let (engine, client, created, seeded) = open_engine(&config).await?;

    // template.yaml, read once: the routes, the status shards, the stream consumers.
    let template = template::parse()?;
    let routes = known_routes(&template)?;
    let (store, status_shards, caps) = configured_store(&template, client)?;
    let data_dir = local_dev::data_dir(&config.data_file);
    let webhook_secrets = local_dev::payments::secrets(&data_dir)?;
    // The payment provider and the events' server start side by side.
    let (provider, events) = tokio::join!(
        start_provider(&config, &data_dir),
        local_dev::events::start(&template, &data_dir)
    );
    let (provider, events) = (provider?, events?);
    // Products' pictures live in moto's S3, beside the bus (none with EVENTS_PORT=off).
    let store = match &events {
        Some(events) => store.with_media(events.bus.media_bucket(&events.made, "MediaBucket")?),
        None => store,
    };
    // One client for checkout, the expiry and the refunds payer, as each Lambda builds one at init.
    let provider_api = provider_client(provider.as_ref());
    local_dev::payments::spawn_schedules(&store, &provider_api)?;
    let consumers = spawn_stream_consumers(
        &template,
        &engine,
        &store,
        &config.data_file,
        events.as_ref(),
    )?;
    let heard = spawn_subscribers(events.as_ref(), &store).await?;
    // API Gateway's JWT authorizer, locally: tokens of the issuer whose key lives beside the
    // data (`make token`).
    let issuer = Issuer::open(&local_dev::data_dir(&config.data_file))?;
    let api_addr = SocketAddr::new(config.host, config.api_port);
    let listener = tokio::net::TcpListener::bind(api_addr)
        .await
        .map_err(|err| format!("cannot serve the API on {api_addr}: {err}"))?;

    print_banner(
        &config,
        engine.endpoint(),
        api_addr,
        &routes,
        &consumers,
        created,
        seeded,
        started,
        status_shards,
        caps,
        provider.as_ref(),
        events.as_ref(),
    );
    axum::serve(
        listener,
        local_dev::server::router(
            &routes,
            local_dev::Services {
                store,
                secrets: webhook_secrets,
                provider: provider_api,
                strict_declarations: false,
            },
            issuer.verifier(),
            config.explorer.clone(),
            heard,
        ),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await?;
    println!(
        "store-local: stopping; data kept in {}",
        config.data_file.display()
    );
    drop(provider);
    drop(events);
    engine.stop().await
}

/// template.yaml's routes, each to a binary store-local can run.
fn known_routes(template: &serde_yaml::Value) -> Result<Vec<Route>, Error> {
    let routes = routes::from_template(template)?;
    if let Some(unknown) = routes.iter().find(|r| !local_dev::knows(&r.binary)) {
        return Err(format!(
            "template.yaml routes {} to binary {}, which store-local does not know",
            unknown.key(),
            unknown.binary
        )
        .into());
    }
    Ok(routes)
}

/// The bus's subscribers as make dev runs them: the customers' emails and the pictures' checks
/// from their queues, and
/// its own tap, whose log it returns (none without the events' server).
async fn spawn_subscribers(
    events: Option<&local_dev::events::Events>,
    store: &Store,
) -> Result<Option<std::sync::Arc<local_dev::events::Heard>>, Error> {
    let Some(events) = events else {
        return Ok(None);
    };
    events.spawn_emails(store)?;
    events.spawn_media_checks(store)?;
    Ok(Some(events.spawn_tap().await?))
}

/// The client checkout calls the provider with: make dev's localstripe, or (`PAYMENT_PORT=off`)
/// `PAYMENT_API_BASE` with `PAYMENT_API_KEY`, as a deployed function has them (the provider's
/// own test mode with an `sk_test_` key, say).
fn provider_client(local: Option<&LocalProvider>) -> payment_provider::Provider {
    match local {
        Some(local) => {
            payment_provider::Provider::new(&local.base, local_engine::provider::LOCAL_API_KEY)
        }
        None => payment_provider::Provider::new(
            &env_or("PAYMENT_API_BASE", payment_provider::client::DEFAULT_BASE),
            &env_or("PAYMENT_API_KEY", ""),
        ),
    }
}

/// The payment provider (localstripe) on `PAYMENT_PORT`, its webhook sent to this API's
/// `/payments/webhook` signed with the endpoint secret; none for `PAYMENT_PORT=off`.
async fn start_provider(
    config: &Config,
    data_dir: &std::path::Path,
) -> Result<Option<LocalProvider>, Error> {
    let Some(port) = local_engine::provider::port_from_env()? else {
        return Ok(None);
    };
    // The first secret, while the store holds two (a roll): the one the provider signs with.
    let secret = local_dev::payments::secret_text(data_dir)?
        .split(|c: char| c == ',' || c.is_whitespace())
        .find(|s| !s.is_empty())
        .ok_or("the webhook secret is empty")?
        .to_owned();
    let host = if config.host.is_unspecified() {
        IpAddr::from([127, 0, 0, 1])
    } else {
        config.host
    };
    let webhook = format!(
        "http://{}/payments/webhook",
        SocketAddr::new(host, config.api_port)
    );
    let log = data_dir.join("localstripe.log");
    let provider = tokio::task::spawn_blocking(move || {
        LocalProvider::start(port, &log, Some((&webhook, &secret)))
    })
    .await
    .map_err(|err| err.to_string())??;
    Ok(Some(provider))
}

/// Drives template.yaml's stream consumers from the engine's stream, as Lambda's event source
/// mapping would: a poll every 250 ms, resuming after restarts from a checkpoint file. The
/// publisher runs only where the events' server does (`EVENTS_PORT`).
fn spawn_stream_consumers(
    template: &serde_yaml::Value,
    engine: &Engine,
    store: &Store,
    data_file: &std::path::Path,
    events: Option<&local_dev::events::Events>,
) -> Result<Vec<String>, Error> {
    let mut names = Vec::new();
    for consumer in streams::consumers(template)? {
        let label = format!(
            "{} (batches of {}, {} retries)",
            consumer.binary, consumer.batch_size, consumer.max_retries
        );
        let checkpoint = data_file.with_extension(format!("{}.checkpoint.json", consumer.binary));
        let open = |consumer| {
            streams::StreamSource::open(engine.database(), LOCAL_TABLE, consumer, Some(checkpoint))
        };
        match (consumer.binary.as_str(), events) {
            ("order-stats", _) => {
                let store = store.clone();
                spawn_consumer(open(consumer)?, move |event| {
                    let store = store.clone();
                    async move {
                        local_dev::as_declared(
                            "order-stats",
                            functions::order_stats::handle(&store, event),
                        )
                        .await
                    }
                });
            }
            ("publish-events", Some(events)) => {
                let publisher = events.publisher(store)?;
                spawn_consumer(open(consumer)?, move |event| {
                    let publisher = publisher.clone();
                    async move { local_dev::events::Events::publish(&publisher, event).await }
                });
            }
            ("publish-events", None) => {
                names.push(format!("{label}: off (EVENTS_PORT=off)"));
                continue;
            }
            (other, _) => {
                return Err(format!(
                    "template.yaml's stream consumer {other} is not known to store-local"
                )
                .into());
            }
        }
        names.push(label);
    }
    Ok(names)
}

/// `source` drained into `handler` every 250 ms, for as long as make dev runs.
fn spawn_consumer<F, Fut>(mut source: streams::StreamSource, mut handler: F)
where
    F: FnMut(aws_lambda_events::event::dynamodb::Event) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = aws_lambda_events::event::streams::DynamoDbEventResponse>
        + Send,
{
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        loop {
            tick.tick().await;
            match source.drain(&mut handler).await {
                Ok(drained) if drained.records > 0 => {
                    tracing::debug!(?drained, "stream delivered")
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(error = %err, "stream poll failed"),
            }
        }
    });
}

/// The engine expires TTL items only when asked to, and a sweep reads every item (~70 ms of
/// CPU at 13,000 items). So a sweep waits 100 times as long as the last one took (at least
/// 30 s): the sweeper spends at most 1% of a core whatever the file holds. DynamoDB itself
/// deletes expired items within a few days, and nothing here reads an expired item as live
/// (idempotency records check their own expiry).
fn spawn_ttl_sweeper(db: dynoxide::Database) {
    tokio::spawn(async move {
        let mut wait = Duration::from_secs(30);
        loop {
            tokio::time::sleep(wait).await;
            let db = db.clone();
            let started = Instant::now();
            match tokio::task::spawn_blocking(move || db.sweep_ttl()).await {
                Ok(Ok(0)) => {}
                Ok(Ok(n)) => tracing::info!(expired = n, "TTL sweep"),
                Ok(Err(err)) => tracing::warn!(error = %err, "TTL sweep failed"),
                Err(err) => tracing::warn!(error = %err, "TTL sweep task failed"),
            }
            let took = started.elapsed();
            tracing::debug!(?took, "TTL sweep");
            wait = (took * 100).max(Duration::from_secs(30));
        }
    });
}

/// The stream records' indexes (now, before the first request) and their trimming to the
/// stream's 24-hour retention (now and every ten minutes): `local_engine::upkeep`.
async fn spawn_stream_upkeep(data_file: PathBuf) -> Result<(), Error> {
    let run = move || {
        let path = data_file.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                local_engine::upkeep::upkeep(
                    &path,
                    chrono::Utc::now().timestamp(),
                    local_engine::upkeep::STREAM_RETENTION,
                )
            })
            .await
            .map_err(|err| Error::from(err.to_string()))?
        }
    };
    let first = run().await?;
    tracing::debug!(?first, "stream records indexed and trimmed");
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(600)).await;
            match run().await {
                Ok(upkept) if upkept.trimmed > 0 => {
                    tracing::info!(?upkept, "stream records trimmed")
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(error = %err, "stream upkeep failed"),
            }
        }
    });
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

#[allow(clippy::too_many_arguments)]
fn print_banner(
    config: &Config,
    dynamodb: &str,
    api: SocketAddr,
    routes: &[Route],
    consumers: &[String],
    created: bool,
    seeded: bool,
    started: Instant,
    status_shards: StatusShards,
    (max_open, max_held): Caps,
    provider: Option<&LocalProvider>,
    events: Option<&local_dev::events::Events>,
) {
    let data = config.data_file.display();
    let table = match (created, seeded) {
        (true, _) => "created from template.yaml",
        (false, true) => "existing, sample data completed",
        (false, false) => "existing, data kept",
    };
    println!("store-local ready in {} ms", started.elapsed().as_millis());
    println!("  DynamoDB engine  {dynamodb}  (data: {data})");
    println!(
        "  table            {LOCAL_TABLE}, {table}{}",
        if seeded { ", sample data seeded" } else { "" }
    );
    println!("  HTTP API         http://{api}");
    match &config.explorer {
        Explorer::Served(_) => println!(
            "  explorer         http://{api}/_explorer  (the table, its indexes, the access patterns, live requests)"
        ),
        Explorer::Refused(_) => println!(
            "  explorer         off: STORE_HOST is not a loopback address (STORE_EXPLORER=1 serves it)"
        ),
    }
    match config.limits {
        Some(factor) => println!(
            "  DynamoDB limits  a partition's units a second and transactions' collisions, {factor}x slower than DynamoDB  (DYNAMODB_LIMITS)"
        ),
        None => println!("  DynamoDB limits  off  (DYNAMODB_LIMITS=1 models DynamoDB's own)"),
    }
    println!(
        "  status shards    {}  (STATUS_SHARDS)",
        status_shards.count()
    );
    println!(
        "  open orders      at most {} PLACED per customer  (MAX_OPEN_ORDERS)",
        max_open.map_or("unlimited".to_owned(), |m| m.to_string())
    );
    println!(
        "  units held       at most {} of a product per customer  (MAX_HELD_QUANTITY)",
        max_held.map_or("unlimited".to_owned(), |m| m.to_string())
    );
    for route in routes {
        println!(
            "    {:<6} {:<34} -> {}",
            route.method, route.path, route.binary
        );
    }
    for consumer in consumers {
        println!("  stream consumer  {consumer}");
    }
    print_payments(provider);
    print_events(events);
    println!("  authorizer       JWT (RS256), issuer {LOCAL_ISSUER}, audience {LOCAL_AUDIENCE}");
    print_try(api, dynamodb);
    println!("Ctrl-C stops everything.");
}

/// The banner's first commands to try, against make dev at `api` and its engine at `dynamodb`.
fn print_try(api: SocketAddr, dynamodb: &str) {
    println!(
        "Try (every API route needs a token, `make -s token` prints one; the webhook, /openapi.json and /_explorer need none):"
    );
    println!("  C1=$(make -s token CUSTOMER=c1); STAFF=$(make -s token STAFF=1)");
    println!("  curl -s http://{api}/customers/c1 -H \"authorization: Bearer $C1\"");
    println!(
        "  curl -s 'http://{api}/customers/c1/orders?limit=5' -H \"authorization: Bearer $C1\""
    );
    println!("  curl -s http://{api}/orders/o100/items -H \"authorization: Bearer $C1\"");
    println!(
        "  curl -s 'http://{api}/orders?status=PLACED&limit=3' -H \"authorization: Bearer $STAFF\""
    );
    println!(
        "  curl -s -X POST http://{api}/customers/c1/orders -H \"authorization: Bearer $STAFF\" \\\n      -H 'content-type: application/json' -d '{{\"items\":[{{\"sku\":\"sku-1\",\"quantity\":2}}]}}'    # staff's; customers check out"
    );
    println!(
        "  curl -s -X PATCH http://{api}/orders/o100 -H \"authorization: Bearer $STAFF\" \\\n      -H 'content-type: application/json' -d '{{\"status\":\"SHIPPED\"}}'"
    );
    println!(
        "  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1 \\\n      aws dynamodb scan --table-name {LOCAL_TABLE} --endpoint-url {dynamodb} --max-items 3"
    );
}

/// The banner's lines for the events: the bus and where the emails go.
fn print_events(events: Option<&local_dev::events::Events>) {
    match events {
        Some(events) => {
            println!(
                "  events           moto {} (EVENTS_PORT): bus {}, its archive and rules from template.yaml; make -s events prints them",
                events.bus.base, events.made.bus
            );
            println!(
                "  emails           from {} (EMAIL_SENDER), through moto's SES: the explorer shows them",
                events.sender
            );
        }
        None => println!("  events           none published (EVENTS_PORT=off)"),
    }
}

/// The banner's line for the payment provider: where it runs, or where checkout asks instead.
fn print_payments(provider: Option<&LocalProvider>) {
    match provider {
        Some(provider) => println!(
            "  payments         localstripe {} (PAYMENT_PORT), its webhooks to /payments/webhook; make -s pay ORDER=<id> [CARD=declined]",
            provider.base
        ),
        None => println!(
            "  payments         none started (PAYMENT_PORT=off): checkout asks PAYMENT_API_BASE ({}); make -s pay ORDER=<id> SELF_SIGNED=1 signs an event itself",
            env_or("PAYMENT_API_BASE", payment_provider::client::DEFAULT_BASE)
        ),
    }
}
