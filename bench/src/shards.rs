//! The status shards (template parameter StatusShards): list-orders-by-status with 1 and 8
//! shards, read side measured, write side modelled.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::AfterDeserializationInterceptorContextRef;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use local_engine::runtime_api::Error;
use local_engine::{Engine, LOCAL_TABLE, seed};
use shared::Store;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::money::Money;
use shared::domain::order::Order;
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::dynamo::codec::item_size;
use shared::dynamo::entities::order_listing;
use shared::dynamo::keys::StatusShards;

/// A round trip to DynamoDB within its region, the order of magnitude of its published
/// single-digit-millisecond latency: the model of the network the loopback engine lacks.
pub(crate) const ROUND_TRIP: std::time::Duration = std::time::Duration::from_millis(4);

/// The orders of one status in the benchmark's table.
pub(crate) const ORDERS: usize = 2_000;

/// Records the bytes each Query read, to bill it as DynamoDB does.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadMeter(Arc<Mutex<Vec<usize>>>);

impl ReadMeter {
    pub(crate) fn take(&self) -> Vec<usize> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl Intercept for ReadMeter {
    fn name(&self) -> &'static str {
        "ReadMeter"
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Ok(output) = context.output_or_error()
            && let Some(query) = output.downcast_ref::<QueryOutput>()
            && let Ok(mut reads) = self.0.lock()
        {
            reads.push(query.items().iter().map(item_size).sum());
        }
        Ok(())
    }
}

/// Read request units of one Query, as billed: its items' bytes in 4 KB units (at least one),
/// halved for an eventually consistent read (GSI reads always are).
pub(crate) fn read_units(bytes: usize) -> f64 {
    bytes.div_ceil(4096).max(1) as f64 * 0.5
}

/// An engine holding [`ORDERS`] PLACED orders written under `shards`, many sharing a second.
pub(crate) async fn engine_with_orders(shards: StatusShards) -> Result<Engine, Error> {
    let engine = Engine::in_memory().await?;
    let mut items = Vec::with_capacity(ORDERS);
    for i in 0..ORDERS {
        let order = Order {
            order_id: OrderId::parse(&format!("b{i:05}"))?,
            customer_id: CustomerId::parse(&format!("c{}", i % 97))?,
            placed_at: Timestamp::parse(&format!(
                "2026-11-{:02}T{:02}:{:02}:00Z",
                1 + i / 1440 % 28,
                i / 60 % 24,
                i % 60
            ))?,
            status: OrderStatus::Placed,
            total: Money::parse_number("24.90").ok_or("a money amount")?,
        };
        items.push(order_listing::to_item(&order, shards));
    }
    seed::write_all(&engine.client(), LOCAL_TABLE, items).await?;
    Ok(engine)
}

/// A store on `engine` that counts its requests and meters its reads (the functions' own SDK
/// configuration otherwise).
pub(crate) fn metered_store(
    engine: &Engine,
    shards: StatusShards,
) -> (Store, local_engine::RequestCounter, ReadMeter) {
    let meter = ReadMeter::default();
    let (client, counter) = engine.counting_intercepted_client(meter.clone());
    let store = Store::new(client, LOCAL_TABLE).with_status_shards(shards);
    (store, counter, meter)
}

/// The write side, as arithmetic: the GSI1 write units per second on the hottest partition key
/// when `orders_per_second` orders are placed (each listing item, < 1 KB, is one GSI write unit
/// in STATUS#PLACED[#k]; FNV-1a of ULIDs spreads them evenly over the shards).
pub(crate) fn hottest_partition_writes(orders_per_second: f64, shards: u32) -> f64 {
    orders_per_second / f64::from(shards)
}
